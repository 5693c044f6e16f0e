import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 27 (cost flat in N on the write paths): time-ordered work item ids. A random (version 4) id put each new
 * item's entries in `PK_work_items (workspace_id, id)`, `ix_work_items_id (project_id, id)`, the priority index
 * (`project_id, rank, id`) and its link rows' keys `(workspace_id, work_item_id, ...)` on random leaf pages: at a
 * million items those pages are mostly outside shared_buffers, so a create read them in, dirtied them and, the first
 * time after each checkpoint, logged a full-page image of each (docs/work-items-plans.md, "Time-ordered work item
 * ids": 4.8 full-page images and 32 kB of WAL per insert right after a checkpoint, against 0.15 and 4.1 kB).
 *
 * `wt_uuid_v7_strong(ts)` lays an id out as RFC 9562 version 7, as `wt_uuid_v7` does for history entries (48 bits
 * of Unix milliseconds, the microsecond within the millisecond in 12 bits), but takes its 62 random bits from
 * gen_random_uuid() (the cryptographic generator) rather than random(): a work item id is public (URLs, clients),
 * so its random part stays unpredictable. The default is of `now()`, as `created_at`'s is, so an item's id carries
 * its creation time. Items created before keep their ids; nothing reads an id's bits, only its order in indexes.
 */
export const UUID_V7_STRONG = `CREATE OR REPLACE FUNCTION wt_uuid_v7_strong(ts timestamptz) RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(
    int8send(((round(date_part('epoch', ts) * 1000000)::bigint / 1000) << 16) | 28672
             | (round(date_part('epoch', ts) * 1000000)::bigint % 1000 * 4096 / 1000))
    || substring(uuid_send(gen_random_uuid()) FROM 9),
    'hex')::uuid
$$`;

export class WorkItemTimeOrderedIds1795780000000 implements MigrationInterface {
  name = 'WorkItemTimeOrderedIds1795780000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(UUID_V7_STRONG);
    await q.query(`ALTER TABLE "work_items" ALTER COLUMN "id" SET DEFAULT wt_uuid_v7_strong(now())`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "work_items" ALTER COLUMN "id" SET DEFAULT gen_random_uuid()`);
    await q.query(`DROP FUNCTION wt_uuid_v7_strong(timestamptz)`);
  }
}
