import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DIST_MAIN, ensureBuilt, ROOT } from '../helpers/build';
import { createTestDatabase } from '../helpers/database';
import { freePort } from '../helpers/net';

/** Operations files and process behaviour: settings documented, container files sane, graceful shutdown. */

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('operations files', () => {
  it('.env.example names every setting the service reads', () => {
    const read = new Set<string>();
    for (const f of sourceFiles(join(ROOT, 'src'))) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(
        /process\.env\.([A-Z0-9_]+)|process\.env\[['"]([A-Z0-9_]+)['"]\]|\b(?:int|bool)\(['"]([A-Z0-9_]+)['"]/g,
      )) {
        read.add(m[1] ?? m[2] ?? m[3]);
      }
    }
    expect(read.size).toBeGreaterThanOrEqual(16);
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    const listed = new Set([...example.matchAll(/^#?\s*([A-Z0-9_]+)=/gm)].map((m) => m[1]));
    expect([...read].filter((name) => !listed.has(name)).sort()).toEqual([]);
  });

  it('the Dockerfile builds in stages on node:24-slim (LTS, the runtime the memory settings were measured on), runs as a non-root user on port 3000 with a /healthz check and the start:prod command', () => {
    const df = readFileSync(join(ROOT, 'docker/Dockerfile'), 'utf8');
    const froms = [...df.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    expect(froms.every((f) => f === 'node:24-slim')).toBe(true);
    expect(df).toMatch(/^VOLUME \["\/app\/\.data"\]$/m);
    expect(df).toMatch(/^RUN npm (ci|install)\b/m);
    expect(df).toMatch(/npm run build/);
    expect(df).toMatch(/^USER (?!root)\S+/m);
    expect(df).toMatch(/^EXPOSE 3000$/m);
    expect(df).toMatch(/PORT=3000/);
    expect(df).toMatch(/^HEALTHCHECK[\s\S]*\/healthz/m);
    // The image starts the service exactly as `npm run start:prod` does (node flags and environment included).
    const words = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts['start:prod'].split(/\s+/);
    expect(words).toEqual([
      'MALLOC_ARENA_MAX=2',
      'node',
      '--max-old-space-size=192',
      '--max-semi-space-size=16',
      '--no-allocation-site-pretenuring',
      'dist/src/main.js',
    ]);
    const assignments = words.filter((w: string) => /^[A-Z_]+=/.test(w));
    const startProd = words.filter((w: string) => !/^[A-Z_]+=/.test(w));
    // Each of the command's environment assignments is set by an ENV instruction (its line or a continuation).
    for (const a of assignments) expect(df).toMatch(new RegExp(`^(ENV)?\\s+${a}(\\s|$)`, 'm'));
    expect(df).toMatch(
      new RegExp(`^CMD ${JSON.stringify(startProd).replace(/[[\]]/g, '\\$&').replace(/,/g, ', ')}$`, 'm'),
    );
  });

  it('a bad setting stops the start at once with a message naming the variable (before any database work)', async () => {
    ensureBuilt();
    const bad: Array<[string, string]> = [
      ['PORT', '99999'],
      ['RATE_LIMIT_MAX', '0'],
      ['RATE_LIMIT_WINDOW_SECONDS', '0'],
      ['DB_POOL_SIZE', '0'],
      ['BODY_LIMIT_BYTES', '0'],
      ['LOG_LEVEL', 'bogus'],
      ['TRUST_PROXY', 'maybe'],
      ['SEED_ON_EMPTY', 'nope'],
      ['PUBLIC_BASE_URL', 'not-a-url'],
      ['EMBEDDED_PG_PORT', '70000'],
      ['AUDIT_FAILURE_WINDOW_SECONDS', 'x'],
      ['AUTH_CACHE_TTL_SECONDS', '-1'],
      ['DATABASE_URL', 'notaurl'],
      ['REDIS_URL', 'http://127.0.0.1:6390'],
      ['PORT', '0'],
      ['METRICS_ENABLED', 'maybe'],
      ['METRICS_TOKEN', 'too-short'],
      ['METRICS_TOKEN', 'has a space in it, which headers mangle'],
      ['METRICS_PORT', '70000'],
      ['METRICS_HOST', 'not a host'],
      ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
      ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'ftp://collector'],
      ['OTEL_EXPORTER_OTLP_PROTOCOL', 'udp'],
      ['OTEL_TRACES_SAMPLER', 'sometimes'],
      ['OTEL_TRACES_SAMPLER_ARG', '1.5'],
      ['OTEL_EXPORTER_OTLP_HEADERS', 'authorization'],
      ['CORS_ORIGINS', 'app.example.com'],
    ];
    const runs = await Promise.all(
      bad.map(
        ([name, value]) =>
          new Promise<{ code: number | null; err: string }>((resolve) => {
            const env: NodeJS.ProcessEnv = {
              ...process.env,
              DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
              [name]: value,
            };
            const p = spawn('node', [DIST_MAIN], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
            let err = '';
            p.stderr.on('data', (d) => (err += d));
            // 'close', not 'exit': stderr may still hold the message when the process has exited.
            p.once('close', (code) => resolve({ code, err }));
          }),
      ),
    );
    runs.forEach((r, i) => {
      expect([bad[i][0], r.code]).toEqual([bad[i][0], 1]);
      expect(r.err).toContain(`${bad[i][0]} must be`);
    });
    // Some thirty node processes at once: minutes on a loaded 2-core machine.
  }, 240_000);

  it('compose runs the API instances behind HAProxy and PgBouncer with postgres:16 and redis:7, as deploy/ configures them', () => {
    const c = readFileSync(join(ROOT, 'docker/compose.yaml'), 'utf8');
    expect(c).toMatch(/image: postgres:16\b/);
    expect(c).toMatch(/image: redis:7\b/);
    expect(c).toMatch(/dockerfile: docker\/Dockerfile/);
    // The instances reach PostgreSQL through PgBouncer (deploy/pgbouncer.ini), whose database entry points at it.
    const url = /DATABASE_URL: postgres:\/\/(\w+):(\w+)@pgbouncer:6432\/(\w+)/;
    expect(c).toMatch(url);
    const [, user, password, db] = c.match(url)!;
    expect(c).toContain(`POSTGRES_USER: ${user}`);
    expect(c).toContain(`POSTGRES_PASSWORD: ${password}`);
    expect(c).toContain(`POSTGRES_DB: ${db}`);
    expect(c).toContain(`DB_USER: ${user}`);
    expect(c).toContain(`DB_PASSWORD: ${password}`);
    const ini = readFileSync(join(ROOT, 'deploy/pgbouncer.ini'), 'utf8');
    expect(ini).toMatch(new RegExp(`^${db} = host=postgres port=5432 dbname=${db}$`, 'm'));
    expect(ini).toMatch(/^pool_mode = session$/m);
    // HAProxy (deploy/haproxy.cfg) routes to every API service of the file, checking /readyz.
    const cfg = readFileSync(join(ROOT, 'deploy/haproxy.cfg'), 'utf8');
    expect(cfg).toMatch(/option httpchk GET \/readyz/);
    for (const [, n] of cfg.matchAll(/server api(\d) "\$\{API\d_ADDR\}" check/g)) {
      expect(c).toContain(`API${n}_ADDR: 'api${n}:3000'`);
      expect(c).toMatch(new RegExp(`^  api${n}:$`, 'm'));
    }
    expect(c).toMatch(/REDIS_URL: redis:\/\/redis:6379/);
    expect(c).toMatch(/condition: service_healthy/);
  });
});

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.connect(port, '127.0.0.1');
  });
}

describe('graceful shutdown of the compiled service on embedded PostgreSQL', () => {
  let server: ChildProcess;
  let output = '';
  let dataDir: string;
  let port: number;
  let pgPort: number;
  beforeAll(async () => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'wt-shutdown-'));
    chmodSync(dataDir, 0o755);
    [port, pgPort] = [await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
      LOG_LEVEL: 'warn',
    };
    for (const k of ['DATABASE_URL', 'REDIS_URL', 'PUBLIC_BASE_URL']) delete env[k];
    server = spawn('node', [DIST_MAIN], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (d) => (output += d));
    server.stderr!.on('data', (d) => (output += d));
    const deadline = Date.now() + 90_000;
    while (
      !(await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`server did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }, 120_000);
  afterAll(() => {
    if (server && server.exitCode === null) server.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the bootstrap key on first start; SIGTERM finishes in-flight requests, refuses new ones, then stops PostgreSQL', async () => {
    const key = output.match(/wt_api_[A-Za-z0-9_-]+/)?.[0];
    expect(key).toBeDefined();
    expect(output).toContain(`http://localhost:${port}/api/v2/docs/`);
    const url = `http://127.0.0.1:${port}/api/v2/workspaces/default/projects/`;
    expect((await fetch(url, { headers: { 'X-Api-Key': key! } })).status).toBe(200);
    const json = { 'X-Api-Key': key!, 'content-type': 'application/json' };
    const project = (await (
      await fetch(url, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ name: 'Shutdown', identifier: 'SHUT' }),
      })
    ).json()) as { id: string };
    const itemUrl = `${url}${project.id}/work-items/`;
    const item = (await (
      await fetch(itemUrl, { method: 'POST', headers: json, body: JSON.stringify({ name: 'Before' }) })
    ).json()) as { id: string };
    expect(item.id).toBeDefined();

    // The superuser password is this data directory's own (random, 0600), not a well-known one.
    const passwordFile = join(dataDir, 'pg-password');
    expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
    const password = readFileSync(passwordFile, 'utf8').trim();
    expect(password).toMatch(/^[0-9a-f]{48}$/);
    const guess = new Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${pgPort}/worktracking` });
    await expect(guess.connect()).rejects.toThrow(/password/);
    await guess.end().catch(() => undefined);
    const pgUrl = `postgres://postgres:${password}@127.0.0.1:${pgPort}/worktracking`;

    // Another DATA_DIR on the same EMBEDDED_PG_PORT is refused with a message naming the port, never served this data.
    const otherDir = mkdtempSync(join(tmpdir(), 'wt-other-'));
    try {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PORT: String(await freePort()),
        DATA_DIR: otherDir,
        EMBEDDED_PG_PORT: String(pgPort),
      };
      delete env.DATABASE_URL;
      const second = spawn('node', [DIST_MAIN], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      second.stdout.on('data', (d) => (out += d));
      second.stderr.on('data', (d) => (out += d));
      const code = await new Promise<number | null>((resolve) => second.once('exit', resolve));
      expect(code).toBe(1);
      expect(out).toContain(`EMBEDDED_PG_PORT ${pgPort}`);
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }

    // Hold a lock so the next request stays in flight while the signal arrives.
    const pg = new Client({ connectionString: pgUrl });
    await pg.connect();
    await pg.query('BEGIN');
    await pg.query('LOCK TABLE projects IN ACCESS EXCLUSIVE MODE');
    const started = Date.now();
    const inFlight = fetch(url, { headers: { 'X-Api-Key': key! } }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { pagination: unknown },
      at: Date.now() - started,
    }));
    // A write whose client hangs up while it waits, and which a second lock keeps running after the
    // server has closed: its handler still needs pool connections, so the pool must outlive it.
    const pg2 = new Client({ connectionString: pgUrl });
    await pg2.connect();
    await pg2.query('BEGIN');
    await pg2.query('LOCK TABLE work_items IN ACCESS EXCLUSIVE MODE');
    const abandoned = httpRequest(`${itemUrl}${item.id}/`, { method: 'PATCH', agent: false, headers: json });
    const hungUp = new Promise((resolve) =>
      abandoned.on('error', (e: NodeJS.ErrnoException) => resolve(e.code)).on('response', (r) => resolve(r.statusCode)),
    );
    abandoned.end(JSON.stringify({ name: 'After' }));
    await new Promise((r) => setTimeout(r, 200));
    abandoned.destroy();
    expect(await hungUp).toBe('ECONNRESET');
    await new Promise((r) => setTimeout(r, 400));
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 400));
    // No new connections once shutting down.
    expect(await canConnect(port)).toBe(false);
    await new Promise((r) => setTimeout(r, 600));
    await pg.query('COMMIT').catch(() => undefined);
    await pg.end().catch(() => undefined);

    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ style: 'offset' });
    expect(res.at).toBeGreaterThanOrEqual(1000);
    await new Promise((r) => setTimeout(r, 300));
    await pg2.query('COMMIT').catch(() => undefined);
    await pg2.end().catch(() => undefined);
    expect(await exited).toBe(0);
    // The abandoned PATCH ran to its end on a live pool (no "Cannot use a pool after calling end").
    expect(output).not.toContain('unhandled exception');
    expect(output).toContain('"msg":"shutting down"');
    // The embedded PostgreSQL is stopped and its data kept (persistent across restarts).
    expect(await canConnect(pgPort)).toBe(false);
    expect(statSync(join(dataDir, 'pg', 'PG_VERSION')).isFile()).toBe(true);
  }, 60_000);
});

