import { generateKeyPairSync, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Configuration, InteractionResults, KoaContextWithOIDC } from 'oidc-provider';
import { DataSource } from 'typeorm';
import { AppsService } from '../apps/apps.service';
import { hashSecret } from '../common/auth/credentials';
import { SCOPES } from '../common/auth/scopes';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { OAuthAudit } from './oauth-audit';
import { oauthRequest, requestInfo } from './oauth-request';
import { OAuthStore } from './oauth-store';
import { oidcErrors, oidcProvider } from './oidc';
import { errorPage } from './pages';
import { ServerSecrets } from './server-secrets';

/** The authorization server's endpoints, as published (gap-reference 5) and in the metadata (RFC 8414). */
export const OAUTH_ROUTES = {
  authorization: '/auth/o/authorize/',
  token: '/auth/o/token/',
  revocation: '/auth/o/revoke/',
  introspection: '/auth/o/introspect/',
  metadata: '/.well-known/oauth-authorization-server',
};

/** What the RFC 8414 document keeps of oidc-provider's discovery document (no OpenID Connect members). */
const METADATA_KEYS = [
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'revocation_endpoint',
  'introspection_endpoint',
  'scopes_supported',
  'response_types_supported',
  'response_modes_supported',
  'grant_types_supported',
  'token_endpoint_auth_methods_supported',
  'revocation_endpoint_auth_methods_supported',
  'introspection_endpoint_auth_methods_supported',
  'code_challenge_methods_supported',
  'authorization_response_iss_parameter_supported',
];

/**
 * The OAuth 2.0 authorization server: oidc-provider (OpenID Certified, by the author of the oauth4webapi and
 * openid-client libraries) does the protocol work, this class the wiring: storage (OAuthStore), the accounts
 * (users), the apps (clients), token lifetimes, the sign-in and consent pages (interactions), and the hand-over
 * of requests from Fastify. docs/oauth.md says why this library and what is configured.
 */
