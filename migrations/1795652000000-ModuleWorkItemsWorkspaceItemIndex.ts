import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 27 part 2 (plans that do not depend on statistics) and issue 25 (statements routed by workspace): a work
 * item's modules are read as `mw.workspace_id = $1 AND mw.work_item_id = page.id`. The primary key starts
 * (workspace_id, module_id) and ix_module_work_items_item (work_item_id, module_id) lacks the workspace, so the
 * planner's choice between them rested on statistics; this index answers both equalities, index-only, in module
 * order.
 */
export class ModuleWorkItemsWorkspaceItemIndex1795652000000 implements MigrationInterface {
  name = 'ModuleWorkItemsWorkspaceItemIndex1795652000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX "ix_module_work_items_ws_item" ON "module_work_items" ("workspace_id", "work_item_id", "module_id")`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_module_work_items_ws_item"`);
  }
}
