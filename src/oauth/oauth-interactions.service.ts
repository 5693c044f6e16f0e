import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppRow } from '../apps/apps.service';
import { AppsService } from '../apps/apps.service';
import { isKnownScope } from '../common/auth/scopes';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { MembersService } from '../members/members.service';
import { UsersService } from '../users/users.service';
import { Csrf } from './csrf';
import { OAuthAudit } from './oauth-audit';
import { requestInfo } from './oauth-request';
import { OAuthServer } from './oauth-server';
import { oidcErrors } from './oidc';
import { consentPage, errorPage, loginPage } from './pages';
import { ServerSecrets } from './server-secrets';
import { SignInService } from './sign-in.service';

type Details = Awaited<ReturnType<OAuthServer['interactionDetails']>>;
export type FormBody = Record<string, string | undefined> | undefined;

/**
 * The sign-in and consent pages of the authorization flow (oidc-provider's interactions): plain HTML forms that
 * work without JavaScript, protected by the interaction's own cookie (HttpOnly, SameSite=Lax, Secure over https)
 * and a CSRF token. Consent is given for the app's workspace, by one of its active members.
 */
@Injectable()
export class OAuthInteractions implements OnModuleInit {
  private csrf!: Csrf;

  constructor(
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly server: OAuthServer,
    private readonly apps: AppsService,
    private readonly signIn: SignInService,
    private readonly members: MembersService,
    private readonly users: UsersService,
    private readonly audit: OAuthAudit,
    private readonly secrets: ServerSecrets,
  ) {}

  async onModuleInit(): Promise<void> {
    this.csrf = new Csrf(await this.secrets.get('csrf_key'), this.cfg.publicBaseUrl.startsWith('https://'));
  }

  async show(req: FastifyRequest, reply: FastifyReply, uid: string): Promise<void> {
    const found = await this.load(req, reply, uid);
    if (!found) return;
    const { details, app } = found;
    if (details.prompt.name === 'login') return this.login(req, reply, details, app);
    const accountId = details.session!.accountId;
    if (!(await this.isMember(app, accountId))) return this.redirect(reply, await this.notMember(req, reply, app));
    const user = await this.users.findById(accountId);
    const requested = (typeof details.params.scope === 'string' ? details.params.scope : '')
      .split(' ')
      .filter(isKnownScope);
    const html = consentPage({
      action: `/auth/o/interaction/${uid}/consent/`,
      csrf: this.csrf.issue(req, reply, uid),
      appName: app.name,
      workspaceName: app.workspace_name ?? '',
      userEmail: user?.email ?? '',
      scopes: requested,
    });
    this.render(reply, 200, html, app);
  }

  async submitLogin(req: FastifyRequest, reply: FastifyReply, uid: string, body: FormBody): Promise<void> {
    const found = await this.load(req, reply, uid, body);
    if (!found) return;
    const { details, app } = found;
    if (details.prompt.name !== 'login') return this.fail(reply, 400, 'invalid_request', 'You are signed in already.');
    const outcome = await this.signIn.signIn(requestInfo(req), body?.email ?? '', body?.password ?? '', app.client_id);
    if (outcome.ok) {
      const url = await this.server.interactionResult(req, reply, { login: { accountId: outcome.user.id } });
      return this.redirect(reply, url);
    }
    if (outcome.reason === 'rate_limited') {
      reply.header('Retry-After', String(outcome.retryAfterSeconds));
      const error = `Too many sign-in attempts. Try again in ${outcome.retryAfterSeconds} seconds.`;
      return this.login(req, reply, details, app, 429, error, body?.email);
    }
    return this.login(req, reply, details, app, 400, 'Wrong email or password.', body?.email);
  }

