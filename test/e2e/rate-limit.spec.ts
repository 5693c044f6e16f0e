import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { ThrottlerStorage } from '@nestjs/throttler';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { AppConfig, loadConfig } from '../../src/common/config/config';
import { createApp } from '../../src/app.factory';
import { RedisThrottlerStorage } from '../../src/common/throttle/redis-throttler.storage';
import { BASE_URL, createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

const LIMIT = 3;
const rateLimit = { limit: LIMIT, ttlMs: 60_000 };

type Inject = (opts: {
  method: 'GET' | 'PUT' | 'DELETE';
  url: string;
  remoteAddress?: string;
  headers?: Record<string, string>;
}) => Promise<{ statusCode: number; headers: Record<string, unknown>; json: () => any }>;
const injector = (app: NestFastifyApplication): Inject => {
  const f = app.getHttpAdapter().getInstance() as unknown as { inject: Inject };
  return (o) => f.inject(o);
};

describe('rate limits (in memory)', () => {
  let t: TestApp;
  let ten: Tenant;
  beforeAll(async () => {
    t = await createTestApp({ rateLimit });
    ten = await t.tenant();
  });
  afterAll(() => t.close());

  it('counts down the budget in X-RateLimit-* headers, then answers 429 rate_limited with Retry-After', async () => {
    const u = await t.user();
    for (let i = 1; i <= LIMIT; i++) {
      const res = await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe(String(LIMIT));
      expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - i));
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(60);
    }
    const res = await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key);
    const body = expectProblem(res, 429, 'rate_limited');
    expect(body.detail).toMatch(/Retry after \d+ s/);
    const retry = Number(res.headers['retry-after']);
    expect(Number.isInteger(retry)).toBe(true);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
    expect(res.headers['x-ratelimit-limit']).toBe(String(LIMIT));
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    // Still throttled on every route: one budget per credential, not per route.
    expectProblem(
      await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/`).set('X-Api-Key', u.key),
      429,
      'rate_limited',
    );
  });

  it('keeps a separate budget per credential (API key, another key, OAuth token)', async () => {
    const u = await t.user();
    for (let i = 0; i < LIMIT; i++) await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key);
    expectProblem(await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key), 429, 'rate_limited');
    const second = await t.admin.createApiKey(u.email);
    const other = await t.http.get('/api/v2/users/me/').set('X-Api-Key', second.key);
    expect(other.status).toBe(200);
    expect(other.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
    const tok = await t.token(u.email, ['read']);
    expect((await t.http.get('/api/v2/users/me/').set('Authorization', `Bearer ${tok}`)).status).toBe(200);
    expect((await t.http.get('/api/v2/users/me/').set('X-Api-Key', ten.owner.key)).status).toBe(200);
  });

  it('without credentials the budget is per client address (401s count too)', async () => {
    const inject = injector(t.app);
    const a = { method: 'GET' as const, url: '/api/v2/users/me/', remoteAddress: '203.0.113.7' };
    for (let i = 0; i < LIMIT; i++) expect((await inject(a)).statusCode).toBe(401);
    const blocked = await inject(a);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().code).toBe('rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // Another address has its own budget; public routes are limited too (the schema), the probes are not.
    expect((await inject({ ...a, remoteAddress: '203.0.113.8' })).statusCode).toBe(401);
    expect((await inject({ method: 'GET', url: '/api/v2/schema/', remoteAddress: '203.0.113.7' })).statusCode).toBe(
      429,
    );
    for (let i = 0; i < LIMIT + 2; i++)
      expect((await inject({ method: 'GET', url: '/healthz', remoteAddress: '203.0.113.7' })).statusCode).toBe(200);
    // A credential from the blocked address is not blocked: its budget is its own.
    const u = await t.user();
    expect((await inject({ ...a, headers: { 'x-api-key': u.key } })).statusCode).toBe(200);
  });

  it('failed authentication counts against the client address: a new bogus credential each time buys no budget', async () => {
    const inject = injector(t.app);
    const from = (headers: Record<string, string>) =>
      inject({ method: 'GET', url: '/api/v2/users/me/', remoteAddress: '203.0.113.20', headers });
    // Unknown API key, unknown bearer token, and a malformed bearer header: each one new, each one 401.
    const bogus: Array<Record<string, string>> = [
      { 'x-api-key': 'wt_api_bogus1' },
      { authorization: 'Bearer wt_oat_bogus2' },
      { authorization: 'Bearer two parts' },
    ];
    for (let i = 0; i < LIMIT; i++) {
      const res = await from(bogus[i]);
      expect(res.statusCode).toBe(401);
      // The budget headers describe the address budget the failure was charged to.
      expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1 - i));
    }
    const blocked = await from({ 'x-api-key': 'wt_api_bogus4' });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.headers['x-ratelimit-remaining']).toBe('0');
    expect((await from({ authorization: 'Bearer wt_oat_bogus5' })).statusCode).toBe(429);
    // The same budget as requests without credentials from that address.
    expect((await from({})).statusCode).toBe(429);
    // Another address is untouched; a valid credential from the blocked address keeps its own budget.
    expect(
      (
        await inject({
          method: 'GET',
          url: '/api/v2/users/me/',
          remoteAddress: '203.0.113.21',
          headers: { 'x-api-key': 'wt_api_bogus6' },
        })
      ).statusCode,
    ).toBe(401);
    const u = await t.user();
    const ok = await from({ 'x-api-key': u.key });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('unknown routes (404) and unsupported methods (405) are throttled per address and carry the budget headers', async () => {
    const inject = injector(t.app);
    const remoteAddress = '203.0.113.30';
    const probes = [
      { method: 'GET' as const, url: '/api/v2/nothing-here/', status: 404 },
      { method: 'GET' as const, url: '/api/v2/users/me', status: 404 }, // no trailing slash
      { method: 'PUT' as const, url: '/api/v2/users/me/', status: 405 },
    ];
    for (let i = 0; i < LIMIT; i++) {
      const res = await inject({
        method: probes[i].method,
        url: probes[i].url,
        remoteAddress,
        headers: { 'x-api-key': `wt_api_probe${i}` },
      });
      expect(res.statusCode).toBe(probes[i].status);
      expect(res.headers['x-ratelimit-limit']).toBe(String(LIMIT));
      expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1 - i));
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    }
    for (const p of probes) {
      const res = await inject({ method: p.method, url: p.url, remoteAddress });
      expect(res.statusCode).toBe(429);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'rate_limited', type: `${BASE_URL}/errors/rate_limited` });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    // The probes spent the address budget: a request without credentials from there is throttled too...
    expect((await inject({ method: 'GET', url: '/api/v2/users/me/', remoteAddress })).statusCode).toBe(429);
    // ...while another address still gets its 404, and the health probes stay exempt.
    expect(
      (await inject({ method: 'GET', url: '/api/v2/nothing-here/', remoteAddress: '203.0.113.31' })).statusCode,
    ).toBe(404);
    expect((await inject({ method: 'GET', url: '/healthz', remoteAddress })).statusCode).toBe(200);
  });

  it('X-Forwarded-For is ignored unless TRUST_PROXY is set', async () => {
    const inject = injector(t.app);
    for (let i = 0; i < LIMIT; i++)
      await inject({
        method: 'GET',
        url: '/api/v2/users/me/',
        remoteAddress: '198.51.100.1',
        headers: { 'x-forwarded-for': `192.0.2.${i}` },
      });
    expect(
      (
        await inject({
          method: 'GET',
          url: '/api/v2/users/me/',
          remoteAddress: '198.51.100.1',
          headers: { 'x-forwarded-for': '192.0.2.99' },
        })
      ).statusCode,
    ).toBe(429);
  });
});

describe('rate limits (in memory): fixed windows', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ rateLimit: { limit: LIMIT, ttlMs: 1_500 } });
  });
  afterAll(() => t.close());

  it('a spent budget is whole again once its window (and the block) has passed', async () => {
    const u = await t.user();
    for (let i = 0; i < LIMIT; i++)
      expect((await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key)).status).toBe(200);
    expectProblem(await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key), 429, 'rate_limited');
    await new Promise((r) => setTimeout(r, 1_700));
    const res = await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
    expect(res.headers['x-ratelimit-reset']).toBe('2');
  });
});

describe('rate limits behind a proxy (TRUST_PROXY)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ rateLimit, trustProxy: true });
  });
  afterAll(() => t.close());

  it('keys unauthenticated budgets by the forwarded client address', async () => {
    const inject = injector(t.app);
    const from = (ip: string) =>
      inject({
        method: 'GET',
        url: '/api/v2/users/me/',
        remoteAddress: '10.0.0.1',
        headers: { 'x-forwarded-for': ip },
      });
    for (let i = 0; i < LIMIT; i++) expect((await from('192.0.2.10')).statusCode).toBe(401);
    expect((await from('192.0.2.10')).statusCode).toBe(429);
    expect((await from('192.0.2.11')).statusCode).toBe(401);
  });

  it('a forwarded "address" that is no address, longer than the audit column, is recorded cut to it; the answer stays 401', async () => {
    const ten = await t.tenant();
    const junk = `not-an-ip-${'x'.repeat(90)}`;
    const res = await injector(t.app)({
      method: 'GET',
      url: `/api/v2/workspaces/${ten.slug}/projects/`,
      remoteAddress: '10.0.0.2',
      headers: { 'x-forwarded-for': junk, 'x-api-key': 'wt_api_bogus' },
    });
    expect(res.statusCode).toBe(401);
    const rows = await t.ds.query(
      `SELECT ip_address FROM audit_logs WHERE workspace_id = $1 AND event_name = 'auth.failed'`,
      [ten.workspaceId],
    );
    expect(rows).toEqual([{ ip_address: junk.slice(0, 64) }]);
  });
});

const REDIS_URL = process.env.REDIS_URL;
const describeRedis = REDIS_URL ? describe : describe.skip;
if (!REDIS_URL) {
  console.warn(
    'rate-limit.spec: REDIS_URL is not set, so the shared Redis budget is not tested (set REDIS_URL=redis://127.0.0.1:6379).',
  );
}

const instanceConfig = (dbPoolSize: number): AppConfig => ({
  ...loadConfig(),
  publicBaseUrl: BASE_URL,
  redisUrl: REDIS_URL,
  rateLimit,
  logLevel: 'error',
  dbPoolSize,
});

describeRedis('rate limits shared through Redis (REDIS_URL)', () => {
  let t: TestApp;
  let second: NestFastifyApplication;
  let http2: ReturnType<typeof request>;
  beforeAll(async () => {
    t = await createTestApp({ rateLimit, redisUrl: REDIS_URL });
    // A second instance of the service on the same database and the same Redis.
    second = await createApp(instanceConfig(3), t.dbUrl, { logger: false });
    await second.getHttpAdapter().getInstance().ready();
    http2 = request(second.getHttpServer());
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  it('two instances share one budget per credential', async () => {
    const u = await t.user();
    const one = await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key);
    expect(one.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
    const two = await http2.get('/api/v2/users/me/').set('X-Api-Key', u.key);
    expect(two.status).toBe(200);
    expect(two.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 2));
    expect((await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key)).status).toBe(200);
    const blocked = await http2.get('/api/v2/users/me/').set('X-Api-Key', u.key);
    expectProblem(blocked, 429, 'rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60);
    expectProblem(await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key), 429, 'rate_limited');
    // Another credential is untouched on both instances.
    const v = await t.user();
    expect((await http2.get('/api/v2/users/me/').set('X-Api-Key', v.key)).status).toBe(200);
  });

  it('the Redis storage windows and blocks correctly', async () => {
    const storage = new RedisThrottlerStorage(REDIS_URL!, `wt:test:${randomBytes(4).toString('hex')}`);
    try {
      const key = 'k';
      const r1 = await storage.increment(key, 1000, 2, 1500, 'default');
      expect(r1).toEqual({ totalHits: 1, timeToExpire: 1, isBlocked: false, timeToBlockExpire: 0 });
      expect((await storage.increment(key, 1000, 2, 1500, 'default')).isBlocked).toBe(false);
      const r3 = await storage.increment(key, 1000, 2, 1500, 'default');
      expect(r3).toMatchObject({ totalHits: 3, isBlocked: true, timeToBlockExpire: 2 });
      // Other keys and throttler names are separate.
      expect((await storage.increment('other', 1000, 2, 1500, 'default')).isBlocked).toBe(false);
      expect((await storage.increment(key, 1000, 2, 1500, 'burst')).isBlocked).toBe(false);
      // After the block and the window pass, the budget is back.
      await new Promise((r) => setTimeout(r, 1700));
      expect(await storage.increment(key, 1000, 2, 1500, 'default')).toMatchObject({ totalHits: 1, isBlocked: false });
    } finally {
      await storage.onApplicationShutdown();
    }
  });

  it('closing the app closes its Redis connection', async () => {
    const extra = await createApp(instanceConfig(1), t.dbUrl, { logger: false });
    const storage = extra.get<unknown>(ThrottlerStorage) as { redis: { status: string } };
    expect(storage).toBeInstanceOf(RedisThrottlerStorage);
    await extra.close();
    for (let i = 0; i < 50 && storage.redis.status !== 'end'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(storage.redis.status).toBe('end');
  });
});

describe('rate limits when Redis is unreachable', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ rateLimit, redisUrl: 'redis://127.0.0.1:1' });
  });
  afterAll(() => t.close());

  it('fails open: requests are served, not turned into 500s, and not slowed by waiting for Redis', async () => {
    const u = await t.user();
    const started = Date.now();
    for (let i = 0; i < LIMIT + 2; i++)
      expect((await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key)).status).toBe(200);
    // Each request would wait out the command timeout if it queued for the absent Redis.
    expect((Date.now() - started) / (LIMIT + 2)).toBeLessThan(150);
  });
});

describe('rate limits when Redis is connected but silent', () => {
  let t: TestApp;
  let silent: Server;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    // Accepts connections and never answers: every command would wait out the command timeout.
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    t = await createTestApp({ rateLimit, redisUrl: `redis://127.0.0.1:${(silent.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    await t.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((r) => silent.close(r));
  });

  it('after one timed-out command Redis is skipped for a while: requests are served without waiting', async () => {
    const u = await t.user();
    const started = Date.now();
    for (let i = 0; i < 6; i++)
      expect((await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key)).status).toBe(200);
    // One command timeout (1 s), not six.
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
