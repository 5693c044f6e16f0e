import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * The few stored columns v1 shows and v2 no longer returns (gap-reference 8: `updated_at`, `updated_by`, a work
 * item's `description_html`, users' first and last names), read by id for records a v2 service has just returned
 * (so already authorized and tenant-scoped; the workspace is bound again anyway). Read-only, one statement per
 * response; no rule lives here.
 */
const COLUMNS = {
  work_items:
    'project_id AS project, updated_at, updated_by_id AS updated_by, description_html, description_stripped, estimate_point_id AS estimate_point, sort_order',
  states: 'updated_at',
  labels: 'updated_at, project_id AS project',
  cycles: 'updated_at',
  modules: 'updated_at',
  work_item_comments: 'updated_at',
  projects: 'updated_at',
  estimates: 'updated_at, project_id AS project',
  estimate_points: 'updated_at, project_id AS project',
  workflows: 'updated_at, project_id AS project',
  work_item_types: 'updated_at, project_id AS project',
  work_item_properties: 'updated_at, project_id AS project',
  work_item_links: 'updated_at, updated_by_id AS updated_by, project_id AS project',
  // History entries never change: their update stamp is their creation.
  work_item_activities: 'created_at AS updated_at, project_id AS project',
  work_item_relation_definitions: 'updated_at',
  work_item_property_options: 'updated_at',
} as const;

export type V1Table = keyof typeof COLUMNS;

/**
 * The column a table's primary key has between workspace_id and id, which a read by id must name to use the key:
 * a history entry's key is (workspace_id, work_item_id, created_at, id) (migration ActivityEntryOneIndex).
 */
const KEY_SCOPE: Partial<Record<V1Table, string>> = { work_item_activities: 'work_item_id' };

/** The keys each table's stored columns add to a v1 record (their `AS` names), for the v1 document. */
export const V1_STORED_KEYS = Object.fromEntries(
  Object.entries(COLUMNS).map(([table, cols]) => [
    table,
    cols.split(',').map((c) =>
      c
        .trim()
        .split(/\s+AS\s+/i)
        .pop()!,
    ),
  ]),
) as Record<V1Table, string[]>;
export type V1Stored = Record<string, unknown>;

export interface V1UserNames {
  id: string;
  first_name: string;
  last_name: string;
  display_name: string;
  email: string;
  avatar_url: string | null;
}

@Injectable()
export class V1RecordsRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * The v1-only columns of `records` in `table`, by id (`updated_at` as ISO 8601, `updated_by` null where
   * untracked). A table whose key has a column between workspace_id and id (KEY_SCOPE) is read by that too.
   */
  async stored(table: V1Table, workspaceId: string, records: Array<{ id: string }>): Promise<Map<string, V1Stored>> {
    if (!records.length) return new Map();
    const scope = KEY_SCOPE[table];
    const params: unknown[] = [workspaceId, records.map((r) => r.id)];
    if (scope) params.push([...new Set(records.map((r) => String((r as Record<string, unknown>)[scope])))]);
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT id, ${COLUMNS[table]} FROM ${table}
        WHERE workspace_id = $1${scope ? ` AND ${scope} = ANY($3::uuid[])` : ''} AND id = ANY($2::uuid[])`,
      params,
    );
    return new Map(
      rows.map(({ id, ...rest }) => [
        String(id),
        {
          updated_by: null,
          ...rest,
          updated_at: rest.updated_at ? new Date(rest.updated_at as string).toISOString() : null,
        },
      ]),
    );
  }

  /**
   * The work item summary v1 lists a related item with (SDK `WorkItemWithRelationType`), by the ids a v2 relation
   * list has just returned (already filtered to what the caller may read).
   */
  async workItemSummaries(workspaceId: string, ids: string[]): Promise<Map<string, V1Stored>> {
    if (!ids.length) return new Map();
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT id, name, sequence_id, project_id, state_id, priority, type_id FROM work_items
        WHERE workspace_id = $1 AND id = ANY($2::uuid[])`,
      [workspaceId, ids],
    );
    return new Map(rows.map((r) => [String(r.id), r]));
  }

  /** Users' names as v1 shows them (users/me, members), by id. */
  async users(ids: string[]): Promise<Map<string, V1UserNames>> {
    if (!ids.length) return new Map();
    const rows: V1UserNames[] = await this.ds.query(
      `SELECT id, first_name, last_name, display_name, email, avatar_url FROM users WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r]));
  }
}
