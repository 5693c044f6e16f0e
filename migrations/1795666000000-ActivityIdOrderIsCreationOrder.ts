import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexOnline, dropIndexOnline } from './online-index';

/**
 * Issue 18 (cost of the history on the write paths): one index fewer per history entry. Since
 * ActivityTimeOrderedIds every entry's id is wt_uuid_v7(created_at), so `id` order is `(created_at, id)` order
 * and `order_by=id` is served by ix_work_item_activities_list (work_item_id, created_at, id), as the default
 * ordering is: ix_work_item_activities_id (work_item_id, id), which only `order_by=id` read, goes. Each entry is
 * then one heap row and two B-tree insertions (the primary key, appending at its right edge, and the list index)
 * instead of three; a rolled-back EXPLAIN ANALYZE of the history triggers on a 1,000,000-entry table measured the
 * third index at about a fifth of their time (docs/work-item-links-relations-history.md, "Cost on the write paths").
 *
 * Entries written before ActivityTimeOrderedIds keep their (random, version 4) ids: an id is the entry's address
 * (`GET .../activities/{pk}/`, v1's activity ids) and a client may have stored it. For them `order_by=id` is
 * therefore creation order rather than the order of their ids, which nobody could rely on (random UUIDs); for every
 * entry since, the two are the same order.
 */
export class ActivityIdOrderIsCreationOrder1795666000000 implements MigrationInterface {
  name = 'ActivityIdOrderIsCreationOrder1795666000000';
  // Online (migrations/online-index.ts): the history table is among the largest.
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    await dropIndexOnline(q, 'ix_work_item_activities_id');
  }

  public async down(q: QueryRunner): Promise<void> {
    await createIndexOnline(q, 'ix_work_item_activities_id', `"work_item_activities" ("work_item_id", "id")`);
  }
}
