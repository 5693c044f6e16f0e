import { MigrationInterface, QueryRunner } from 'typeorm';
import { replaceIndexOnline } from './online-index';

const LIVE = `"deleted_at" IS NULL AND "archived_at" IS NULL`;
const UNDELETED = `"deleted_at" IS NULL`;

/** The date filters' indexes: name and column. */
const DATE_INDEXES: Array<[string, string]> = [
  ['ix_work_items_target', 'target_date'],
  ['ix_work_items_start', 'start_date'],
];

/**
 * Issue 27 part 2 (plans that do not depend on statistics): `target_date` / `start_date` ranges (`__gte`, `__lte`)
 * are counted off their own index whatever the statistics say. Never analyzed, every index partial on live items is
 * guessed to hold about one matching entry (two `IS NULL` at 0.5 % each), so the planner took the index it could
 * descend most cheaply, another one led by the project, and counted the project's million entries (0.3-0.6 s). Now
 * the date indexes hold the undeleted items that have the date (a range implies it, so no other statement can use
 * them) and carry `workspace_id` and `archived_at` (INCLUDE: the count can be index-only); the list counts the range
 * in a fenced subquery that does not ask `archived_at IS NULL` (checked outside), which no index partial on live
 * items matches, so the date's index is the one index with the range as a condition. Items without the date (two
 * thirds of the benchmark's) are no longer in these indexes; with INCLUDE columns btree deduplication is off, so at
 * a million items each index is 29 MB instead of 9.5 MB.
 *
 * Built CONCURRENTLY (migrations/online-index.ts): each new index is built beside the one it replaces.
 */
export class WorkItemDatedIndexes1795720000000 implements MigrationInterface {
  name = 'WorkItemDatedIndexes1795720000000';
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    for (const [name, col] of DATE_INDEXES) {
      await replaceIndexOnline(
        q,
        name,
        `"work_items" ("project_id", "${col}") INCLUDE ("workspace_id", "archived_at") WHERE ${UNDELETED} AND "${col}" IS NOT NULL`,
      );
    }
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const [name, col] of DATE_INDEXES) {
      await replaceIndexOnline(q, name, `"work_items" ("project_id", "${col}") WHERE ${LIVE}`);
    }
  }
}