@Injectable()
export class OAuthServer implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('OAuthServer');
  /** The provider and its request handler, made on first use (oidc.ts says why not at start). */
  private ready: Promise<{
    provider: Provider;
    handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  }> | null = null;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly ds: DataSource,
    private readonly store: OAuthStore,
    private readonly apps: AppsService,
    private readonly audit: OAuthAudit,
    private readonly secrets: ServerSecrets,
  ) {}

  onModuleInit(): void {
    this.sweeper = setInterval(() => void this.store.sweep().catch(() => undefined), 10 * 60_000);
    this.sweeper.unref();
  }

  /** The provider, made by the first request that needs it (concurrent first requests share it; a failure is retried). */
  private server() {
    this.ready ??= this.makeProvider().catch((err: unknown) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }

  private async makeProvider() {
    const cookieKey = await this.secrets.get('cookie_key');
    const { default: OidcProvider } = oidcProvider();
    const provider = new OidcProvider(this.cfg.publicBaseUrl, this.configuration(cookieKey));
    // Behind a load balancer (TRUST_PROXY), X-Forwarded-Proto decides whether cookies are Secure.
    provider.proxy = this.cfg.trustProxy;
    provider.use(async (ctx, next) => {
      await next();
      if (ctx.oidc?.route === 'discovery' && ctx.body && typeof ctx.body === 'object') {
        const doc = ctx.body as Record<string, unknown>;
        ctx.body = Object.fromEntries(METADATA_KEYS.filter((k) => doc[k] !== undefined).map((k) => [k, doc[k]]));
      }
    });
    provider.on('grant.error', (ctx: KoaContextWithOIDC, err: Error) => void this.onGrantError(provider, ctx, err));
    provider.on('server_error', (_ctx: KoaContextWithOIDC, err: Error) =>
      this.logger.error({ msg: 'authorization server error', err: err?.message }),
    );
    // Client secrets are stored as SHA-256 (apps.client_secret_hash): compare the hash of the one presented.
    (provider.Client.prototype as unknown as { compareClientSecret: (s: string) => boolean }).compareClientSecret =
      function (this: { clientSecret?: string }, actual: string) {
        const stored = Buffer.from(this.clientSecret ?? '');
        const given = Buffer.from(hashSecret(String(actual)));
        return stored.length === given.length && timingSafeEqual(stored, given);
      };
    return { provider, handler: provider.callback() };
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }

  /** Hands a request to the provider, which answers it on the raw response. */
  async handle(req: FastifyRequest, reply: FastifyReply, path?: string): Promise<void> {
    reply.hijack();
    // The provider routes on the URL the client sent (the public paths end with '/').
    req.raw.url = path
      ? path + (req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '')
      : req.originalUrl;
    const { handler } = await this.server();
    await oauthRequest.run(requestInfo(req), () => handler(req.raw, reply.raw));
  }

  async interactionDetails(req: FastifyRequest, reply: FastifyReply) {
    const { provider } = await this.server();
    return provider.interactionDetails(req.raw, reply.raw);
  }

  /** Stores the outcome of the sign-in or consent page; returns where the browser goes next (303). */
  async interactionResult(req: FastifyRequest, reply: FastifyReply, result: InteractionResults): Promise<string> {
    const { provider } = await this.server();
    return oauthRequest.run(requestInfo(req), () =>
      provider.interactionResult(req.raw, reply.raw, result, { mergeWithLastSubmission: true }),
    );
  }

  /** A grant with `scopes` added (the user approved them), saved; returns its id. */
  async grantScopes(grantId: string | undefined, accountId: string, clientId: string, scopes: string[]) {
    const { provider } = await this.server();
    const grant = (grantId && (await provider.Grant.find(grantId))) || new provider.Grant({ accountId, clientId });
    if (scopes.length) grant.addOIDCScope(scopes.join(' '));
    return grant.save();
  }

  private configuration(cookieKey: string): Configuration {
    const { oauth } = this.cfg;
    // Never used to sign anything: the `openid` scope is not offered, so no ID token is issued. The provider
    // wants one key all the same.
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    return {
      adapter: (model: string) => this.store.adapterFor(model),
      jwks: { keys: [{ ...jwk, use: 'sig', alg: 'ES256' }] as never },
      enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
      clientDefaults: { id_token_signed_response_alg: 'ES256' },
      scopes: Object.keys(SCOPES),
      responseTypes: ['code'],
      clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
      routes: {
        authorization: OAUTH_ROUTES.authorization,
        token: OAUTH_ROUTES.token,
        revocation: OAUTH_ROUTES.revocation,
        introspection: OAUTH_ROUTES.introspection,
      },
      cookies: cookieOptions(cookieKey),
      features: PROVIDER_FEATURES,
      pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
      interactions: { url: (_ctx, interaction) => `/auth/o/interaction/${interaction.uid}/` },
      findAccount: async (_ctx, sub) => {
        const rows: unknown[] = await this.ds.query(
          `SELECT 1 FROM users WHERE id = $1 AND deleted_at IS NULL AND is_active AND NOT is_bot`,
          [sub],
        );
        return rows.length ? { accountId: sub, claims: () => ({ sub }) } : undefined;
      },
      // Every code-flow grant gets a refresh token (Plane's user token), without the OpenID `offline_access` scope;
      // tokens outlive the sign-in session; every refresh rotates the refresh token.
      issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      expiresWithSession: () => false,
      rotateRefreshToken: true,
      allowOmittingSingleRegisteredRedirectUri: false,
      extraTokenClaims: (ctx, token) => this.installationClaims(ctx, token),
      ttl: {
        AccessToken: oauth.accessTokenTtlSeconds,
        ClientCredentials: oauth.accessTokenTtlSeconds,
        AuthorizationCode: oauth.codeTtlSeconds,
        RefreshToken: oauth.refreshTokenTtlSeconds,
        Grant: 365 * 86_400,
        Interaction: 3_600,
        Session: 12 * 3_600,
      },
      clientBasedCORS: (_ctx, origin, client) => client.redirectUris!.some((u) => URL.parse(u)?.origin === origin),
      renderError: (ctx, out) => {
        ctx.type = 'html';
        ctx.body = errorPage(String(out.error ?? 'error'), String(out.error_description ?? ''));
      },
    };
  }

  /**
   * A client-credentials token acts for an installation of the app (Plane's bot token: `app_installation_id` in
   * the token request, optional here when the app has one installation). Its id is kept with the token.
   */
  private async installationClaims(ctx: KoaContextWithOIDC, token: { kind: string }) {
    if (token.kind !== 'ClientCredentials') return undefined;
    const app = await this.apps.byClientId(ctx.oidc.client!.clientId);
    const named = ctx.oidc.body?.app_installation_id;
    if (named !== undefined && typeof named !== 'string')
      throw new (oidcErrors().InvalidRequest)('app_installation_id must be a string');
    const installation = app ? await this.apps.installationFor(app, named) : null;
    if (!installation) throw new (oidcErrors().InvalidGrant)('no such installation of this app');
    return { app_installation_id: installation.id };
  }

  /** A consumed code or rotated refresh token presented again: the provider revoked its grant's tokens. */
  private async onGrantError(provider: Provider, ctx: KoaContextWithOIDC, err: Error): Promise<void> {
    // The detail, not the description: the provider tells clients only "grant request is invalid".
    const detail = (err as { error_detail?: string }).error_detail ?? '';
    if (!/already (consumed|used)/.test(detail)) return;
    const clientId = ctx.oidc.client?.clientId;
    const app = clientId ? await this.apps.byClientId(clientId).catch(() => null) : null;
    if (!app) return;
    const code = ctx.oidc.params?.code as string | undefined;
    const source =
      ctx.oidc.entities.RefreshToken ??
      (code ? await provider.AuthorizationCode.find(code, { ignoreExpiration: true }) : undefined);
    await this.audit.recordNow({ userId: source?.accountId ?? null, kind: 'oauth' }, app.workspace_id, {
      event_name: 'oauth.replay_detected',
      category: 'security',
      outcome: 'failure',
      target_type: 'oauth_grant',
      target_id: source?.grantId ?? '',
      target_display_name: app.name,
      reason: code ? 'authorization_code_reused' : 'refresh_token_reused',
      metadata: { client_id: app.client_id, app_id: app.id, grant_id: source?.grantId ?? null },
    });
  }
}

/** The provider's features: no OpenID Connect extras; revocation and introspection of an app's own tokens. */
const PROVIDER_FEATURES: Configuration['features'] = {
  devInteractions: { enabled: false },
  userinfo: { enabled: false },
  dPoP: { enabled: false },
  rpInitiatedLogout: { enabled: false },
  clientCredentials: { enabled: true },
  revocation: {
    enabled: true,
    // RFC 7009: a token of another app is treated as unknown (200, nothing revoked).
    allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
  },
  introspection: {
    enabled: true,
    // RFC 7662 for the app's own tokens: another app's token is `{"active": false}`.
    allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
  },
};

function cookieOptions(cookieKey: string): Configuration['cookies'] {
  return {
    keys: [cookieKey],
    names: { session: 'wt_oauth_session', interaction: 'wt_oauth_interaction', resume: 'wt_oauth_resume' },
    long: { httpOnly: true, sameSite: 'lax' },
    short: { httpOnly: true, sameSite: 'lax' },
  };
}