describe('draining on SIGTERM (SHUTDOWN_DRAIN_SECONDS)', () => {
  it('answers /readyz 503 at once while still serving requests, then stops listening and exits 0', async () => {
    ensureBuilt();
    const db = await createTestDatabase();
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      SEED_ON_EMPTY: 'false',
      SHUTDOWN_DRAIN_SECONDS: '2',
    };
    delete env.REDIS_URL;
    const server = spawn('node', [DIST_MAIN], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    server.stdout.on('data', (d) => (output += d));
    server.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    const get = (path: string) =>
      fetch(`http://127.0.0.1:${port}${path}`).then(
        (r) => r.status,
        () => 0,
      );
    try {
      const deadline = Date.now() + 90_000;
      while ((await get('/readyz')) !== 200) {
        if (Date.now() > deadline || server.exitCode !== null) throw new Error(`server did not start:\n${output}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      server.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      // Draining: out of rotation, yet a request is answered as usual.
      expect(await get('/readyz')).toBe(503);
      expect(await get('/healthz')).toBe(200);
      expect(await get('/api/v2/users/me/')).toBe(401);
      await new Promise((r) => setTimeout(r, 2500));
      expect(await canConnect(port)).toBe(false);
      expect(await exited).toBe(0);
    } finally {
      if (server.exitCode === null) server.kill('SIGKILL');
      await db.drop();
    }
  }, 150_000);
});

describe('request logs of the compiled service', () => {
  it('never hold a credential sent in the query string', async () => {
    ensureBuilt();
    const db = await createTestDatabase();
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      LOG_LEVEL: 'info',
      SEED_ON_EMPTY: 'false',
    };
    delete env.REDIS_URL;
    const server = spawn('node', [DIST_MAIN], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    server.stdout.on('data', (d) => (output += d));
    server.stderr.on('data', (d) => (output += d));
    try {
      const deadline = Date.now() + 60_000;
      while (
        !(await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        if (Date.now() > deadline || server.exitCode !== null) throw new Error(`server did not start:\n${output}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const res = await fetch(
        `http://127.0.0.1:${port}/api/v2/users/me/?api_key=wt_api_SECRET123&access_token=tok456&client_secret=cs789&per_page=5`,
      );
      expect(res.status).toBe(401);
      await new Promise((r) => setTimeout(r, 300));
      expect(output).toContain('api_key=[redacted]&access_token=[redacted]&client_secret=[redacted]&per_page=5');
      expect(output).not.toMatch(/SECRET123|tok456|cs789/);
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
      await db.drop();
    }
  }, 90_000);
});
