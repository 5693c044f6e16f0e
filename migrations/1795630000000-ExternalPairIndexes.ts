import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 19. upsert/ finds the live record of its scope (the workspace for projects, the project, the estimate or the
 * work item) holding an `(external_source, external_id)` pair (findExternalHolder); the lists' external_id filters
 * read the same columns. One partial index per table over the rows that have a pair.
 */
export class ExternalPairIndexes1795630000000 implements MigrationInterface {
  name = 'ExternalPairIndexes1795630000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX "ix_projects_external" ON "projects" ("workspace_id", "external_source", "external_id") WHERE "external_id" IS NOT NULL AND "deleted_at" IS NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_states_external" ON "states" ("workspace_id", "project_id", "external_source", "external_id") WHERE "external_id" IS NOT NULL AND "deleted_at" IS NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_labels_external" ON "labels" ("workspace_id", "project_id", "external_source", "external_id") WHERE "external_id" IS NOT NULL AND "deleted_at" IS NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_cycles_external" ON "cycles" ("workspace_id", "project_id", "external_source", "external_id") WHERE "external_id" IS NOT NULL AND "deleted_at" IS NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_modules_external" ON "modules" ("workspace_id", "project_id", "external_source", "external_id") WHERE "external_id" IS NOT NULL AND "deleted_at" IS NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_estimates_external" ON "estimates" ("workspace_id", "project_id", "external_source", "external_id") WHERE "external_id" IS NOT NULL AND "deleted_at" IS NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_estimate_points_external" ON "estimate_points" ("workspace_id", "estimate_id", "external_source", "external_id") WHERE "external_id" IS NOT NULL AND "deleted_at" IS NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_work_item_comments_external" ON "work_item_comments" ("workspace_id", "work_item_id", "external_source", "external_id") WHERE "external_id" IS NOT NULL AND "deleted_at" IS NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_projects_external"`);
    await q.query(`DROP INDEX "ix_states_external"`);
    await q.query(`DROP INDEX "ix_labels_external"`);
    await q.query(`DROP INDEX "ix_cycles_external"`);
    await q.query(`DROP INDEX "ix_modules_external"`);
    await q.query(`DROP INDEX "ix_estimates_external"`);
    await q.query(`DROP INDEX "ix_estimate_points_external"`);
    await q.query(`DROP INDEX "ix_work_item_comments_external"`);
  }
}
