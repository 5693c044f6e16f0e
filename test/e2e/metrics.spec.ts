import { AuthCache } from '../../src/common/auth/auth-cache';
import { loadConfig, MetricsSettings } from '../../src/common/config/config';
import { MetricsPortServer } from '../../src/common/metrics/metrics-port.server';
import { Counter, Histogram, Registry } from 'prom-client';
import { FastHistogram } from '../../src/common/metrics/fast-histogram';
import { LATENCY_BUCKETS, Metrics } from '../../src/common/metrics/metrics';
import { parseMetrics, Sample, total } from '../helpers/prometheus';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';
import { waitFor } from '../helpers/wait';

const TOKEN = 'scrape-token-0123456789abcdef';
const settings = (over: Partial<MetricsSettings>): MetricsSettings => ({
  ...loadConfig().metrics,
  enabled: true,
  token: undefined,
  port: undefined,
  host: '127.0.0.1',
  ...over,
});
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

describe('GET /metrics on the API port with METRICS_TOKEN', () => {
  let t: TestApp;
  let ten: Tenant;
  let pid: string;
  const scrape = async (): Promise<Sample[]> => {
    const res = await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    return parseMetrics(res.text);
  };

  beforeAll(async () => {
    t = await createTestApp({ metrics: settings({ token: TOKEN }) });
    ten = await t.tenant();
    pid = (await t.project(ten.slug, ten.owner.key)).id;
    await waitFor('the auth cache listener', () => t.app.get(AuthCache).active);
  });
  afterAll(() => t.close());

  it('without the token, with an API credential or a wrong token: 401; with it: the Prometheus text, not cached', async () => {
    for (const headers of [
      {},
      { 'X-Api-Key': ten.owner.key },
      { Authorization: `Bearer ${TOKEN}x` },
      { Authorization: TOKEN },
    ]) {
      const res = await t.http.get('/metrics').set(headers);
      const body = expectProblem(res, 401, 'unauthorized');
      expect(body.detail).toContain('METRICS_TOKEN');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    }
    const res = await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain('# TYPE http_requests_total counter');
    expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
  });

  it('after traffic the request counters and histograms move by route template, method and status class; no id in any label', async () => {
    const before = await scrape();
    const key = ten.owner.key;
    for (let i = 0; i < 5; i++) {
      expect((await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/`).set('X-Api-Key', key)).status).toBe(200);
    }
    expect((await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/${pid}/`).set('X-Api-Key', key)).status).toBe(
      200,
    );
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(
      (await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/${unknown}/?x=${unknown}`).set('X-Api-Key', key))
        .status,
    ).toBe(404);
    expect((await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/`)).status).toBe(401);
    expect((await t.http.get(`/api/v2/no-such-thing/${unknown}/`)).status).toBe(404);
    expect((await t.http.get(`/api/v2/workspaces/${ten.slug}/projects`)).status).toBe(404);
    const after = await scrape();

    const delta = (name: string, labels: Record<string, string>) =>
      total(after, name, labels) - total(before, name, labels);
    const list = { method: 'GET', route: '/api/v2/workspaces/{slug}/projects/', status_class: '2xx' };
    expect(delta('http_requests_total', list)).toBe(5);
    expect(delta('http_request_duration_seconds_count', list)).toBe(5);
    expect(delta('http_request_duration_seconds_bucket', { ...list, le: '+Inf' })).toBe(5);
    expect(delta('http_request_duration_seconds_sum', list)).toBeGreaterThan(0);
    // Buckets are cumulative: each bound counts at most what the next one does.
    const buckets = after.filter(
      (s) => s.name === 'http_request_duration_seconds_bucket' && s.labels.route === list.route,
    );
    const counts = buckets
      .filter((s) => s.labels.status_class === '2xx' && s.labels.method === 'GET')
      .map((s) => s.value);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(delta('http_requests_total', { ...list, status_class: '4xx' })).toBe(1);
    const detail = after.find(
      (s) =>
        s.name === 'http_requests_total' &&
        /^\/api\/v2\/workspaces\/\{slug\}\/projects\/\{\w+\}\/$/.test(s.labels.route),
    );
    expect(detail).toBeDefined();
    expect(delta('http_requests_total', { route: detail!.labels.route, status_class: '2xx' })).toBe(1);
    expect(delta('http_requests_total', { route: detail!.labels.route, status_class: '4xx' })).toBe(1);
    // Unknown paths (and the path without its trailing slash) share one label.
    expect(delta('http_requests_total', { route: 'unmatched', status_class: '4xx' })).toBe(2);

    expect(delta('db_query_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThanOrEqual(5);
    expect(total(after, 'db_pool_max_connections')).toBe(5);
    expect(total(after, 'db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(after.some((s) => s.name === 'db_pool_idle_connections')).toBe(true);
    expect(total(after, 'db_pool_waiting_requests')).toBe(0);
    // One credential on one workspace path: looked up once (at most), then reused; the project paths are other keys.
    expect(delta('auth_cache_hits_total', {})).toBeGreaterThanOrEqual(4);
    expect(delta('auth_cache_misses_total', {})).toBeGreaterThanOrEqual(1);
    // The scrape itself is a request whose handler runs while it is counted.
    expect(total(after, 'http_requests_in_flight')).toBeGreaterThanOrEqual(1);
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'process_resident_memory_bytes',
    ]) {
      expect([name, after.some((s) => s.name === name)]).toEqual([name, true]);
    }
    expect(after.some((s) => s.name.startsWith('nodejs_gc_duration_seconds'))).toBe(true);

    // Bounded labels: no id, slug, credential or query string anywhere.
    const secrets = [ten.slug, pid, ten.owner.id, ten.owner.key, unknown, TOKEN];
    for (const s of after) {
      for (const [label, value] of Object.entries(s.labels)) {
        const leak = UUID.test(value) || value.includes('?') || secrets.some((x) => value.includes(x));
        expect([s.name, label, value, leak]).toEqual([s.name, label, value, false]);
      }
    }
  });

  it('audit write failures are counted by what was written, and the change they record is rolled back', async () => {
    const metrics = t.app.get(Metrics);
    const count = async (write: string) =>
      total(parseMetrics(await metrics.scrape()), 'audit_write_failures_total', { write });
    const [entries, aggregates] = [await count('entry'), await count('aggregate_count')];
    await t.ds.query(`ALTER TABLE audit_logs ADD CONSTRAINT refuse_all CHECK (false) NOT VALID`);
    try {
      const res = await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/`)
        .set('X-Api-Key', ten.owner.key)
        .send({ name: 'Never recorded', identifier: 'NEVER' });
      expect(res.status).toBe(500);
      expect(await count('entry')).toBe(entries + 1);
      // The refused statement is a failed statement too.
      const failed = total(parseMetrics(await metrics.scrape()), 'db_query_duration_seconds_count', {
        outcome: 'error',
      });
      expect(failed).toBeGreaterThanOrEqual(1);
      const [{ n }] = await t.ds.query(`SELECT count(*)::int AS n FROM projects WHERE identifier = 'NEVER'`);
      expect(n).toBe(0);
    } finally {
      await t.ds.query(`ALTER TABLE audit_logs DROP CONSTRAINT refuse_all`);
    }
    await t.ds.query(`ALTER TABLE audit_aggregates ADD CONSTRAINT refuse_all CHECK (false) NOT VALID`);
    try {
      // A bad credential on a workspace path records auth.failed (aggregated); the client still gets its 401.
      const res = await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/`).set('X-Api-Key', 'wt_api_nonsense');
      expect(res.status).toBe(401);
      // The guard awaited the audit write before answering.
      expect(await count('aggregate_count')).toBe(aggregates + 1);
    } finally {
      await t.ds.query(`ALTER TABLE audit_aggregates DROP CONSTRAINT refuse_all`);
    }
  });

  it('a feature adds its own metrics through the Metrics registry: asked twice it gets the same one; other labels are refused', async () => {
    const metrics = t.app.get(Metrics);
    const deliveries = metrics.counter({ name: 'test_deliveries_total', help: 'x', labelNames: ['outcome'] as const });
    expect(metrics.counter({ name: 'test_deliveries_total', help: 'x', labelNames: ['outcome'] as const })).toBe(
      deliveries,
    );
    expect(() => metrics.counter({ name: 'test_deliveries_total', help: 'x', labelNames: ['url'] })).toThrow(
      /already registered/,
    );
    expect(() => metrics.gauge({ name: 'test_deliveries_total', help: 'x', labelNames: ['outcome'] })).toThrow(
      /already registered/,
    );
    let depth = 7;
    metrics.gauge({
      name: 'test_queue_depth',
      help: 'x',
      collect() {
        this.set(depth);
      },
    });
    // The per-request kind: one series per label set, resolved once.
    const latency = metrics.fastHistogram({
      name: 'test_delivery_seconds',
      help: 'x',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
    });
    expect(
      metrics.fastHistogram({ name: 'test_delivery_seconds', help: 'x', labelNames: ['outcome'], buckets: [1] }),
    ).toBe(latency);
    expect(() =>
      metrics.fastHistogram({ name: 'test_delivery_seconds', help: 'x', labelNames: ['url'], buckets: [1] }),
    ).toThrow(/already registered/);
    expect(() => metrics.counter({ name: 'test_delivery_seconds', help: 'x' })).toThrow(/already registered/);
    latency.series({ outcome: 'delivered' }).observe(0.02);
    deliveries.inc({ outcome: 'delivered' }, 2);
    const s1 = await scrape();
    expect(total(s1, 'test_deliveries_total', { outcome: 'delivered' })).toBe(2);
    expect(total(s1, 'test_queue_depth')).toBe(7);
    expect(total(s1, 'test_delivery_seconds_bucket', { outcome: 'delivered', le: '0.025' })).toBe(1);
    expect(total(s1, 'test_delivery_seconds_bucket', { outcome: 'delivered', le: '0.01' })).toBe(0);
    depth = 3;
    expect(total(await scrape(), 'test_queue_depth')).toBe(3);
  });
});

