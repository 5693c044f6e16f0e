import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '../../src/common/config/config';
import { createApp } from '../../src/app.factory';
import { AuditEntry as Entry, auditEntries } from '../helpers/audit';
import { BASE_URL, createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

type Inject = (opts: {
  method: string;
  url: string;
  remoteAddress?: string;
  headers?: Record<string, string>;
}) => Promise<{ statusCode: number; json: () => any }>;
const injector = (app: NestFastifyApplication): Inject => {
  const f = app.getHttpAdapter().getInstance() as unknown as { inject: Inject };
  return (o) => f.inject(o);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const occurrences = (rows: Entry[]) => rows.reduce((n, r) => n + r.metadata.aggregation.occurrences, 0);

/** Reads entries with a fresh API key of the owner (each key has its own rate-limit budget). */
async function read(t: TestApp, ten: Tenant, query: Record<string, string>): Promise<Entry[]> {
  const { key } = await t.admin.createApiKey(ten.owner.email, 'reader');
  return auditEntries(t, { slug: ten.slug, key }, query);
}

describe('audit flood protection: rate limiting first, then aggregation', () => {
  const LIMIT = 4;
  let t: TestApp;
  let ten: Tenant;
  beforeAll(async () => {
    t = await createTestApp({ rateLimit: { limit: LIMIT, ttlMs: 60_000 } });
    ten = await t.tenant();
  });
  afterAll(() => t.close());

  it("records rate_limit.exceeded once per credential and window, with the credential's user and the count", async () => {
    const url = `/api/v2/workspaces/${ten.slug}/members/`;
    for (let i = 0; i < LIMIT; i++) expect((await t.http.get(url).set('X-Api-Key', ten.owner.key)).status).toBe(200);
    for (let i = 0; i < 6; i++)
      expectProblem(await t.http.get(url).set('X-Api-Key', ten.owner.key), 429, 'rate_limited');
    const rows = await read(t, ten, { event_name: 'rate_limit.exceeded', actor_id: ten.owner.id });
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.length).toBeLessThanOrEqual(2);
    expect(occurrences(rows)).toBe(6);
    expect(rows[0]).toMatchObject({
      category: 'security',
      outcome: 'failure',
      source: 'api',
      actor_type: 'api_token',
      actor_id: ten.owner.id,
      actor_email: ten.owner.email,
      target_type: 'workspace',
      target_id: ten.workspaceId,
      reason: 'rate_limited',
      ip_address: '127.0.0.1',
      metadata: expect.objectContaining({
        limit: LIMIT,
        window_seconds: 60,
        credential: 'api_key',
        route: 'GET /api/v2/workspaces/{slug}/members/',
      }),
    });
  });

  it('throttles anonymous floods before authentication: auth.failed stops growing, rate_limit.exceeded counts the rest', async () => {
    const inject = injector(t.app);
    const url = `/api/v2/workspaces/${ten.slug}/projects/`;
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push(
        (
          await inject({
            method: 'GET',
            url,
            remoteAddress: '203.0.113.50',
            headers: { 'x-api-key': `wt_api_guess${i}` },
          })
        ).statusCode,
      );
    // A new guessed key buys no fresh budget: each failed authentication also counts against the address.
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429, 429, 429, 429, 429, 429, 429]);
    // Without any credential the budget is the address's from the start.
    for (let i = 0; i < 8; i++)
      statuses.push((await inject({ method: 'GET', url, remoteAddress: '203.0.113.51' })).statusCode);
    expect(statuses.slice(12)).toEqual([401, 401, 401, 401, 429, 429, 429, 429]);

    // Each guess is recorded as a failed authentication (before its 429), the 429s as rate limits: both
    // aggregated, so the trail grows by one entry of each per window, not per request.
    const guesses = await read(t, ten, { event_name: 'auth.failed', ip_address: '203.0.113.50' });
    expect(guesses.length).toBeLessThanOrEqual(2);
    expect(occurrences(guesses)).toBe(12);
    const guessLimited = await read(t, ten, { event_name: 'rate_limit.exceeded', ip_address: '203.0.113.50' });
    expect(guessLimited.length).toBeLessThanOrEqual(2);
    expect(occurrences(guessLimited)).toBe(8);
    expect(guessLimited[0]).toMatchObject({
      category: 'security',
      outcome: 'failure',
      actor_type: 'anonymous',
      actor_id: null,
      reason: 'rate_limited',
    });
    const noCred = await read(t, ten, { event_name: 'auth.failed', ip_address: '203.0.113.51' });
    expect(occurrences(noCred)).toBe(LIMIT);
    const limited = await read(t, ten, { event_name: 'rate_limit.exceeded', ip_address: '203.0.113.51' });
    expect(limited.length).toBeLessThanOrEqual(2);
    expect(occurrences(limited)).toBe(4);
    expect(limited[0]).toMatchObject({
      actor_type: 'anonymous',
      actor_id: null,
      metadata: expect.objectContaining({ credential: 'none' }),
    });
  });

  it('a 429 outside a workspace path records nothing', async () => {
    const inject = injector(t.app);
    const before = (
      await t.ds.query(`SELECT count(*)::int AS c FROM audit_logs WHERE event_name = 'rate_limit.exceeded'`)
    )[0].c;
    for (let i = 0; i < LIMIT + 3; i++)
      await inject({ method: 'GET', url: '/api/v2/users/me/', remoteAddress: '203.0.113.52' });
    await sleep(1500);
    expect(
      (await t.ds.query(`SELECT count(*)::int AS c FROM audit_logs WHERE event_name = 'rate_limit.exceeded'`))[0].c,
    ).toBe(before);
  });
});

