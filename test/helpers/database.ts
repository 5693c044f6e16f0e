import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/common/database/data-source';
import { runMigrations } from '../../src/common/database/migrate';

const RUN = process.env.TEST_RUN_ID ?? 'local';
const TEMPLATE = `wt_tpl_${RUN}`;
/** Lock key per run, so parallel runs on one server migrate their templates independently. */
const TEMPLATE_LOCK = 724_113_902;

export function adminUrl(): string {
  const url = process.env.TEST_ADMIN_URL ?? process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_ADMIN_URL missing: run tests through jest (global setup)');
  return url;
}

export function urlFor(db: string): string {
  const u = new URL(adminUrl());
  u.pathname = `/${db}`;
  return u.toString();
}

/** Migrates the template database once per run (the first test file to get here does it). */
async function ensureTemplate(admin: Client): Promise<void> {
  await admin.query('SELECT pg_advisory_lock($1, hashtext($2))', [TEMPLATE_LOCK, RUN]);
  try {
    const r = await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate`, [TEMPLATE]);
    if (r.rowCount) return;
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE}`);
    await admin.query(`CREATE DATABASE ${TEMPLATE}`);
    const ds = new DataSource(dataSourceOptions(urlFor(TEMPLATE), 2));
    await ds.initialize();
    try {
      await runMigrations(ds, urlFor(TEMPLATE));
    } finally {
      await ds.destroy();
    }
    await admin.query(`ALTER DATABASE ${TEMPLATE} IS_TEMPLATE true`);
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1, hashtext($2))', [TEMPLATE_LOCK, RUN]);
  }
}

/** A fresh database for one test file, cloned from the migrated template. */
export async function createTestDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const admin = new Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await ensureTemplate(admin);
    const name = `wt_test_${RUN}_${randomBytes(5).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
    return {
      name,
      url: urlFor(name),
      drop: async () => {
        const c = new Client({ connectionString: adminUrl() });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
        await c.end();
      },
    };
  } finally {
    await admin.end();
  }
}
