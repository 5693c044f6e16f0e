import { networkInterfaces } from 'node:os';
import type { Browser } from 'playwright-core';
import { browserDescribe, freePort, launchChromium } from '../helpers/browser';
import { createTestApp, Tenant, TestApp } from '../helpers/test-app';

/**
 * Swagger UI in a real browser (Debian's chromium driven by playwright-core, which never downloads
 * a browser): the page loads, lists the operations, and calls the API with an X-Api-Key.
 */
const run = browserDescribe('swagger-ui.spec');

/**
 * A non-loopback address when the machine has one: browsers treat only loopback as a secure context,
 * so this also proves the page works when served over plain http to another host (no forced https).
 */
function pageHost(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

run('Swagger UI in a browser', () => {
  let t: TestApp;
  let ten: Tenant;
  let base: string;
  let browser: Browser;
  beforeAll(async () => {
    const host = pageHost();
    const port = await freePort(host);
    base = `http://${host}:${port}`;
    // The document's one server entry is the address the browser uses, so "Try it out" calls this app.
    t = await createTestApp({ publicBaseUrl: base });
    ten = await t.tenant();
    await t.project(ten.slug, ten.owner.key, { name: 'Seen in Swagger' });
    await t.app.listen({ port, host });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists the operations, authorizes with an X-Api-Key and executes a call', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    const res = await page.goto(`${base}/api/v2/docs/`, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);

    // Operations are rendered, with their operationIds (displayOperationId).
    const me = page.locator('#operations-users-users_me');
    await me.waitFor({ timeout: 30_000 });
    expect(await page.locator('.opblock-summary-operation-id', { hasText: 'users_me' }).count()).toBe(1);

    // Authorize -> ApiKey.
    await page.locator('button.authorize').first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.waitFor();
    const keyBlock = dialog.locator('.auth-container').filter({ hasText: 'X-Api-Key' });
    await keyBlock.locator('input').fill(ten.owner.key);
    await keyBlock.locator('button.authorize').click();
    await keyBlock.locator('button', { hasText: 'Logout' }).waitFor();
    await dialog.locator('button.close-modal').click();

    // Try it out -> Execute on GET /api/v2/users/me/.
    await me.locator('.opblock-summary').click();
    await me.locator('button.try-out__btn').click();
    await me.locator('button.execute').click();
    const status = me.locator('.live-responses-table tr.response td.response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    expect((await status.innerText()).trim()).toBe('200');
    const body = await me
      .locator('.live-responses-table tr.response .response-col_description pre.microlight')
      .first()
      .innerText();
    expect(JSON.parse(body)).toMatchObject({
      id: ten.owner.id,
      email: ten.owner.email,
      principal_kind: 'api_key',
      scopes: [],
    });
    // The request really went to this app with the key (the curl shown carries the header).
    expect(await me.locator('.curl-command').innerText()).toContain('X-Api-Key');

    // A call with a path parameter: list the workspace's projects. Swagger UI 5 renders tag sections
    // lazily as they scroll into view, so scroll down to it as a person would.
    const list = page.locator('#operations-projects-projects_list');
    for (let i = 0; i < 200 && (await list.count()) === 0; i++) {
      await page.evaluate('window.scrollBy(0, 600)');
      await page.waitForTimeout(50);
    }
    await list.waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
    await list.locator('.opblock-summary').click();
    await list.locator('button.try-out__btn').click();
    await list.locator('tr[data-param-name="slug"] input').fill(ten.slug);
    await list.locator('button.execute').click();
    const listStatus = list.locator('.live-responses-table tr.response td.response-col_status').first();
    await listStatus.waitFor({ timeout: 30_000 });
    expect((await listStatus.innerText()).trim()).toBe('200');
    const listBody = JSON.parse(
      await list
        .locator('.live-responses-table tr.response .response-col_description pre.microlight')
        .first()
        .innerText(),
    );
    expect(listBody.data.map((p: { name: string }) => p.name)).toContain('Seen in Swagger');

    // No script errors, and no request blocked by the Content-Security-Policy.
    expect(errors.filter((e) => !/favicon/i.test(e))).toEqual([]);
    await page.close();
  }, 120_000);

  it('"Create a work item" executes its example unchanged, and each error status shows its own example', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    const page = await browser.newPage();
    await page.goto(`${base}/api/v2/docs/`, { waitUntil: 'load' });
    await page.locator('button.authorize').first().click();
    const keyBlock = page.locator('.modal-ux .auth-container').filter({ hasText: 'X-Api-Key' });
    await keyBlock.locator('input').fill(ten.owner.key);
    await keyBlock.locator('button.authorize').click();
    await page.locator('.modal-ux button.close-modal').click();

    const create = page.locator('#operations-work-items-work_items_create');
    for (let i = 0; i < 400 && (await create.count()) === 0; i++) {
      await page.evaluate('window.scrollBy(0, 600)');
      await page.waitForTimeout(50);
    }
    await create.locator('.opblock-summary').click();
    // The documented responses: 404 shows resource_not_found, 401 unauthorized (not a 400 validation_error).
    const documented = (code: number) =>
      create.locator(`.responses-table tr.response[data-code="${code}"]`).innerText();
    expect(await documented(404)).toContain('resource_not_found');
    expect(await documented(401)).toContain('unauthorized');
    expect(await documented(401)).not.toContain('validation_error');

    await create.locator('button.try-out__btn').click();
    await create.locator('tr[data-param-name="slug"] input').fill(ten.slug);
    await create.locator('tr[data-param-name="project_id"] input').fill(project.id);
    await create.locator('button.execute').click();
    const status = create.locator('.live-responses-table tr.response td.response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    expect((await status.innerText()).trim()).toBe('201');
    await page.close();
  }, 120_000);
});

describe('security headers follow the scheme of PUBLIC_BASE_URL', () => {
  it('over http: no upgrade-insecure-requests, no HSTS (Swagger UI must load from a LAN address)', async () => {
    const t = await createTestApp({ publicBaseUrl: 'http://tracker.lan:3000' });
    try {
      const res = await t.http.get('/api/v2/docs/');
      expect(res.status).toBe(200);
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
      expect(res.headers['strict-transport-security']).toBeUndefined();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    } finally {
      await t.close();
    }
  });

  it('over https: upgrade-insecure-requests and HSTS', async () => {
    const t = await createTestApp({ publicBaseUrl: 'https://tracker.example.com' });
    try {
      const res = await t.http.get('/healthz');
      expect(res.headers['content-security-policy']).toContain('upgrade-insecure-requests');
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    } finally {
      await t.close();
    }
  });
});
