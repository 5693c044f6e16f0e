import { Queryable } from '../pagination/sql-params';

/** Project-scoped, soft-deleted tables whose rows other records link to (a work item's cycle and modules). */
export type LinkedProjectTable = 'cycles' | 'modules';

/**
 * Of `ids`, the live rows of the project in `table`, locked FOR KEY SHARE until commit: a delete of one (which
 * locks it FOR UPDATE first) waits for the linking write, then unlinks it like every other.
 */
export async function lockLiveInProject(
  db: Queryable,
  table: LinkedProjectTable,
  workspaceId: string,
  projectId: string,
  ids: string[],
): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows: Array<{ id: string }> = await db.query(
    `SELECT id FROM ${table} WHERE workspace_id = $1 AND project_id = $2 AND id = ANY($3::uuid[]) AND deleted_at IS NULL
      FOR KEY SHARE`,
    [workspaceId, projectId, ids],
  );
  return new Set(rows.map((r) => r.id));
}
