import { ChildProcess, spawn } from 'node:child_process';
import { Client } from 'pg';
import { IdempotencyPruner } from '../../src/idempotency/idempotency-pruner';
import { DIST_MAIN, ensureBuilt, ROOT } from '../helpers/build';
import { freePort } from '../helpers/net';
import { createTestApp, expectProblem, Tenant, TestApp, waitForLockWait } from '../helpers/test-app';

/** The compiled service as a second instance on the test database (as behind a load balancer). */
async function startInstance(dbUrl: string): Promise<{ url: string; proc: ChildProcess; output: () => string }> {
  ensureBuilt();
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: dbUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '100000',
    SEED_ON_EMPTY: 'false',
  };
  for (const k of ['REDIS_URL', 'PUBLIC_BASE_URL', 'METRICS_PORT']) delete env[k];
  const proc = spawn('node', [DIST_MAIN], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`instance did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, proc, output: () => out };
}

describe('Idempotency-Key on POST', () => {
  let t: TestApp;
  let ten: Tenant;
  let items: string;
  let n = 0;
  const key = () => `key-${Date.now()}-${n++}`;
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    const p = await t.project(ten.slug, ten.owner.key);
    items = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/work-items/`;
  });
  afterAll(() => t.close());
  const post = (k: string | undefined, body: object, path = items, apiKey = ten.owner.key) => {
    const req = t.http.post(path).set('X-Api-Key', apiKey);
    return (k === undefined ? req : req.set('Idempotency-Key', k)).send(body);
  };
  const count = async (name: string) =>
    (await t.ds.query(`SELECT count(*)::int AS n FROM work_items WHERE name = $1`, [name]))[0].n as number;
  const stored = async (k: string) =>
    (await t.ds.query(`SELECT count(*)::int AS n FROM idempotency_keys WHERE key = $1`, [k]))[0].n as number;

  it('a retried POST creates one record and answers the same bytes twice, the second marked Idempotent-Replayed', async () => {
    const k = key();
    const first = await post(k, { name: 'retried create', priority: 'high' });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same body with its keys in another order is the same request.
    const again = await post(k, { priority: 'high', name: 'retried create' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.text).toBe(first.text);
    expect(await count('retried create')).toBe(1);
    // Without a key nothing changes: every POST runs.
    await post(undefined, { name: 'no key' });
    await post(undefined, { name: 'no key' });
    expect(await count('no key')).toBe(2);
  });

  it('actions replay too: an archive retried answers its first response (200) and archives once', async () => {
    const item = (await post(undefined, { name: 'archive me' })).body;
    const k = key();
    const a = await post(k, {}, `${items}${item.id}/archive/`);
    const b = await post(k, {}, `${items}${item.id}/archive/`);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.text).toBe(a.text);
    // Without the key the second archive is a 404 (an archived item is not live).
    expect((await post(undefined, {}, `${items}${item.id}/archive/`)).status).toBe(404);
  });

  it('the key with another body, path or method is 422 idempotency_key_mismatch and writes nothing', async () => {
    const k = key();
    expect((await post(k, { name: 'first body' })).status).toBe(201);
    expectProblem(await post(k, { name: 'other body' }), 422, 'idempotency_key_mismatch');
    expectProblem(await post(k, { name: 'first body' }, `${items}?expand=state`), 422, 'idempotency_key_mismatch');
    const projects = `/api/v2/workspaces/${ten.slug}/projects/`;
    expectProblem(await post(k, { name: 'first body' }, projects), 422, 'idempotency_key_mismatch');
    expect(await count('other body')).toBe(0);
  });

  it('keys are per credential: another credential with the same key runs its own request', async () => {
    const other = await t.member(ten.slug, 'admin');
    const k = key();
    const a = await post(k, { name: 'per credential' });
    const b = await post(k, { name: 'per credential' }, items, other.key);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.body.id).not.toBe(a.body.id);
    expect(await count('per credential')).toBe(2);
  });

  it('a request that fails stores nothing: the same key then runs the corrected request', async () => {
    const k = key();
    expectProblem(await post(k, { name: '' }), 400, 'validation_error');
    expect(await stored(k)).toBe(0);
    const ok = await post(k, { name: 'corrected' });
    expect(ok.status).toBe(201);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a malformed key is 400 naming the header', async () => {
    for (const bad of ['x'.repeat(256), 'caf\u00e9']) {
      const res = await t.http
        .post(items)
        .set('X-Api-Key', ten.owner.key)
        .set('Idempotency-Key', Buffer.from(bad, 'latin1').toString('latin1'))
        .send({ name: 'bad key' });
      expect(expectProblem(res, 400, 'validation_error').errors[0].field).toBe('Idempotency-Key');
    }
    expect((await post('x'.repeat(255), { name: 'longest key' })).status).toBe(201);
    expect(await count('bad key')).toBe(0);
  });

  it('a repeat while the first still runs is 409 idempotency_key_in_use with Retry-After; once it finishes, a retry replays it', async () => {
    const k = key();
    const locker = new Client({ connectionString: t.dbUrl });
    await locker.connect();
    try {
      // The first request gets as far as storing its response, inside its transaction, and waits there.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE idempotency_keys IN EXCLUSIVE MODE');
      const first = post(k, { name: 'slow create' }).then((r) => r);
      await waitForLockWait(t.ds, 'INSERT INTO idempotency_keys%');
      const second = await post(k, { name: 'slow create' });
      expectProblem(second, 409, 'idempotency_key_in_use');
      expect(second.headers['retry-after']).toBe('1');
      // A different body is refused the same way while the first runs (the key is taken, whatever the body).
      expectProblem(await post(k, { name: 'another' }), 409, 'idempotency_key_in_use');
      await locker.query('COMMIT');
      const done = await first;
      expect(done.status).toBe(201);
      const replay = await post(k, { name: 'slow create' });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(done.text);
      expect(await count('slow create')).toBe(1);
    } finally {
      await locker.end();
    }
  });

  it('a stored response lasts 24 hours: an expired one is not replayed, is replaced, and the job prunes the rest', async () => {
    const k = key();
    expect((await post(k, { name: 'expiring' })).status).toBe(201);
    const ttl = await t.ds.query(
      `SELECT round(extract(epoch FROM expires_at - created_at))::int AS s FROM idempotency_keys WHERE key = $1`,
      [k],
    );
    expect(ttl[0].s).toBe(24 * 3600);
    await t.ds.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`, [k]);
    const again = await post(k, { name: 'expiring' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await count('expiring')).toBe(2);
    const old = key();
    await post(old, { name: 'to prune' });
    await t.ds.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 hour' WHERE key = $1`, [old]);
    expect(await t.app.get(IdempotencyPruner).prune()).toBeGreaterThanOrEqual(1);
    expect(await stored(old)).toBe(0);
    expect(await stored(k)).toBe(1);
  });

  describe('with a second instance on the same database', () => {
    let other: Awaited<ReturnType<typeof startInstance>>;
    beforeAll(async () => {
      other = await startInstance(t.dbUrl);
    }, 180_000);
    afterAll(() => {
      if (other?.proc.exitCode === null) other.proc.kill('SIGKILL');
    });
    const viaOther = (k: string, body: object) =>
      fetch(`${other.url}${items}`, {
        method: 'POST',
        headers: { 'X-Api-Key': ten.owner.key, 'Idempotency-Key': k, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({
        status: r.status,
        text: await r.text(),
        replayed: r.headers.get('idempotent-replayed'),
      }));

    it('the same POST arriving at once on two instances creates one record; every answer is that record or 409, and a retry returns the same body', async () => {
      for (let round = 0; round < 6; round++) {
        const k = key();
        const name = `two instances ${round}`;
        const [a, b] = await Promise.all([
          post(k, { name }).then((r) => ({
            status: r.status,
            text: r.text,
            replayed: r.headers['idempotent-replayed'],
          })),
          viaOther(k, { name }),
        ]);
        expect(await count(name)).toBe(1);
        const created = [a, b].filter((r) => r.status === 201);
        expect(created.length).toBeGreaterThanOrEqual(1);
        for (const r of [a, b]) expect([201, 409]).toContain(r.status);
        expect(created.filter((r) => !r.replayed)).toHaveLength(1);
        const original = created.find((r) => !r.replayed)!.text;
        for (const r of created) expect(r.text).toBe(original);
        // Retried on either instance, the answer is the first one's, byte for byte.
        expect((await viaOther(k, { name })).text).toBe(original);
        expect((await post(k, { name })).text).toBe(original);
      }
    });

    it('a crash between the change and the response leaves neither the change nor a stored replay; the retry runs once', async () => {
      const k = key();
      const name = 'crashed create';
      const locker = new Client({ connectionString: t.dbUrl });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE idempotency_keys IN EXCLUSIVE MODE');
        const lost = viaOther(k, { name }).catch(() => 'connection lost');
        // The work item is inserted (uncommitted) and the response is about to be stored: the process dies here.
        await waitForLockWait(t.ds, 'INSERT INTO idempotency_keys%');
        other.proc.kill('SIGKILL');
        await new Promise((r) => other.proc.once('exit', r));
        expect(await lost).toBe('connection lost');
        await locker.query('COMMIT');
      } finally {
        await locker.end();
      }
      // Its transaction never committed: PostgreSQL rolls it back when the connection goes.
      for (let i = 0; i < 100; i++) {
        const [{ n: open }] = await t.ds.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'INSERT INTO idempotency_keys%' AND state <> 'idle'`,
        );
        if (open === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await count(name)).toBe(0);
      expect(await stored(k)).toBe(0);
      const retry = await post(k, { name });
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(await count(name)).toBe(1);
      expect((await post(k, { name })).headers['idempotent-replayed']).toBe('true');
    });
  });
});
