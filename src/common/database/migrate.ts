import { Client } from 'pg';
import { DataSource } from 'typeorm';

/** Fixed advisory lock key: only one process migrates at a time, others wait and find nothing to do. */
const MIGRATION_LOCK = 724_113_901;

/**
 * Applies pending migrations under a PostgreSQL advisory lock held on a connection of its own
 * (outside the DataSource pool, which the migrations themselves use). Returns the names applied.
 */
export async function runMigrations(ds: DataSource, url: string): Promise<string[]> {
  const lock = new Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.end().catch(() => undefined);
  }
}

/** The tables whose statistics the work item list's plans read (docs/work-items-plans.md). */
export const PLANNED_TABLES = ['work_items', 'work_item_assignees', 'work_item_labels', 'module_work_items'];

/**
 * ANALYZE those of `tables` that hold rows but have never been analyzed (no `pg_stats` row: a restore or a bulk
 * import into fresh tables, a server running with autovacuum off), so that the planner chooses between the list's
 * bounded plans with statistics (issue 27; docs/operations.md, "What the service needs from autovacuum"). A
 * complement, not a cure: every list statement is bounded without them. Returns the tables analyzed. A table the
 * role may not analyze is left alone (PostgreSQL warns and skips it).
 */
export async function analyzeNeverAnalyzed(ds: DataSource, tables = PLANNED_TABLES): Promise<string[]> {
  const never: Array<{ t: string }> = await ds.query(
    `SELECT c.relname AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
      WHERE c.relname = ANY($1::text[]) AND c.relkind = 'r'
        AND NOT EXISTS (SELECT 1 FROM pg_stats s WHERE s.schemaname = n.nspname AND s.tablename = c.relname)`,
    [tables],
  );
  const analyzed: string[] = [];
  for (const { t } of never) {
    const [{ rows }] = await ds.query(`SELECT EXISTS (SELECT 1 FROM "${t}") AS rows`);
    if (!rows) continue;
    await ds.query(`ANALYZE "${t}"`);
    analyzed.push(t);
  }
  return analyzed;
}
