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
