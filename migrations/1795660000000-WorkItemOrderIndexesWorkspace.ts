import { MigrationInterface, QueryRunner } from 'typeorm';
import { replaceIndexOnline } from './online-index';

const LIVE = `"deleted_at" IS NULL AND "archived_at" IS NULL`;

/** The project list's ordering indexes: name and key columns (all partial on live items). */
const ORDER_INDEXES: Array<[string, string]> = [
  ['ix_work_items_created', `"project_id", "created_at", "id"`],
  ['ix_work_items_updated', `"project_id", "updated_at", "id"`],
  ['ix_work_items_seq', `"project_id", "sequence_id", "id"`],
  ['ix_work_items_id', `"project_id", "id"`],
  ['ix_work_items_sort', `"project_id", "sort_order", "id"`],
  ['ix_work_items_state_group', `"project_id", "state_group_rank", "id"`],
];

/**
 * Issue 27 part 2 (plans that do not depend on statistics): the project list's ordering indexes carry
 * `workspace_id` (INCLUDE, as `ix_work_items_state` does). An offset page counts its skipped rows off the
 * ordering's index (KeyWalk), and the walk equates the workspace as well as the project (statement routing,
 * issue 25): without the column every skipped entry was a heap visit (offset 10000 at a million items, never
 * analyzed: 2 s); with it the walk is index-only again. Same key columns, same names: each index is replaced.
 * Not `ix_work_items_priority`: its key is the rank expression, which an index-only scan can only compute with
 * `priority` included as well; so widened, at a million items never analyzed, the planner (guessing one row)
 * preferred scanning the narrower ix_work_items_state_group and sorting, and the first page in priority order
 * ran past 3 s. Its offset walks still visit the table.
 *
 * Built CONCURRENTLY (migrations/online-index.ts): each new index is built beside the one it replaces, so the
 * list keeps its index and writes go on while it builds.
 */
export class WorkItemOrderIndexesWorkspace1795660000000 implements MigrationInterface {
  name = 'WorkItemOrderIndexesWorkspace1795660000000';
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    for (const [name, cols] of ORDER_INDEXES) {
      await replaceIndexOnline(q, name, `"work_items" (${cols}) INCLUDE ("workspace_id") WHERE ${LIVE}`);
    }
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const [name, cols] of ORDER_INDEXES) {
      await replaceIndexOnline(q, name, `"work_items" (${cols}) WHERE ${LIVE}`);
    }
  }
}
