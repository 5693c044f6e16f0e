import { MigrationInterface, QueryRunner } from 'typeorm';

const LIVE = `"deleted_at" IS NULL AND "archived_at" IS NULL`;
const PRIORITY_RANK = `(CASE "priority" WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END)`;

/** The project list's ordering indexes: name and key columns (all partial on live items), and what they now include. */
const ORDER_INDEXES: Array<[string, string, string?]> = [
  ['ix_work_items_created', `"project_id", "created_at", "id"`],
  ['ix_work_items_updated', `"project_id", "updated_at", "id"`],
  ['ix_work_items_seq', `"project_id", "sequence_id", "id"`],
  ['ix_work_items_id', `"project_id", "id"`],
  ['ix_work_items_sort', `"project_id", "sort_order", "id"`],
  ['ix_work_items_state_group', `"project_id", "state_group_rank", "id"`],
  // The rank is an expression: an index-only scan needs the column it is computed from too.
  ['ix_work_items_priority', `"project_id", ${PRIORITY_RANK}, "id"`, `"workspace_id", "priority"`],
];

/**
 * Issue 27 part 2 (plans that do not depend on statistics): the project list's ordering indexes carry
 * `workspace_id` (INCLUDE, as `ix_work_items_state` does). An offset page counts its skipped rows off the
 * ordering's index (KeyWalk), and the walk equates the workspace as well as the project (statement routing,
 * issue 25): without the column every skipped entry was a heap visit (offset 10000 at a million items, never
 * analyzed: 2 s); with it the walk is index-only again. The priority index includes `priority` too: its key is
 * the rank expression, which an index-only scan can only compute from the column. Same key columns, same names:
 * each index is replaced.
 */
export class WorkItemOrderIndexesWorkspace1795660000000 implements MigrationInterface {
  name = 'WorkItemOrderIndexesWorkspace1795660000000';

  public async up(q: QueryRunner): Promise<void> {
    for (const [name, cols, include = `"workspace_id"`] of ORDER_INDEXES) {
      await q.query(`DROP INDEX "public"."${name}"`);
      await q.query(`CREATE INDEX "${name}" ON "work_items" (${cols}) INCLUDE (${include}) WHERE ${LIVE}`);
    }
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const [name, cols] of ORDER_INDEXES) {
      await q.query(`DROP INDEX "public"."${name}"`);
      await q.query(`CREATE INDEX "${name}" ON "work_items" (${cols}) WHERE ${LIVE}`);
    }
  }
}
