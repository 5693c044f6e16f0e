import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexOnline, dropIndexOnline, replacePrimaryKeyOnline } from './online-index';

/**
 * Issue 18 (cost of the history on the write paths): one B-tree per history entry instead of two. The primary key
 * becomes `(workspace_id, work_item_id, created_at, id)`, which serves what both indexes served: a work item's
 * history in `(created_at, id)` order, both directions, both pagination modes and `order_by=id` (ids are of
 * `created_at`, ActivityIdOrderIsCreationOrder), and the one-entry read, whose path names the work item. So
 * `ix_work_item_activities_list (work_item_id, created_at, id)` goes, and each entry is one heap row and one index
 * insertion. `workspace_id` stays the key's first column (docs/scaling.md: the distribution column). Unique as the
 * old key was: `(workspace_id, id)` was, and the new key contains it.
 *
 * Online (migrations/online-index.ts): the new key's index is built CONCURRENTLY, then swapped in under the old
 * constraint's name (a catalog change under a short ACCESS EXCLUSIVE lock); every step is safe to run again.
 */
export const ACTIVITY_KEY = ['workspace_id', 'work_item_id', 'created_at', 'id'];

export class ActivityEntryOneIndex1795700000000 implements MigrationInterface {
  name = 'ActivityEntryOneIndex1795700000000';
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    await replacePrimaryKeyOnline(q, 'work_item_activities', 'PK_work_item_activities', ACTIVITY_KEY);
    await dropIndexOnline(q, 'ix_work_item_activities_list');
  }

  public async down(q: QueryRunner): Promise<void> {
    await createIndexOnline(
      q,
      'ix_work_item_activities_list',
      `"work_item_activities" ("work_item_id", "created_at", "id")`,
    );
    await replacePrimaryKeyOnline(q, 'work_item_activities', 'PK_work_item_activities', ['workspace_id', 'id']);
  }
}
