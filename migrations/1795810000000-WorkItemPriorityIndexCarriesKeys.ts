import { MigrationInterface, QueryRunner } from 'typeorm';
import { replaceIndexOnline } from './online-index';

const LIVE = `"deleted_at" IS NULL AND "archived_at" IS NULL`;
/** The priority's rank, urgent first (PRIORITY_RANK of the list): the index's second key column. */
const RANK = `(CASE "priority" WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END)`;
const KEY = `"work_items" ("project_id", ${RANK}, "id")`;

/**
 * Priority-ordered offset pages walk `ix_work_items_priority` without visiting the table ("What to change next" 5,
 * priority-order offsets; docs/work-items-plans.md, "Priority-ordered pages off the rank index alone"): the index now
 * also carries `workspace_id`, which the walk equates (statement routing), and `priority`, the column its rank key is
 * computed from; PostgreSQL answers a scan from the index alone only when it holds every column the query names, the
 * expression's inputs included. Before, every entry an offset skipped was a heap visit (offset 5000 of two priorities
 * at a million items: 10,800 buffers after ANALYZE; never analyzed, cancelled at 3 s).
 *
 * It is also partial on `priority IS NOT NULL` (always true: the column is NOT NULL), which only the statements
 * ordered or filtered by priority name (PRIORITY_INDEXED): never analyzed and never vacuumed, PostgreSQL guesses one
 * row for every index partial on live items and, costs being equal, takes the index created last, which this one now
 * is; without the condition it served other filters' counts, walking the project's whole range of it.
 *
 * Same key, same name: replaced, not added, so writes maintain as many indexes as before (an UPDATE of an item sets
 * `updated_at`, which is indexed, so none is HOT and each updates every index already). Built CONCURRENTLY
 * (migrations/online-index.ts): the new index is built beside the one it replaces (3 s at a million items).
 */
export class WorkItemPriorityIndexCarriesKeys1795810000000 implements MigrationInterface {
  name = 'WorkItemPriorityIndexCarriesKeys1795810000000';
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    await replaceIndexOnline(
      q,
      'ix_work_items_priority',
      `${KEY} INCLUDE ("workspace_id", "priority") WHERE ${LIVE} AND "priority" IS NOT NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await replaceIndexOnline(q, 'ix_work_items_priority', `${KEY} WHERE ${LIVE}`);
  }
}
