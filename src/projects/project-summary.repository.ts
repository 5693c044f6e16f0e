import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The resource counts `?counts=` may ask for (Plane's names; `issues` counts live, unarchived work items). */
export const SUMMARY_COUNTS = ['members', 'states', 'labels', 'cycles', 'modules', 'issues'] as const;
export type SummaryCount = (typeof SUMMARY_COUNTS)[number];

/** One scalar subquery per count, each an index range of its table's project index (or a counter sum). */
const COUNT_SQL: Record<SummaryCount, string> = {
  members: `SELECT count(*)::int FROM project_members WHERE workspace_id = $1 AND project_id = $2 AND deleted_at IS NULL`,
  states: `SELECT count(*)::int FROM states WHERE workspace_id = $1 AND project_id = $2 AND deleted_at IS NULL`,
  labels: `SELECT count(*)::int FROM labels WHERE workspace_id = $1 AND project_id = $2 AND deleted_at IS NULL`,
  cycles: `SELECT count(*)::int FROM cycles WHERE workspace_id = $1 AND project_id = $2 AND deleted_at IS NULL`,
  modules: `SELECT count(*)::int FROM modules WHERE workspace_id = $1 AND project_id = $2 AND deleted_at IS NULL`,
  issues: `SELECT coalesce(sum(n), 0)::int FROM project_work_item_counts WHERE workspace_id = $1 AND project_id = $2`,
};

/**
 * The project's live, unarchived work items broken down, as JSON objects of counts: by state group and priority from
 * the trigger-kept (state, priority) counters, by assignee from the assignee counters, by cycle through
 * ix_work_items_cycle and by module through the module links' primary key. No statement scans the project's items.
 */
const BREAKDOWN_SQL = `
  SELECT
    (SELECT coalesce(jsonb_object_agg(g, n), '{}') FROM (
       SELECT s."group" AS g, sum(k.n)::int AS n FROM work_item_state_priority_counts k JOIN states s
         ON s.workspace_id = k.workspace_id AND s.id = k.state_id
        WHERE k.workspace_id = $1 AND k.project_id = $2 GROUP BY s."group" HAVING sum(k.n) > 0) x) AS by_state_group,
    (SELECT coalesce(jsonb_object_agg(priority, n), '{}') FROM (
       SELECT k.priority, sum(k.n)::int AS n FROM work_item_state_priority_counts k
        WHERE k.workspace_id = $1 AND k.project_id = $2 GROUP BY k.priority HAVING sum(k.n) > 0) x) AS by_priority,
    (SELECT coalesce(jsonb_object_agg(assignee_id, n), '{}') FROM (
       SELECT k.assignee_id, sum(k.n)::int AS n FROM work_item_assignee_counts k
        WHERE k.workspace_id = $1 AND k.project_id = $2 GROUP BY k.assignee_id HAVING sum(k.n) > 0) x) AS by_assignee,
    (SELECT coalesce(jsonb_object_agg(c.id, n), '{}') FROM (
       SELECT c.id, (SELECT count(*)::int FROM work_items w
                      WHERE w.workspace_id = $1 AND w.cycle_id = c.id AND w.deleted_at IS NULL AND w.archived_at IS NULL) AS n
         FROM cycles c WHERE c.workspace_id = $1 AND c.project_id = $2 AND c.deleted_at IS NULL) c WHERE n > 0) AS by_cycle,
    (SELECT coalesce(jsonb_object_agg(m.id, n), '{}') FROM (
       SELECT m.id, (SELECT count(*)::int FROM module_work_items l
                        JOIN work_items w ON w.workspace_id = l.workspace_id AND w.id = l.work_item_id
                      WHERE l.workspace_id = $1 AND l.module_id = m.id AND w.deleted_at IS NULL AND w.archived_at IS NULL) AS n
         FROM modules m WHERE m.workspace_id = $1 AND m.project_id = $2 AND m.deleted_at IS NULL) m WHERE n > 0) AS by_module`;

export interface WorkItemBreakdown {
  by_state_group: Record<string, number>;
  by_priority: Record<string, number>;
  by_assignee: Record<string, number>;
  by_cycle: Record<string, number>;
  by_module: Record<string, number>;
}

/**
 * The project summary's read model (issue 19): counts over other features' tables, read-only, in one statement.
 * A named query module rather than borrowed SQL: no feature writes through it, and it reads only counters and
 * index ranges the owning features maintain.
 */
@Injectable()
export class ProjectSummaryRepository {
  constructor(private readonly ds: DataSource) {}

  async read(
    workspaceId: string,
    projectId: string,
    counts: readonly SummaryCount[],
  ): Promise<{ counts: Record<string, number>; work_items: WorkItemBreakdown }> {
    const cols = counts.map((c) => `(${COUNT_SQL[c]}) AS ${c}`);
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT ${[...cols, 'b.*'].join(', ')} FROM (${BREAKDOWN_SQL}) b`,
      [workspaceId, projectId],
    );
    const { by_state_group, by_priority, by_assignee, by_cycle, by_module, ...rest } = rows[0];
    return {
      counts: rest as Record<string, number>,
      work_items: { by_state_group, by_priority, by_assignee, by_cycle, by_module } as WorkItemBreakdown,
    };
  }
}
