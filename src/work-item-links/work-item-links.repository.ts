import { PartialUpdate, runPartialUpdate } from '../common/database/partial-update';
import { LINK_LIST } from './work-item-links.queries';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';

const COLS = `l.id, l.work_item_id, l.url, l.title, l.metadata, l.created_at, l.created_by_id`;
const RETURNING = COLS.replace(/l\./g, '');

export interface LinkRow extends Record<string, unknown> {
  id: string;
  work_item_id: string;
  url: string;
  title: string | null;
  metadata: unknown;
  created_at: Date;
  created_by_id: string | null;
}

export interface LinkWrite {
  url?: string;
  title?: string | null;
  metadata?: unknown;
}

/** A link PATCH: the fields sent; the caller is always recorded as the last editor. */
const LINK_UPDATE: PartialUpdate<LinkWrite> = {
  table: 'work_item_links',
  columns: { url: {}, title: {}, metadata: { json: true } },
  where: 'workspace_id = $1 AND id = $2',
  stamps: ['updated_by_id = $3', 'updated_at = now()'],
  always: true,
};

/** Every statement is scoped by workspace, project and work item. */
@Injectable()
export class WorkItemLinksRepository {
  constructor(private readonly ds: DataSource) {}

  list(workspaceId: string, projectId: string, workItemId: string, q: ListQuery) {
    const p = new SqlParams([workspaceId, projectId, workItemId]);
    return runList<LinkRow>(this.ds, LINK_LIST, q, {
      select: COLS,
      from: 'work_item_links l',
      where: ['l.work_item_id = $3', 'l.workspace_id = $1', 'l.project_id = $2', 'l.deleted_at IS NULL'],
      params: p,
    });
  }

  /** The live, unarchived work item the links hang off; in a write, held FOR KEY SHARE until commit. */
  async workItemExists(
    workspaceId: string,
    projectId: string,
    workItemId: string,
    db: Queryable = this.ds,
    lock = false,
  ): Promise<boolean> {
    const rows = await db.query(
      `SELECT 1 FROM work_items WHERE workspace_id = $1 AND project_id = $2 AND id = $3 AND deleted_at IS NULL
          AND archived_at IS NULL${lock ? ' FOR KEY SHARE' : ''}`,
      [workspaceId, projectId, workItemId],
    );
    return rows.length > 0;
  }

  async get(
    workspaceId: string,
    projectId: string,
    workItemId: string,
    id: string,
    db: Queryable = this.ds,
    lock = false,
  ): Promise<LinkRow | null> {
    const rows = await db.query(
      `SELECT ${COLS} FROM work_item_links l
        WHERE l.workspace_id = $1 AND l.id = $4 AND l.project_id = $2 AND l.work_item_id = $3 AND l.deleted_at IS NULL
        ${lock ? 'FOR UPDATE' : ''}`,
      [workspaceId, projectId, workItemId, id],
    );
    return rows[0] ?? null;
  }

  /** Inserts the link; null when the work item already has a live link to this URL. */
  async insert(
    workspaceId: string,
    projectId: string,
    workItemId: string,
    v: Required<Pick<LinkWrite, 'url'>> & LinkWrite,
    userId: string,
    db: Queryable,
  ): Promise<LinkRow | null> {
    const rows = await db.query(
      `INSERT INTO work_item_links (workspace_id, project_id, work_item_id, url, title, metadata, created_by_id, updated_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
       ON CONFLICT (workspace_id, work_item_id, url) WHERE deleted_at IS NULL DO NOTHING
       RETURNING ${RETURNING}`,
      [workspaceId, projectId, workItemId, v.url, v.title ?? null, v.metadata ?? {}, userId],
    );
    return rows[0] ?? null;
  }

  /** Applies the fields sent; the caller is recorded as the last editor (the history's actor). */
  async update(workspaceId: string, id: string, v: LinkWrite, userId: string, db: Queryable): Promise<void> {
    await runPartialUpdate(db, LINK_UPDATE, v, new SqlParams([workspaceId, id, userId]));
  }

  async softDelete(workspaceId: string, id: string, userId: string, db: Queryable): Promise<void> {
    await db.query(
      `UPDATE work_item_links SET deleted_at = now(), updated_by_id = $3 WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id, userId],
    );
  }
}