describe('audit failure windows', () => {
  let t: TestApp;
  let ten: Tenant;
  let second: NestFastifyApplication;
  const saved = process.env.AUDIT_FAILURE_WINDOW_SECONDS;
  beforeAll(async () => {
    process.env.AUDIT_FAILURE_WINDOW_SECONDS = '2';
    t = await createTestApp();
    ten = await t.tenant();
    // A second instance of the service on the same database.
    second = await createApp(
      {
        ...loadConfig(),
        publicBaseUrl: BASE_URL,
        redisUrl: undefined,
        rateLimit: { limit: 100000, ttlMs: 60000 },
        logLevel: 'error',
        dbPoolSize: 3,
      },
      t.dbUrl,
      { logger: false },
    );
    await second.getHttpAdapter().getInstance().ready();
  });
  afterAll(async () => {
    await second.close();
    await t.close();
    if (saved === undefined) delete process.env.AUDIT_FAILURE_WINDOW_SECONDS;
    else process.env.AUDIT_FAILURE_WINDOW_SECONDS = saved;
  });

  it('starts a new entry in each window; repeats reach the counter within a second even without a read', async () => {
    const inject = injector(t.app);
    const url = `/api/v2/workspaces/${ten.slug}/projects/`;
    // Start just after a window boundary so the first burst stays inside one window.
    while (Date.now() % 2000 > 200) await sleep(20);
    for (let i = 0; i < 3; i++) await inject({ method: 'GET', url, remoteAddress: '198.18.0.1' });
    await sleep(1500); // the flush timer (1 s) writes the two repeats
    const counted = await t.ds.query(
      `SELECT g.occurrences FROM audit_logs a JOIN audit_aggregates g ON g.workspace_id = a.workspace_id AND g.event_id = a.event_id
        WHERE a.workspace_id = $1 AND a.ip_address = '198.18.0.1'`,
      [ten.workspaceId],
    );
    expect(counted).toEqual([{ occurrences: 3 }]);
    while (Date.now() % 2000 > 200) await sleep(20); // next window
    for (let i = 0; i < 2; i++) await inject({ method: 'GET', url, remoteAddress: '198.18.0.1' });
    const rows = await read(t, ten, { event_name: 'auth.failed', ip_address: '198.18.0.1' });
    expect(rows.map((r) => r.metadata.aggregation.occurrences)).toEqual([3, 2]);
    expect(rows[0].metadata.aggregation.window_seconds).toBe(2);
    expect(
      new Date(rows[1].metadata.aggregation.window_start).getTime() -
        new Date(rows[0].metadata.aggregation.window_start).getTime(),
    ).toBeGreaterThanOrEqual(2000);
  });

  it('two instances seeing the same failure write one entry and add up their counts', async () => {
    const a = injector(t.app);
    const b = injector(second);
    const url = `/api/v2/workspaces/${ten.slug}/projects/`;
    while (Date.now() % 2000 > 200) await sleep(20);
    await Promise.all([
      ...Array.from({ length: 4 }, () => a({ method: 'GET', url, remoteAddress: '198.18.0.2' })),
      ...Array.from({ length: 5 }, () => b({ method: 'GET', url, remoteAddress: '198.18.0.2' })),
    ]);
    await sleep(1500); // the other instance's repeats reach the counter by its own flush
    const rows = await read(t, ten, { event_name: 'auth.failed', ip_address: '198.18.0.2' });
    expect(rows).toHaveLength(1);
    expect(rows[0].metadata.aggregation.occurrences).toBe(9);
  });
});
