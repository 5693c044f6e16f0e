import { MigrationInterface, QueryRunner } from 'typeorm';

/** Each table upsert reconciles on, with the column scoping its pairs (projects: the workspace alone). */
const TABLES: Array<[string, string | null]> = [
  ['projects', null],
  ['states', 'project_id'],
  ['labels', 'project_id'],
  ['cycles', 'project_id'],
  ['modules', 'project_id'],
  ['estimates', 'project_id'],
  ['estimate_points', 'estimate_id'],
  ['work_item_comments', 'work_item_id'],
];

/**
 * Issue 19. upsert/ finds the live record of its scope (the workspace for projects, the project, the estimate or the
 * work item) holding an `(external_source, external_id)` pair (findExternalHolder); the lists' external_id filters
 * read the same columns. One partial index per table over the rows that have a pair: `ix_<table>_external`.
 */
export class ExternalPairIndexes1795630000000 implements MigrationInterface {
  name = 'ExternalPairIndexes1795630000000';

  public async up(q: QueryRunner): Promise<void> {
    for (const [table, scope] of TABLES) {
      const cols = ['workspace_id', ...(scope ? [scope] : []), 'external_source', 'external_id'];
      await q.query(
        `CREATE INDEX "ix_${table}_external" ON "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) WHERE "external_id" IS NOT NULL AND "deleted_at" IS NULL`,
      );
    }
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const [table] of TABLES) await q.query(`DROP INDEX "ix_${table}_external"`);
  }
}
