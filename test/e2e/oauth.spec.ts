import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { AuthCache } from '../../src/common/auth/auth-cache';
import { createApp } from '../../src/app.factory';
import { auditEntries } from '../helpers/audit';
import {
  authorizationUrl,
  authorize,
  discover,
  FormBrowser,
  INSECURE,
  listeningApp,
  RegisteredApp,
  registerApp,
  setPassword,
  PASSWORD as PASSWORD_FOR_TEST,
} from '../helpers/oauth';
import { Tenant, TestApp } from '../helpers/test-app';
import { APP_CONFIG, AppConfig, loadConfig } from '../../src/common/config/config';

const createTestAppDefaults = () => loadConfig().oauth;

/**
 * OAuth 2.0 for apps against the running server, through oauth4webapi (a standard client library): authorization
 * code with PKCE, refresh rotation, replay detection, revocation, introspection, client credentials (bot tokens),
 * and the refusals with their standard error codes. The sign-in and consent pages are driven as plain forms here
 * (a browser without JavaScript); oauth-browser.spec.ts drives them in Chromium.
 */

/**
 * The provider reports a replay through an event after it has answered, so its audit entry may land a moment
 * after the response: read until an entry with that reason is there (or 10 s have passed).
 */
async function replayEntriesOf(t: TestApp, ten: Tenant, reason: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const entries = await auditEntries(t, ten, { event_name: 'oauth.replay_detected' });
    if (entries.some((e) => e.reason === reason) || Date.now() > deadline) return entries;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('OAuth 2.0 authorization server', () => {
  let t: TestApp & { base: string };
  let ten: Tenant;
  let as: oauth.AuthorizationServer;
  let app: RegisteredApp;
  let client: oauth.Client;
  let clientAuth: oauth.ClientAuth;
  const redirectUri = 'http://127.0.0.1:9/callback';

  beforeAll(async () => {
    t = await listeningApp();
    ten = await t.tenant();
    await setPassword(t, ten.owner.email);
    app = await registerApp(t, ten.slug, {
      redirectUri,
      scopes: ['projects:read', 'projects.work_items:read', 'read'],
    });
    as = await discover(t.base);
    client = { client_id: app.client_id };
    clientAuth = oauth.ClientSecretBasic(app.client_secret!);
  });
  afterAll(() => t?.close());

  /** Code + PKCE through the pages; returns the token response. */
  async function userTokens(scope = 'projects:read') {
    const req = await authorizationUrl(as, app.client_id, redirectUri, scope);
    const back = await authorize(new FormBrowser(t.base), req.url, { email: ten.owner.email });
    const params = oauth.validateAuthResponse(as, client, back, req.state);
    const res = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      redirectUri,
      req.codeVerifier,
      INSECURE,
    );
    return oauth.processAuthorizationCodeResponse(as, client, res);
  }

  it('publishes RFC 8414 metadata with the real endpoints and S256', () => {
    expect(as.issuer).toBe(t.base);
    expect(as.authorization_endpoint).toBe(`${t.base}/auth/o/authorize/`);
    expect(as.token_endpoint).toBe(`${t.base}/auth/o/token/`);
    expect(as.revocation_endpoint).toBe(`${t.base}/auth/o/revoke/`);
    expect(as.introspection_endpoint).toBe(`${t.base}/auth/o/introspect/`);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']),
    );
    expect(as.jwks_uri).toBeUndefined();
  });

  it('code + PKCE: the token calls the API and is capped by its scopes', async () => {
    const tokens = await userTokens('projects:read');
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('projects:read');
    expect(tokens.refresh_token).toBeTruthy();
    const bearer = { Authorization: `Bearer ${tokens.access_token}` };
    const me = await t.http.get('/api/v2/users/me/').set(bearer);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: ten.owner.id, principal_kind: 'oauth', scopes: ['projects:read'] });
    expect((await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/`).set(bearer)).status).toBe(200);
    // Outside the granted scope: 403 (the scope ceiling), even for the workspace owner.
    expect((await t.http.get(`/api/v2/workspaces/${ten.slug}/members/`).set(bearer)).status).toBe(403);
    expect((await t.http.post(`/api/v2/workspaces/${ten.slug}/projects/`).set(bearer).send({ name: 'x' })).status).toBe(
      403,
    );
  });

  /** A form-encoded token endpoint request with HTTP Basic client authentication (or none). */
  async function tokenRequest(body: Record<string, string>, auth: RegisteredApp | null = app) {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (auth?.client_secret)
      headers.authorization = `Basic ${Buffer.from(`${auth.client_id}:${auth.client_secret}`).toString('base64')}`;
    const res = await fetch(as.token_endpoint!, { method: 'POST', headers, body: new URLSearchParams(body) });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  }

  /** A code for `app` (signed in and approved), with its verifier. */
  async function code(forApp = app, scope = 'projects:read') {
    const req = await authorizationUrl(as, forApp.client_id, forApp.redirect_uris[0], scope);
    const back = await authorize(new FormBrowser(t.base), req.url, { email: ten.owner.email });
    expect(back.searchParams.get('state')).toBe(req.state);
    expect(back.searchParams.get('iss')).toBe(t.base);
    return { code: back.searchParams.get('code')!, verifier: req.codeVerifier, redirectUri: forApp.redirect_uris[0] };
  }

  const status = async (token: string) =>
    (await t.http.get('/api/v2/users/me/').set('Authorization', `Bearer ${token}`)).status;

  it('refresh rotates the refresh token; reusing an old one revokes the whole family', async () => {
    const first = await userTokens();
    const rotated = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, first.refresh_token!, INSECURE),
    );
    expect(rotated.refresh_token).toBeTruthy();
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    expect(rotated.scope).toBe('projects:read');
    expect(await status(rotated.access_token)).toBe(200);
    // The old refresh token again: refused, and every token of its grant is revoked at once.
    const replay = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token! });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await status(first.access_token)).toBe(401);
    expect(await status(rotated.access_token)).toBe(401);
    const again = await tokenRequest({ grant_type: 'refresh_token', refresh_token: rotated.refresh_token! });
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    const replays = await replayEntriesOf(t, ten, 'refresh_token_reused');
    expect(replays.at(-1)).toMatchObject({
      category: 'security',
      outcome: 'failure',
      reason: 'refresh_token_reused',
      source: 'auth',
      actor_id: ten.owner.id,
      actor_type: 'user',
    });
    const refreshed = await auditEntries(t, ten, { event_name: 'token.refreshed' });
    expect(refreshed.length).toBeGreaterThanOrEqual(1);
    const revoked = await auditEntries(t, ten, { event_name: 'token.revoked' });
    expect(revoked.filter((e) => e.reason === 'replay_detected').length).toBeGreaterThanOrEqual(2);
  });

  it('a code is single-use: presenting it again is refused and revokes the tokens it issued', async () => {
    const c = await code();
    const body = {
      grant_type: 'authorization_code',
      code: c.code,
      redirect_uri: c.redirectUri,
      code_verifier: c.verifier,
    };
    const first = await tokenRequest(body);
    expect(first.status).toBe(200);
    expect(await status(first.body.access_token)).toBe(200);
    const second = await tokenRequest(body);
    expect(second).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await status(first.body.access_token)).toBe(401);
    const refresh = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
    expect(refresh.body.error).toBe('invalid_grant');
    const replays = await replayEntriesOf(t, ten, 'authorization_code_reused');
    expect(replays.map((e) => e.reason)).toContain('authorization_code_reused');
  });

  it('refuses a wrong redirect URI, a missing or wrong code_verifier, a foreign code and an expired one (invalid_grant)', async () => {
    const other = await registerApp(t, ten.slug, { redirectUri: 'http://127.0.0.1:9/other' });
    const c = await code();
    const base = { grant_type: 'authorization_code', code: c.code, redirect_uri: c.redirectUri };
    const refused = (r: { status: number; body: Record<string, string> }) =>
      expect(r).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    refused(await tokenRequest({ ...base, code_verifier: c.verifier, redirect_uri: 'http://127.0.0.1:9/elsewhere' }));
    refused(await tokenRequest(base));
    refused(await tokenRequest({ ...base, code_verifier: oauth.generateRandomCodeVerifier() }));
    refused(await tokenRequest({ ...base, code_verifier: c.verifier, redirect_uri: other.redirect_uris[0] }, other));
    // None of these consumed it: the right request still works once.
    expect((await tokenRequest({ ...base, code_verifier: c.verifier })).status).toBe(200);

    const late = await code();
    await t.ds.query(
      `UPDATE oauth_artifacts SET payload = jsonb_set(payload, '{exp}', to_jsonb(floor(extract(epoch FROM now()))::bigint - 5))
        WHERE kind = 'AuthorizationCode' AND id_hash = $1`,
      [createHash('sha256').update(late.code).digest('hex')],
    );
    const expired = await tokenRequest({ ...base, code: late.code, code_verifier: late.verifier });
    refused(expired);
  });

  it('an unregistered redirect URI is never redirected to; a wrong client secret is invalid_client', async () => {
    const req = await authorizationUrl(as, app.client_id, 'http://127.0.0.1:9/evil', 'projects:read');
    const res = await fetch(req.url, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('invalid_redirect_uri');
    const bad = await tokenRequest(
      { grant_type: 'client_credentials' },
      { ...app, client_secret: 'wt_cs_not-the-secret' },
    );
    expect(bad).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('a public client must send PKCE (S256); without it the error goes back to the app', async () => {
    const pub = await registerApp(t, ten.slug, { isPublic: true, redirectUri: 'http://127.0.0.1:9/spa' });
    expect(pub.client_secret).toBeUndefined();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: pub.client_id,
      redirect_uri: 'http://127.0.0.1:9/spa',
      response_type: 'code',
      scope: 'read',
      state: 's1',
    }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe('http://127.0.0.1:9/spa');
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('state')).toBe('s1');
  });

  it('a scope the app may not ask for is invalid_scope', async () => {
    const req = await authorizationUrl(as, app.client_id, redirectUri, 'projects:read workspaces.members:write');
    const res = await fetch(req.url, { redirect: 'manual' });
    const back = new URL(res.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('invalid_scope');
  });

  it('denied consent issues nothing and is audited', async () => {
    const before = await t.ds.query(`SELECT count(*)::int AS n FROM oauth_tokens WHERE client_id = $1`, [
      app.client_id,
    ]);
    const req = await authorizationUrl(as, app.client_id, redirectUri, 'projects.work_items:read');
    const back = await authorize(new FormBrowser(t.base), req.url, { email: ten.owner.email }, 'deny');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
    expect(back.searchParams.get('state')).toBe(req.state);
    const after = await t.ds.query(`SELECT count(*)::int AS n FROM oauth_tokens WHERE client_id = $1`, [app.client_id]);
    expect(after[0].n).toBe(before[0].n);
    const denied = await auditEntries(t, ten, { event_name: 'oauth.consent_denied' });
    expect(denied.at(-1)).toMatchObject({ actor_id: ten.owner.id, outcome: 'failure', target_type: 'app' });
    const granted = await auditEntries(t, ten, { event_name: 'oauth.consent_granted' });
    expect(granted.length).toBeGreaterThan(0);
  });

  it('introspection (RFC 7662) answers for the app’s own tokens only; revocation (RFC 7009) is immediate', async () => {
    const tokens = await userTokens();
    const other = await registerApp(t, ten.slug, { redirectUri: 'http://127.0.0.1:9/third' });
    const introspect = async (by: RegisteredApp) =>
      oauth.processIntrospectionResponse(
        as,
        { client_id: by.client_id },
        await oauth.introspectionRequest(
          as,
          { client_id: by.client_id },
          oauth.ClientSecretBasic(by.client_secret!),
          tokens.access_token,
          INSECURE,
        ),
      );
    expect(await introspect(app)).toMatchObject({
      active: true,
      client_id: app.client_id,
      sub: ten.owner.id,
      scope: 'projects:read',
      token_type: 'Bearer',
    });
    expect(await introspect(other)).toEqual({ active: false });
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, tokens.access_token, INSECURE),
    );
    expect(await status(tokens.access_token)).toBe(401);
    expect(await introspect(app)).toEqual({ active: false });
    const revoked = await auditEntries(t, ten, { event_name: 'token.revoked' });
    expect(revoked.map((e) => e.reason)).toContain('revocation_request');
  });

  it('revocation takes effect at once on every instance (two instances, one database)', async () => {
    const second = await createApp(t.app.get<AppConfig>(APP_CONFIG), t.dbUrl, { logger: false });
    try {
      await second.getHttpAdapter().getInstance().ready();
      const tokens = await userTokens();
      const onSecond = async () =>
        (
          await second.inject({
            method: 'GET',
            url: '/api/v2/users/me/',
            headers: { authorization: `Bearer ${tokens.access_token}` },
          })
        ).statusCode;
      expect(await onSecond()).toBe(200); // now cached there
      expect(await onSecond()).toBe(200);
      await oauth.processRevocationResponse(
        await oauth.revocationRequest(as, client, clientAuth, tokens.refresh_token!, INSECURE),
      );
      await second.get(AuthCache).sync();
      expect(await onSecond()).toBe(401);
      expect(await status(tokens.access_token)).toBe(401);
    } finally {
      await second.close();
    }
  });

  it('client credentials: a bot token for the installation, shown as a bot in users/me and the audit trail', async () => {
    const botApp = await registerApp(t, ten.slug, { name: 'Builder', scopes: ['read', 'projects:write'] });
    const res = await tokenRequest(
      {
        grant_type: 'client_credentials',
        app_installation_id: botApp.app_installation_id,
        scope: 'read projects:write',
      },
      botApp,
    );
    expect(res).toMatchObject({ status: 200, body: { token_type: 'Bearer', scope: 'read projects:write' } });
    expect(res.body.refresh_token).toBeUndefined();
    const bearer = { Authorization: `Bearer ${res.body.access_token}` };
    const me = await t.http.get('/api/v2/users/me/').set(bearer);
    expect(me.body).toMatchObject({
      id: botApp.bot_user_id,
      principal_kind: 'bot',
      scopes: ['read', 'projects:write'],
    });
    const created = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/`)
      .set(bearer)
      .send({ name: 'Made by a bot' });
    expect(created.status).toBe(201);
    const entries = await auditEntries(t, ten, { event_name: 'project.created', target_id: created.body.id });
    expect(entries[0]).toMatchObject({ actor_type: 'bot', actor_id: botApp.bot_user_id });
    const issued = await auditEntries(t, ten, { event_name: 'token.issued', actor_id: botApp.bot_user_id });
    expect(issued[0]).toMatchObject({ actor_type: 'bot', source: 'auth' });
    // Capped by its scopes: no member management.
    expect((await t.http.get(`/api/v2/workspaces/${ten.slug}/members/`).set(bearer)).status).toBe(200);
    expect(
      (
        await t.http
          .post(`/api/v2/workspaces/${ten.slug}/members/remove/`)
          .set(bearer)
          .send({ member_id: ten.owner.id })
      ).status,
    ).toBe(403);
    // Another app's installation, or one that does not exist: invalid_grant.
    const wrong = await tokenRequest(
      { grant_type: 'client_credentials', app_installation_id: app.app_installation_id },
      botApp,
    );
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('app tokens reach only the app’s workspace (another workspace of the user is 404)', async () => {
    const elsewhere = await t.tenant();
    await t.admin.addMember(elsewhere.slug, ten.owner.email, 'owner');
    const tokens = await userTokens();
    const bearer = { Authorization: `Bearer ${tokens.access_token}` };
    expect((await t.http.get(`/api/v2/workspaces/${elsewhere.slug}/projects/`).set(bearer)).status).toBe(404);
    expect((await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/`).set(bearer)).status).toBe(200);
  });
});

describe('OAuth sign-in page', () => {
  let t: TestApp & { base: string };
  let ten: Tenant;
  let app: RegisteredApp;
  beforeAll(async () => {
    t = await listeningApp({
      oauth: { ...createTestAppDefaults(), signInRateLimit: { limit: 3, ttlMs: 60_000 } },
    });
    ten = await t.tenant();
    await setPassword(t, ten.owner.email);
    app = await registerApp(t, ten.slug);
  });
  afterAll(() => t?.close());

  async function loginPage() {
    const as = await discover(t.base);
    const req = await authorizationUrl(as, app.client_id, app.redirect_uris[0], 'read');
    const browser = new FormBrowser(t.base);
    const step = await browser.follow(req.url.href);
    return { browser, step, html: await step.res.text() };
  }

  it('is plain HTML with labelled fields, a CSRF token and safe cookies', async () => {
    const { step, html } = await loginPage();
    expect(step.res.status).toBe(200);
    expect(step.res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain('<label for="email">');
    expect(html).toContain('<label for="password">');
    expect(html).toMatch(/name="csrf" value="[^"]+"/);
    expect(html).not.toContain('<script');
    expect(step.res.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9");
  });

  it('refuses a form without its CSRF token (403)', async () => {
    const { browser, step, html } = await loginPage();
    const action = new URL(/action="([^"]+)"/.exec(html)![1], step.url).href;
    const res = await browser.request(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: ten.owner.email, password: PASSWORD_FOR_TEST, csrf: 'forged' }).toString(),
    });
    expect(res.status).toBe(403);
  });

  it('a wrong password is refused and audited; past the budget the page answers 429', async () => {
    const { browser, step, html } = await loginPage();
    const wrong = await browser.submit(step.url, html, { email: ten.owner.email, password: 'not the password' });
    expect(wrong.res.status).toBe(400);
    const page2 = await wrong.res.text();
    expect(page2).toContain('Wrong email or password.');
    // The budget is 3 attempts: two more wrong ones spend it, then even the right password waits.
    await browser.submit(wrong.url, page2, { email: ten.owner.email, password: 'still wrong' });
    await browser.submit(wrong.url, page2, { email: ten.owner.email, password: 'wrong again' });
    const limited = await browser.submit(wrong.url, page2, { email: ten.owner.email, password: PASSWORD_FOR_TEST });
    expect(limited.res.status).toBe(429);
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThan(0);
    const failed = await auditEntries(t, ten, { event_name: 'auth.sign_in_failed' });
    expect(failed.map((e) => e.reason)).toEqual(expect.arrayContaining(['wrong_password', 'rate_limited']));
    expect(failed[0]).toMatchObject({ outcome: 'failure', source: 'auth', actor_id: ten.owner.id });
  });
});
