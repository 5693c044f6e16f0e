import { createServer, Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { loadConfig } from '../../src/common/config/config';
import { EXPOSED_HEADERS, PREFLIGHT_MAX_AGE_SECONDS } from '../../src/common/http/cors';
import { browserDescribe, freePort, launchChromium } from '../helpers/browser';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

const APP = 'https://app.example.com';
const OTHER = 'https://evil.example.net';
const ME = '/api/v2/users/me/';

const exposed = (h: string | undefined) => (h ?? '').split(',').map((s) => s.trim().toLowerCase());

describe('CORS with CORS_ORIGINS set', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ corsOrigins: [APP, 'http://localhost:5173'], rateLimit: { limit: 3, ttlMs: 60_000 } });
    key = (await t.user()).key;
  });
  afterAll(() => t?.close());

  const preflight = (origin: string, path = '/api/v2/workspaces/x/projects/') =>
    t.http
      .options(path)
      .set('Origin', origin)
      .set('Access-Control-Request-Method', 'PATCH')
      .set('Access-Control-Request-Headers', 'x-api-key, content-type');

  it('answers a preflight from an allowed origin, cached for the max age', async () => {
    const res = await preflight(APP);
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PATCH, DELETE');
    expect(res.headers['access-control-allow-headers']).toBe('x-api-key, content-type');
    expect(res.headers['access-control-max-age']).toBe(String(PREFLIGHT_MAX_AGE_SECONDS));
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers.vary).toMatch(/Origin/);
    // No credentials needed for a preflight (browsers send none), and it costs no rate-limit budget.
    for (let i = 0; i < 5; i++) expect((await preflight('http://localhost:5173')).status).toBe(204);
  });

  it("lets an allowed origin read the answer and the API's headers, refusals included", async () => {
    const ok = await t.http.get(ME).set('Origin', APP).set('X-Api-Key', key);
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(APP);
    expect(exposed(ok.headers['access-control-expose-headers'])).toEqual(EXPOSED_HEADERS.map((h) => h.toLowerCase()));
    for (const h of [
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'ETag',
      'Idempotent-Replayed',
      'X-Request-Id',
      'Link',
      'Deprecation',
    ])
      expect(EXPOSED_HEADERS).toContain(h);
    // A 401 is readable too (the CORS hook runs before authentication).
    const denied = await t.http.get(ME).set('Origin', APP);
    expectProblem(denied, 401, 'unauthorized');
    expect(denied.headers['access-control-allow-origin']).toBe(APP);
    // And a 429 with its Retry-After.
    let limited = denied;
    for (let i = 0; i < 5 && limited.status !== 429; i++)
      limited = await t.http.get(ME).set('Origin', APP).set('X-Api-Key', key);
    expectProblem(limited, 429, 'rate_limited');
    expect(limited.headers['access-control-allow-origin']).toBe(APP);
    expect(limited.headers['retry-after']).toBeDefined();
  });

  it('does not allow another origin (no Access-Control-Allow-Origin), on a preflight or a request', async () => {
    // Without Access-Control-Allow-Origin naming it, the browser refuses the call (and its scripts see nothing).
    const pre = await preflight(OTHER);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const res = await t.http.get(ME).set('Origin', OTHER);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS_ORIGINS=*', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ corsOrigins: ['*'] });
  });
  afterAll(() => t?.close());

  it('allows any origin, without credentials', async () => {
    const res = await t.http.get(ME).set('Origin', OTHER);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

describe('CORS_ORIGINS unset', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ corsOrigins: [] });
  });
  afterAll(() => t?.close());

  it('sends no CORS headers, and OPTIONS is no route (as before)', async () => {
    const res = await t.http.get(ME).set('Origin', APP);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const pre = await t.http.options(ME).set('Origin', APP).set('Access-Control-Request-Method', 'GET');
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    expect(pre.status).toBeGreaterThanOrEqual(400);
  });
});

describe('CORS_ORIGINS parsing', () => {
  const withEnv = (value: string) => {
    const saved = process.env.CORS_ORIGINS;
    process.env.CORS_ORIGINS = value;
    try {
      return loadConfig().corsOrigins;
    } finally {
      if (saved === undefined) delete process.env.CORS_ORIGINS;
      else process.env.CORS_ORIGINS = saved;
    }
  };

  it('reads comma-separated origins (a trailing slash dropped, host lower-cased), or *', () => {
    expect(withEnv('')).toEqual([]);
    expect(withEnv(' https://App.example.com/ , http://localhost:5173')).toEqual([APP, 'http://localhost:5173']);
    expect(withEnv('https://a.example.com,*')).toEqual(['*']);
  });

  it('stops the start on anything but an origin, naming the variable', () => {
    for (const bad of ['app.example.com', 'https://app.example.com/path', 'ftp://x.example.com', 'https://x.com?q=1'])
      expect(() => withEnv(bad)).toThrow(/CORS_ORIGINS/);
  });
});

/** What a browser app does: a page of another origin calls the API with fetch (a preflight first: X-Api-Key). */
browserDescribe('cors.spec')('CORS in a browser', () => {
  let t: TestApp;
  let ten: Tenant;
  let api: string;
  let pagePort: number;
  let pages: Server;
  let browser: Browser;
  beforeAll(async () => {
    const apiPort = await freePort('127.0.0.1');
    pagePort = await freePort('127.0.0.1');
    api = `http://127.0.0.1:${apiPort}`;
    // The page server answers on 127.0.0.1 and localhost: two origins, one of them allowed.
    t = await createTestApp({ publicBaseUrl: api, corsOrigins: [`http://127.0.0.1:${pagePort}`] });
    ten = await t.tenant();
    await t.app.listen({ port: apiPort, host: '127.0.0.1' });
    pages = createServer((_req, res) => res.end('<!doctype html><title>app</title>'));
    await new Promise<void>((resolve) => pages.listen(pagePort, '127.0.0.1', resolve));
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    pages?.close();
    await t?.close();
  });

  /** Creates a project from a page of `origin`; the fetch's status and readable headers, or "blocked". */
  async function createFrom(origin: string, name: string) {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/`);
      return await page.evaluate(
        async ({ url, key, name }) => {
          try {
            const res = await fetch(url, {
              method: 'POST',
              headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' },
              body: JSON.stringify({ name }),
            });
            return {
              status: res.status,
              requestId: res.headers.get('X-Request-Id'),
              remaining: res.headers.get('X-RateLimit-Remaining'),
            };
          } catch {
            return 'blocked';
          }
        },
        { url: `${api}/api/v2/workspaces/${ten.slug}/projects/`, key: ten.owner.key, name },
      );
    } finally {
      await page.close();
    }
  }

  const projectNames = async () =>
    (await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/`).set('X-Api-Key', ten.owner.key)).body.data.map(
      (p: { name: string }) => p.name,
    );

  it('an allowed origin calls the API and reads its headers; another origin is blocked before the request', async () => {
    const allowed = await createFrom(`http://127.0.0.1:${pagePort}`, 'Made in a browser');
    expect(allowed).toEqual({ status: 201, requestId: expect.any(String), remaining: expect.stringMatching(/^\d+$/) });
    expect(await createFrom(`http://localhost:${pagePort}`, 'Never made')).toBe('blocked');
    const names = await projectNames();
    expect(names).toContain('Made in a browser');
    // The preflight failed, so the POST itself was never sent.
    expect(names).not.toContain('Never made');
  }, 60_000);
});