  async submitConsent(req: FastifyRequest, reply: FastifyReply, uid: string, body: FormBody): Promise<void> {
    const found = await this.load(req, reply, uid, body);
    if (!found) return;
    const { details, app } = found;
    if (details.prompt.name !== 'consent') return this.fail(reply, 400, 'invalid_request', 'Sign in first.');
    const accountId = details.session!.accountId;
    if (!(await this.isMember(app, accountId))) return this.redirect(reply, await this.notMember(req, reply, app));
    const scopes = ((details.prompt.details.missingOIDCScope as string[] | undefined) ?? []).filter(isKnownScope);
    const who = { userId: accountId, kind: 'oauth' as const };
    const event = { target_type: 'app', target_id: app.id, target_display_name: app.name };
    const metadata = { client_id: app.client_id, redirect_uri: details.params.redirect_uri };
    if (body?.decision !== 'approve') {
      await this.audit.recordNow(who, app.workspace_id, {
        ...event,
        event_name: 'oauth.consent_denied',
        category: 'integration',
        outcome: 'failure',
        reason: 'access_denied',
        metadata: { ...metadata, scopes },
      });
      const url = await this.server.interactionResult(req, reply, {
        error: 'access_denied',
        error_description: 'The user denied the request.',
      });
      return this.redirect(reply, url);
    }
    const grantId = await this.server.grantScopes(details.grantId, accountId, app.client_id, scopes);
    await this.audit.recordNow(who, app.workspace_id, {
      ...event,
      event_name: 'oauth.consent_granted',
      category: 'integration',
      new_value: { scopes },
      metadata: { ...metadata, grant_id: grantId },
    });
    const url = await this.server.interactionResult(req, reply, { consent: { grantId } });
    return this.redirect(reply, url);
  }

  /** The interaction of this browser (its cookie) and its app; answers with an error page when there is none. */
  private async load(
    req: FastifyRequest,
    reply: FastifyReply,
    uid: string,
    form?: FormBody,
  ): Promise<{ details: Details; app: AppRow } | null> {
    let details: Details;
    try {
      details = await this.server.interactionDetails(req, reply);
    } catch (err) {
      if (!(err instanceof oidcErrors().SessionNotFound)) throw err;
      this.fail(reply, 400, 'invalid_request', 'This sign-in request has expired or belongs to another browser.');
      return null;
    }
    const app = details.uid === uid ? await this.apps.byClientId(String(details.params.client_id)) : null;
    if (!app) {
      this.fail(reply, 400, 'invalid_request', 'This sign-in request is not valid.');
      return null;
    }
    if (form !== undefined || req.method === 'POST') {
      if (!this.csrf.verify(req, uid, form?.csrf)) {
        this.fail(
          reply,
          403,
          'invalid_request',
          'The form expired or did not come from this page. Reload it and try again.',
        );
        return null;
      }
    }
    return { details, app };
  }

  private login(
    req: FastifyRequest,
    reply: FastifyReply,
    details: Details,
    app: AppRow,
    status = 200,
    error?: string,
    email?: string,
  ): void {
    const html = loginPage({
      action: `/auth/o/interaction/${details.uid}/login/`,
      csrf: this.csrf.issue(req, reply, details.uid),
      appName: app.name,
      workspaceName: app.workspace_name ?? '',
      error,
      email,
    });
    this.render(reply, status, html, app);
  }

  private async isMember(app: AppRow, userId: string): Promise<boolean> {
    return !!(await this.members.workspaceMemberByUser(app.workspace_id, userId));
  }

  private notMember(req: FastifyRequest, reply: FastifyReply, app: AppRow): Promise<string> {
    return this.server.interactionResult(req, reply, {
      error: 'access_denied',
      error_description: `The signed-in user is not a member of the workspace ${app.workspace_slug ?? ''}.`,
    });
  }

  /**
   * An HTML page, never cached. Its Content-Security-Policy allows the form to lead to the app's redirect URIs:
   * browsers apply form-action to the redirects that follow a form post.
   */
  private render(reply: FastifyReply, status: number, html: string, app?: AppRow): void {
    const origins = [...new Set((app?.redirect_uris ?? []).map((u) => new URL(u).origin))];
    reply
      .status(status)
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Cache-Control', 'no-store')
      .header(
        'Content-Security-Policy',
        `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${origins.join(' ')}; frame-ancestors 'none'; base-uri 'none'`,
      )
      .send(html);
  }

  private fail(reply: FastifyReply, status: number, error: string, description: string): void {
    this.render(reply, status, errorPage(error, description));
  }

  private redirect(reply: FastifyReply, url: string): void {
    reply.header('Cache-Control', 'no-store').redirect(url, 303);
  }
}
