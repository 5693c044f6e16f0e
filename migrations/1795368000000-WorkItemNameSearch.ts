import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `?search=` on work items is a case-insensitive substring of the name (`ILIKE '%term%'`), which no btree can
 * answer: at a million items every search read every live row (0.9 s). A trigram GIN index (pg_trgm, shipped
 * with PostgreSQL and a trusted extension since 13) answers substrings of three characters or more, page and
 * count. Shorter terms still scan.
 */
export class WorkItemNameSearch1795368000000 implements MigrationInterface {
  name = 'WorkItemNameSearch1795368000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(
      `CREATE INDEX "ix_work_items_name_trgm" ON "work_items" USING gin ("name" gin_trgm_ops) WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "public"."ix_work_items_name_trgm"`);
  }
}
