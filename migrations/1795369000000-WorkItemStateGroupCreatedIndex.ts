import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `state_group=` (a board column) with the default newest-first order: the filter is now the item's
 * trigger-kept `state_group_rank` (exact: migration WorkItemStateGroupRank), and this index makes the page one
 * range of it. Before, the page walked every newer item of other groups (14,600 index entries, 12 ms, when the
 * newest items were all in the backlog). `ix_work_items_state_group` (rank, id) stays for `order_by=state_group`.
 */
export class WorkItemStateGroupCreatedIndex1795369000000 implements MigrationInterface {
  name = 'WorkItemStateGroupCreatedIndex1795369000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX "ix_work_items_state_group_created" ON "work_items" ("project_id", "state_group_rank", "created_at", "id") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "public"."ix_work_items_state_group_created"`);
  }
}