describe('rate-limit rejections', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ rateLimit: { limit: 2, ttlMs: 60_000 }, metrics: settings({ token: TOKEN }) });
  });
  afterAll(() => t.close());

  it('every 429 counts in rate_limit_rejections_total by the budget it exhausted', async () => {
    const u = await t.user();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key)).status);
    for (let i = 0; i < 3; i++) statuses.push((await t.http.get('/api/v2/users/me/')).status);
    expect(statuses).toEqual([200, 200, 429, 429, 401, 401, 429]);
    // Read in process: a scrape is a request too, with a budget of its own.
    const samples = parseMetrics(await t.app.get(Metrics).scrape());
    expect(total(samples, 'rate_limit_rejections_total', { credential: 'api_key' })).toBe(2);
    expect(total(samples, 'rate_limit_rejections_total', { credential: 'address' })).toBe(1);
    expect(total(samples, 'http_requests_total', { route: '/api/v2/users/me/', status_class: '4xx' })).toBe(5);
  });
});

describe('GET /metrics without METRICS_TOKEN or METRICS_PORT (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ metrics: settings({}) });
  });
  afterAll(() => t.close());

  it('is refused to everybody, naming the settings that open it', async () => {
    const u = await t.user();
    for (const headers of [{}, { 'X-Api-Key': u.key }, { Authorization: 'Bearer anything-at-all-0123456789' }]) {
      const body = expectProblem(await t.http.get('/metrics').set(headers), 401, 'unauthorized');
      expect(body.detail).toMatch(/METRICS_TOKEN.*METRICS_PORT/);
    }
  });
});

