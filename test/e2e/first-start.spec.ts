import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_MAIN, ensureBuilt, ROOT } from '../helpers/build';
import { Client } from 'pg';
import { createTestDatabase } from '../helpers/database';
import { freePort } from '../helpers/net';

/** What a new user sees: `npm start` on an empty database, at the default log level. */

type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;

interface Started {
  server: ChildProcess;
  port: number;
  output: () => string;
}

/** Starts the compiled service on `db` and waits for its "listening" line. */
async function start(db: TestDatabase, extraEnv: NodeJS.ProcessEnv = {}): Promise<Started> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: db.url,
    ...extraEnv,
  };
  for (const k of ['REDIS_URL', 'PUBLIC_BASE_URL', 'LOG_LEVEL', 'CORS_ORIGINS']) if (!(k in extraEnv)) delete env[k];
  const server = spawn('node', [DIST_MAIN], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  for (const stream of [server.stdout, server.stderr]) stream.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 60_000;
  while (!out.includes('"msg":"listening"')) {
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { server, port, output: () => out };
}

async function stop(s: Started): Promise<void> {
  if (s.server.exitCode !== null) return;
  const exited = new Promise((resolve) => s.server.once('exit', resolve));
  s.server.kill('SIGTERM');
  await exited;
}

describe('first start of the compiled service', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    ensureBuilt();
    db = await createTestDatabase();
  }, 180_000);
  afterAll(() => db?.drop());

  it("shows the key, its id and the Swagger address on a first screen free of Nest's route table", async () => {
    const s = await start(db);
    try {
      const lines = s.output().trimEnd().split('\n');
      expect(lines.filter((l) => /Mapped \{|RoutesResolver|InstanceLoader|NestFactory/.test(l))).toEqual([]);
      // A screen: the start lines, the bootstrap block and the listening lines.
      expect(lines.length).toBeLessThan(25);
      const key = /API key +(wt_api_\S+)/.exec(s.output())?.[1];
      const keyId = /key id +([0-9a-f-]{36})/.exec(s.output())?.[1];
      expect(key).toBeDefined();
      const pg = new Client({ connectionString: db.url });
      await pg.connect();
      const { rows } = await pg.query(`SELECT id, label FROM api_keys`).finally(() => pg.end());
      const [row] = rows;
      expect({ keyId, label: 'bootstrap' }).toEqual({ keyId: row.id, label: row.label });
      expect(s.output()).toContain(`api-key revoke --id ${keyId}`);
      // PUBLIC_BASE_URL unset follows PORT: the printed addresses and the document's server are this port's.
      expect(s.output()).toContain(`Swagger UI  http://localhost:${s.port}/api/v2/docs/`);
      const doc = (await (await fetch(`http://127.0.0.1:${s.port}/api/v2/schema/`)).json()) as { servers: unknown };
      expect(doc.servers).toEqual([{ url: `http://localhost:${s.port}` }]);
      const res = await fetch(`http://127.0.0.1:${s.port}/api/v2/users/me/`, { headers: { 'X-Api-Key': key! } });
      expect(res.status).toBe(200);
    } finally {
      await stop(s);
    }
  }, 90_000);

  it('LOG_LEVEL=debug still shows the route table', async () => {
    const s = await start(db, { LOG_LEVEL: 'debug' });
    try {
      expect(s.output()).toContain('"context":"RouterExplorer"');
      expect(s.output()).toContain('Mapped {/api/v2/users/me, GET} route');
    } finally {
      await stop(s);
    }
  }, 90_000);

  it('npm start builds only what changed: its build step finds the compiled output current and rewrites nothing', () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
    expect(scripts.prestart).toBe('tsc -b tsconfig.build.json');
    // --dry reports without writing, so a build of a parallel test file cannot interfere.
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const report = execFileSync('node', [tsc, '-b', 'tsconfig.build.json', '--dry', '--verbose'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(report).toMatch(/is up to date/);
  });
});
