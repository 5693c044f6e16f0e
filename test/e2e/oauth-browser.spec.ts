import { existsSync } from 'node:fs';
import * as oauth from 'oauth4webapi';
import type { Browser, Page } from 'playwright-core';
import {
  authorizationUrl,
  discover,
  INSECURE,
  listeningApp,
  PASSWORD,
  RegisteredApp,
  registerApp,
  setPassword,
} from '../helpers/oauth';
import { Tenant, TestApp } from '../helpers/test-app';

/**
 * The authorization code flow with PKCE in a real browser (Debian's chromium through playwright-core, as the
 * Swagger UI test does): oauth4webapi builds the request and redeems the code, a person signs in and consents on
 * the pages, with JavaScript off; then Swagger UI's Authorize dialog runs the same flow itself.
 */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const run = haveChromium || process.env.CI ? describe : describe.skip;

run('OAuth in a browser', () => {
  let t: TestApp & { base: string };
  let ten: Tenant;
  let browser: Browser;
  beforeAll(async () => {
    if (!haveChromium) throw new Error(`CI is set but there is no chromium at ${CHROMIUM}.`);
    t = await listeningApp();
    ten = await t.tenant();
    await setPassword(t, ten.owner.email);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Signs in and answers the consent page as a person would (labels, buttons). */
  async function signInAndConsent(page: Page, decision: 'Allow' | 'Deny' = 'Allow') {
    await page.getByLabel('Email').fill(ten.owner.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /Allow .* to act for you\?/ }).waitFor();
    await page.getByRole('button', { name: decision }).click();
  }

  it('code + PKCE with oauth4webapi; sign-in and consent work with JavaScript off', async () => {
    const redirectUri = 'http://127.0.0.1:9/callback';
    const app: RegisteredApp = await registerApp(t, ten.slug, {
      redirectUri,
      scopes: ['projects:read', 'projects.work_items:read'],
    });
    const as = await discover(t.base);
    const client = { client_id: app.client_id };
    const req = await authorizationUrl(as, app.client_id, redirectUri, 'projects:read projects.work_items:read');

    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    let callback: string | null = null;
    // The app's redirect URI: caught here instead of reaching a server.
    await page.route(`${redirectUri}**`, async (route) => {
      callback = route.request().url();
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back in the app' });
    });
    await page.goto(req.url.href);
    expect(await page.title()).toBe('Sign in');
    await signInAndConsent(page);
    await page.getByText('back in the app').waitFor();
    await context.close();

    const params = oauth.validateAuthResponse(as, client, new URL(callback!), req.state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.ClientSecretBasic(app.client_secret!),
        params,
        redirectUri,
        req.codeVerifier,
        INSECURE,
      ),
    );
    expect(tokens.scope).toBe('projects:read projects.work_items:read');
    const bearer = { Authorization: `Bearer ${tokens.access_token}` };
    const me = await t.http.get('/api/v2/users/me/').set(bearer);
    expect(me.body).toMatchObject({ id: ten.owner.id, principal_kind: 'oauth' });
    expect((await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/`).set(bearer)).status).toBe(200);
    expect((await t.http.get(`/api/v2/workspaces/${ten.slug}/members/`).set(bearer)).status).toBe(403);
  }, 120_000);

  it("Swagger UI's Authorize dialog runs the flow (PKCE, public app) and then calls the API", async () => {
    const swaggerApp = await registerApp(t, ten.slug, {
      name: 'Swagger UI',
      isPublic: true,
      redirectUri: `${t.base}/api/v2/docs/oauth2-redirect.html`,
      scopes: ['read'],
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${t.base}/api/v2/docs/`);
    const me = page.locator('#operations-users-users_me');
    await me.waitFor({ timeout: 30_000 });

    await page.locator('button.authorize').first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.waitFor();
    const oauthBlock = dialog.locator('.auth-container').filter({ has: page.locator('#client_id_authorizationCode') });
    await oauthBlock.locator('#client_id_authorizationCode').fill(swaggerApp.client_id);
    await oauthBlock.locator('label[for="read-authorizationCode-checkbox-oauth2"]').click();
    const popupPromise = page.waitForEvent('popup');
    await oauthBlock.locator('button.authorize').click();
    const popup = await popupPromise;
    await popup.waitForLoadState();
    const closed = popup.waitForEvent('close');
    await signInAndConsent(popup);
    // oauth2-redirect.html hands the code to Swagger UI and closes; Swagger UI redeems it with its verifier.
    await closed;
    await page.locator('button.authorize.locked').first().waitFor({ timeout: 30_000 });
    if (await dialog.isVisible()) await dialog.locator('button.close-modal').click();

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
    expect(JSON.parse(body)).toMatchObject({ id: ten.owner.id, principal_kind: 'oauth', scopes: ['read'] });
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
