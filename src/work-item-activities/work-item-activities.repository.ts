import { ACTIVITY_LIST } from './work-item-activities.queries';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { SqlParams } from '../common/pagination/sql-params';
import { ActorColumns } from '../users/user-ref';
import { entryCreatedAt } from './entry-time';

const COLS = `a.id, a.work_item_id, a.verb, a.field, a.old_value, a.new_value, a.old_identifier_id, a.new_identifier_id,
  a.issue_comment_id, a.actor_id, a.epoch, a.created_at`;

/** The actor's user, read only for `?expand=actor` (users is a reference table: the join stays on one shard). */
const ACTOR_COLS = `u.display_name AS actor_display_name, u.email AS actor_email, u.avatar_url AS actor_avatar_url`;
const ACTOR_JOIN = `LEFT JOIN users u ON u.id = a.actor_id`;

export interface ActivityRow extends Record<string, unknown>, ActorColumns {
  id: string;
  work_item_id: string;
  verb: string;
  field: string | null;
  old_value: string | null;
  new_value: string | null;
  old_identifier_id: string | null;
  new_identifier_id: string | null;
  issue_comment_id: string | null;
  actor_id: string | null;
  epoch: string;
  created_at: Date;
}

/** The one-entry statement ($1 workspace, $2 project, $3 work item, $4 id, $5 the id's creation time or null). */
export function oneEntrySql(withActor: boolean): string {
  const read = (where: string) =>
    `SELECT ${withActor ? `${COLS}, ${ACTOR_COLS}` : COLS} FROM work_item_activities a ${withActor ? ACTOR_JOIN : ''}
      WHERE a.workspace_id = $1 AND a.work_item_id = $3 AND ${where} AND a.id = $4 AND a.project_id = $2`;
  return `WITH exact AS MATERIALIZED (${read('a.created_at = $5::timestamptz')})
    SELECT * FROM exact UNION ALL ${read('NOT EXISTS (SELECT FROM exact)')}`;
}

/** Reads the history the triggers write; every statement is scoped by workspace, project and work item. */
@Injectable()
export class WorkItemActivitiesRepository {
  constructor(private readonly ds: DataSource) {}

  list(workspaceId: string, projectId: string, workItemId: string, q: ListQuery, withActor = false) {
    const p = new SqlParams([workspaceId, projectId, workItemId]);
    return runList<ActivityRow>(this.ds, ACTIVITY_LIST, q, {
      select: withActor ? `${COLS}, ${ACTOR_COLS}` : COLS,
      from: withActor ? `work_item_activities a ${ACTOR_JOIN}` : 'work_item_activities a',
      where: ['a.work_item_id = $3', 'a.workspace_id = $1', 'a.project_id = $2'],
      params: p,
    });
  }

  /**
   * One entry. When its id carries its creation time (entryCreatedAt), the first branch reaches it by the whole
   * primary key, one descent whatever the size of the item's history; the second, the item's history scanned for
   * the id, runs only when the first found nothing (an entry with a random id from before time-ordered ids, or no
   * such entry): its NOT EXISTS over the materialized first branch is a one-time filter.
   */
  async get(
    workspaceId: string,
    projectId: string,
    workItemId: string,
    id: string,
    withActor = false,
  ): Promise<ActivityRow | null> {
    const rows = await this.ds.query(oneEntrySql(withActor), [
      workspaceId,
      projectId,
      workItemId,
      id,
      entryCreatedAt(id),
    ]);
    return rows[0] ?? null;
  }

  /** History stays readable while the item is live; an archived or deleted item is 404 like its other reads. */
  async workItemExists(workspaceId: string, projectId: string, workItemId: string): Promise<boolean> {
    const rows = await this.ds.query(
      `SELECT 1 FROM work_items WHERE workspace_id = $1 AND project_id = $2 AND id = $3 AND deleted_at IS NULL AND archived_at IS NULL`,
      [workspaceId, projectId, workItemId],
    );
    return rows.length > 0;
  }
}