describe('METRICS_PORT', () => {
  let t: TestApp;
  let t2: TestApp;
  const url = (app: TestApp, path = '/metrics') =>
    `http://127.0.0.1:${app.app.get(MetricsPortServer).address()!.port}${path}`;
  beforeAll(async () => {
    t = await createTestApp({ metrics: settings({ port: 0 }) });
    t2 = await createTestApp({ metrics: settings({ port: 0, token: TOKEN }) });
  });
  afterAll(async () => {
    const address = url(t);
    await t.close();
    await t2.close();
    // Closed with the application.
    await expect(fetch(address)).rejects.toThrow();
  });

  it('serves /metrics there (without a token unless one is set) and not on the API port', async () => {
    const u = await t.user();
    expect((await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key)).status).toBe(200);
    expectProblem(await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`), 404, 'resource_not_found');
    const res = await fetch(url(t));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parseMetrics(await res.text());
    expect(total(samples, 'http_requests_total', { route: '/api/v2/users/me/', status_class: '2xx' })).toBe(1);
    // Scrapes on this port are not API requests.
    expect(total(samples, 'http_requests_total', { route: '/metrics' })).toBe(0);

    expect((await fetch(url(t, '/other'))).status).toBe(404);
    const post = await fetch(url(t), { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect((await fetch(url(t), { method: 'HEAD' })).status).toBe(200);
  });

  it('with METRICS_TOKEN the port asks for it too', async () => {
    const refused = await fetch(url(t2));
    expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="metrics"']);
    expect(((await refused.json()) as { code: string }).code).toBe('unauthorized');
    expect((await fetch(url(t2), { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });
});

describe('METRICS_ENABLED=false', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ metrics: settings({ enabled: false, token: TOKEN }) });
  });
  afterAll(() => t.close());

  it('serves no /metrics and collects nothing per request', async () => {
    expectProblem(await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`), 404, 'resource_not_found');
    const text = await t.app.get(Metrics).scrape();
    expect(text).not.toContain('http_requests_total');
    expect(text).not.toContain('nodejs_heap_size_used_bytes');
  });
});

