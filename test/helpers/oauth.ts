import { createServer } from 'node:net';
import * as oauth from 'oauth4webapi';
import { AppsService } from '../../src/apps/apps.service';
import { PasswordsService } from '../../src/users/passwords.service';
import { createTestApp, TestApp } from './test-app';

export const PASSWORD = 'correct horse battery staple';
/** oauth4webapi refuses plain http unless told: the tests serve on http://127.0.0.1. */
export const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** The app listening on 127.0.0.1 at the address of its PUBLIC_BASE_URL (the issuer clients check). */
export async function listeningApp(
  overrides: Parameters<typeof createTestApp>[0] = {},
): Promise<TestApp & { base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ publicBaseUrl: base, ...overrides });
  await t.app.listen({ port, host: '127.0.0.1' });
  return Object.assign(t, { base });
}

export interface RegisteredApp {
  client_id: string;
  client_secret?: string;
  app_installation_id: string;
  bot_user_id: string;
  redirect_uris: string[];
}

export async function registerApp(
  t: TestApp,
  workspace: string,
  opts: { redirectUri?: string; scopes?: string[]; isPublic?: boolean; name?: string } = {},
): Promise<RegisteredApp> {
  return t.app.get(AppsService).create({
    workspace,
    name: opts.name ?? 'Test App',
    redirectUris: [opts.redirectUri ?? 'http://127.0.0.1:9/callback'],
    scopes: opts.scopes,
    isPublic: opts.isPublic,
  });
}

export function setPassword(t: TestApp, email: string, password = PASSWORD) {
  return t.app.get(PasswordsService).setPassword(email, password);
}

export async function discover(base: string): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(base);
  const res = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...INSECURE });
  return oauth.processDiscoveryResponse(issuer, res);
}

/** A browser without JavaScript: a cookie jar, forms posted by hand, redirects followed until they leave `base`. */
export class FormBrowser {
  private readonly jar = new Map<string, string>();
  constructor(private readonly base: string) {}

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size) headers.set('cookie', [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
      if (/expires=Thu, 01 Jan 1970/i.test(c) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return res;
  }

  /** Follows redirects within this server; returns the last response and the URL that left it (if any). */
  async follow(url: string, init: RequestInit = {}): Promise<{ res: Response; url: string; left?: URL }> {
    let res = await this.request(url, init);
    let at = url;
    while (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location')!, at);
      if (next.origin !== this.base) return { res, url: at, left: next };
      at = next.href;
      res = await this.request(at);
    }
    return { res, url: at };
  }

  /** Posts the page's form (csrf from the page) with `fields`. */
  async submit(pageUrl: string, html: string, fields: Record<string, string>) {
    const action = /<form method="post" action="([^"]+)"/.exec(html)![1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1];
    return this.follow(new URL(action, pageUrl).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, ...fields }).toString(),
    });
  }
}

/**
 * Runs the authorization request in a FormBrowser: signs in (unless the session is signed in already) and answers
 * the consent page (approve or deny). Returns the redirect to the app (its query holds code or error).
 */
export async function authorize(
  browser: FormBrowser,
  authorizationUrl: URL,
  user: { email: string; password?: string },
  decision: 'approve' | 'deny' = 'approve',
): Promise<URL> {
  let step = await browser.follow(authorizationUrl.href);
  for (let i = 0; i < 4 && !step.left; i++) {
    const html = await step.res.text();
    if (html.includes('name="password"')) {
      step = await browser.submit(step.url, html, { email: user.email, password: user.password ?? PASSWORD });
    } else if (html.includes('name="decision"')) {
      step = await browser.submit(step.url, html, { decision });
    } else {
      throw new Error(`unexpected page ${step.res.status} at ${step.url}: ${html.replace(/[\s\S]*<main>/, '')}`);
    }
  }
  if (!step.left) throw new Error('the flow did not return to the app');
  return step.left;
}

/** An authorization URL with PKCE (S256) and state. */
export async function authorizationUrl(
  as: oauth.AuthorizationServer,
  clientId: string,
  redirectUri: string,
  scope: string,
) {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', scope);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', state);
  return { url, codeVerifier, state };
}
