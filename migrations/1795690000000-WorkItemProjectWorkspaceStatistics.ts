import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 25 (the work item list's unfiltered pages bind their workspace as a plain `workspace_id = $1`, which routes
 * to one shard): extended statistics telling the planner that a project determines its workspace (a functional
 * dependency, degree 1 once ANALYZE has built it). `workspace_id = … AND project_id = …` is then estimated as the
 * project's rows alone, whether the workspace is a value (a plan made for the request's values) or a parameter (the
 * cached generic plan). Without them a custom plan multiplied in the workspace's share of the rows (its
 * most-common-values entry), the generic plan 1/n_distinct: in a workspace holding most rows the custom plan of a
 * cursor page looked cheaper than the generic one, and PostgreSQL planned the page again on every request
 * (docs/work-items-plans.md, "The unfiltered page's workspace").
 */
export class WorkItemProjectWorkspaceStatistics1795690000000 implements MigrationInterface {
  name = 'WorkItemProjectWorkspaceStatistics1795690000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE STATISTICS "st_work_items_project_workspace" (dependencies) ON "workspace_id", "project_id" FROM "work_items"`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP STATISTICS "st_work_items_project_workspace"`);
  }
}