describe('FastHistogram', () => {
  it("exposes exactly what prom-client's Histogram and Counter would for the same observations", async () => {
    const ours = new Registry();
    const fast = new FastHistogram({
      name: 'x_seconds',
      help: 'h',
      labelNames: ['route', 'method'],
      buckets: LATENCY_BUCKETS,
      counter: { name: 'x_total', help: 'c' },
    });
    for (const m of fast.metrics()) ours.registerMetric(m);
    const theirs = new Registry();
    const histogram = new Histogram({
      name: 'x_seconds',
      help: 'h',
      labelNames: ['route', 'method'],
      buckets: LATENCY_BUCKETS,
      registers: [theirs],
    });
    const counter = new Counter({ name: 'x_total', help: 'c', labelNames: ['route', 'method'], registers: [theirs] });
    const values = [0, 0.0004, 0.001, 0.0011, 0.003, 0.02, 0.7, 9.9, 10, 11, 250];
    values.forEach((v, i) => {
      const labels = { route: i % 3 ? '/a/{id}/' : '/b "quoted"\\', method: i % 2 ? 'GET' : 'POST' };
      fast.series(labels).observe(v);
      histogram.observe(labels, v);
      counter.inc(labels);
    });
    const sorted = (text: string) => text.split('\n').filter(Boolean).sort();
    expect(sorted(await ours.metrics())).toEqual(sorted(await theirs.metrics()));
    // A series is found once and kept: asking again gives the same one.
    expect(fast.series({ route: '/a/{id}/', method: 'GET' })).toBe(fast.series({ method: 'GET', route: '/a/{id}/' }));
  });
});
