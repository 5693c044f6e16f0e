import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 20: cycles can be archived like modules (whose `archived_at` existed from the start). The archived lists
 * read a project's archived rows by `ix_<table>_archived`; the live lists keep their indexes (archived rows are few).
 */
export class CycleArchive1795650000000 implements MigrationInterface {
  name = 'CycleArchive1795650000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "cycles" ADD "archived_at" TIMESTAMP WITH TIME ZONE`);
    for (const table of ['cycles', 'modules']) {
      await q.query(
        `CREATE INDEX "ix_${table}_archived" ON "${table}" ("project_id", "created_at", "id") WHERE "archived_at" IS NOT NULL AND "deleted_at" IS NULL`,
      );
    }
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const table of ['cycles', 'modules']) await q.query(`DROP INDEX "ix_${table}_archived"`);
    await q.query(`ALTER TABLE "cycles" DROP COLUMN "archived_at"`);
  }
}
