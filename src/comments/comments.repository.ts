import { COMMENT_LIST } from './comments.queries';
import { Injectable } from '@nestjs/common';
import { PartialUpdate, runPartialUpdate } from '../common/database/partial-update';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';
import { ActorColumns } from '../users/user-ref';

const COLS = `c.id, c.work_item_id, c.comment_html, c.comment_stripped, c.access, c.actor_id, c.edited_at,
  c.external_id, c.external_source, c.created_at, c.created_by_id`;

/** The author's user, read only for `?expand=actor` (users is a reference table). */
const ACTOR_COLS = `u.display_name AS actor_display_name, u.email AS actor_email, u.avatar_url AS actor_avatar_url`;
const ACTOR_JOIN = `LEFT JOIN users u ON u.id = c.actor_id`;

export interface CommentRow extends Record<string, unknown>, ActorColumns {
  id: string;
  work_item_id: string;
  comment_html: string;
  comment_stripped: string;
  access: string;
  actor_id: string | null;
  edited_at: Date | null;
  external_id: string | null;
  external_source: string | null;
  created_at: Date;
  created_by_id: string | null;
}

export interface CommentWrite {
  comment_html?: string;
  comment_stripped?: string;
  access?: string;
  external_id?: string | null;
  external_source?: string | null;
}

/** The columns a comment PATCH writes; every update stamps edited_at, even one that changes nothing. */
const COMMENT_UPDATE: PartialUpdate<CommentWrite> = {
  table: 'work_item_comments',
  where: 'id = $1 AND workspace_id = $2',
  columns: { comment_html: {}, comment_stripped: {}, access: {}, external_id: {}, external_source: {} },
  stamps: ['edited_at = now()', 'updated_at = now()'],
  always: true,
};

/** Every statement is scoped by workspace, project and work item. */
@Injectable()
export class CommentsRepository {
  constructor(private readonly ds: DataSource) {}

  list(workspaceId: string, projectId: string, workItemId: string, q: ListQuery, withActor = false) {
    const p = new SqlParams([workspaceId, projectId, workItemId]);
    const where = ['c.workspace_id = $1', 'c.project_id = $2', 'c.work_item_id = $3', 'c.deleted_at IS NULL'];
    return runList<CommentRow>(this.ds, COMMENT_LIST, q, {
      select: withActor ? `${COLS}, ${ACTOR_COLS}` : COLS,
      from: withActor ? `work_item_comments c ${ACTOR_JOIN}` : 'work_item_comments c',
      where,
      params: p,
    });
  }

  /** The work item the comments hang off: live and not archived (archived items are 404 like on plain reads). */
  async workItemExists(
    workspaceId: string,
    projectId: string,
    workItemId: string,
    db: Queryable = this.ds,
  ): Promise<boolean> {
    const rows = await db.query(
      `SELECT 1 FROM work_items WHERE workspace_id = $1 AND project_id = $2 AND id = $3 AND deleted_at IS NULL AND archived_at IS NULL`,
      [workspaceId, projectId, workItemId],
    );
    return rows.length > 0;
  }

  /** One comment with its author's user (`?expand=actor`). */
  async getWithActor(workspaceId: string, projectId: string, workItemId: string, id: string) {
    const rows = await this.ds.query(
      `SELECT ${COLS}, ${ACTOR_COLS} FROM work_item_comments c ${ACTOR_JOIN}
        WHERE c.workspace_id = $1 AND c.project_id = $2 AND c.work_item_id = $3 AND c.id = $4 AND c.deleted_at IS NULL`,
      [workspaceId, projectId, workItemId, id],
    );
    return (rows[0] as CommentRow | undefined) ?? null;
  }

  async get(
    workspaceId: string,
    projectId: string,
    workItemId: string,
    id: string,
    db: Queryable = this.ds,
    lock = false,
  ): Promise<CommentRow | null> {
    const rows = await db.query(
      `SELECT ${COLS} FROM work_item_comments c
        WHERE c.workspace_id = $1 AND c.project_id = $2 AND c.work_item_id = $3 AND c.id = $4 AND c.deleted_at IS NULL${lock ? ' FOR UPDATE' : ''}`,
      [workspaceId, projectId, workItemId, id],
    );
    return rows[0] ?? null;
  }

  async insert(
    workspaceId: string,
    projectId: string,
    workItemId: string,
    v: Required<Pick<CommentWrite, 'comment_html' | 'comment_stripped' | 'access'>> & CommentWrite,
    userId: string,
    db: Queryable,
  ): Promise<CommentRow> {
    const rows = await db.query(
      `INSERT INTO work_item_comments (workspace_id, project_id, work_item_id, comment_html, comment_stripped, access, actor_id,
                                       external_id, external_source, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $7)
       RETURNING ${COLS.replace(/c\./g, '')}`,
      [
        workspaceId,
        projectId,
        workItemId,
        v.comment_html,
        v.comment_stripped,
        v.access,
        userId,
        v.external_id ?? null,
        v.external_source ?? null,
      ],
    );
    return rows[0];
  }

  /** Applies the fields sent and stamps edited_at. */
  async update(workspaceId: string, id: string, v: CommentWrite, db: Queryable): Promise<void> {
    await runPartialUpdate(db, COMMENT_UPDATE, v, new SqlParams([id, workspaceId]));
  }

  async softDelete(workspaceId: string, id: string, db: Queryable): Promise<void> {
    await db.query(`UPDATE work_item_comments SET deleted_at = now() WHERE workspace_id = $2 AND id = $1`, [
      id,
      workspaceId,
    ]);
  }
}
