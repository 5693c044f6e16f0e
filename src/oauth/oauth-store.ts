import { Injectable, Optional } from '@nestjs/common';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { DataSource } from 'typeorm';
import { AppsService } from '../apps/apps.service';
import { AuthCache } from '../common/auth/auth-cache';
import { hashSecret } from '../common/auth/credentials';
import { Queryable } from '../common/pagination/sql-params';
import { OAuthAudit, revocationReason } from './oauth-audit';
import { oidcErrors } from './oidc';

/** The provider's models kept in oauth_tokens, where the AuthGuard resolves bearer tokens. */
const TOKEN_MODELS = new Set(['AccessToken', 'ClientCredentials']);

interface TokenRow {
  id: string;
  user_id: string;
  workspace_id: string;
  client_id: string;
  client_name: string;
  principal_kind: 'oauth' | 'bot';
  grant_id: string | null;
}

const TOKEN_RETURNING = 'id, user_id, workspace_id, client_id, client_name, principal_kind, grant_id';

/**
 * The authorization server's storage (oidc-provider's adapter interface) in PostgreSQL. Access and
 * client-credentials tokens are rows of oauth_tokens, the table the AuthGuard reads, so a token is usable the
 * moment it is issued and unusable the moment it is revoked, on every instance (the table's trigger notifies
 * every instance's auth cache). Codes, refresh tokens, grants, sessions and interactions are rows of
 * oauth_artifacts. Every key is stored as its SHA-256: the ids of tokens, codes and sessions are the secrets.
 * Issuing and revoking tokens are audited in the same transaction.
 */
/** Stores a token the provider issued (a replayed save only refreshes its payload); `inserted` tells which. */
const UPSERT_TOKEN = `INSERT INTO oauth_tokens (user_id, token_hash, scopes, client_name, expires_at, client_id, grant_id, workspace_id,
                             app_installation_id, principal_kind, payload)
   VALUES ($1, $2, $3, $4, to_timestamp($5), $6, $7, $8, $9, $10, $11)
   ON CONFLICT (token_hash) DO UPDATE SET payload = EXCLUDED.payload
   RETURNING ${TOKEN_RETURNING}, expires_at, (xmax = 0) AS inserted`;

@Injectable()
export class OAuthStore {
  constructor(
    private readonly ds: DataSource,
    private readonly apps: AppsService,
    private readonly audit: OAuthAudit,
    @Optional() private readonly authCache?: AuthCache,
  ) {}

  /** The adapter of one model, as oidc-provider asks for it. */
  adapterFor(model: string): Adapter {
    if (model === 'Client') return this.clientAdapter();
    if (TOKEN_MODELS.has(model)) return this.tokenAdapter(model as 'AccessToken' | 'ClientCredentials');
    return this.artifactAdapter(model);
  }

  /** Clients are the registered apps (read only): confidential ones hold the SHA-256 of their secret. */
  private clientAdapter(): Adapter {
    const refuse = () => Promise.reject(new Error('apps are registered with the admin CLI'));
    return {
      find: async (clientId) => {
        const app = await this.apps.byClientId(clientId);
        if (!app) return undefined;
        const confidential = app.client_secret_hash !== null;
        return {
          client_id: app.client_id,
          client_name: app.name,
          ...(confidential ? { client_secret: app.client_secret_hash! } : {}),
          token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
          redirect_uris: app.redirect_uris,
          response_types: ['code'],
          grant_types: ['authorization_code', 'refresh_token', ...(confidential ? ['client_credentials'] : [])],
          scope: app.scopes.join(' '),
        };
      },
      upsert: refuse,
      findByUid: refuse,
      findByUserCode: refuse,
      consume: refuse,
      destroy: refuse,
      revokeByGrantId: () => Promise.resolve(),
    };
  }

  private tokenAdapter(model: 'AccessToken' | 'ClientCredentials'): Adapter {
    return {
      upsert: (id, payload) => this.upsertToken(model, id, payload),
      find: async (id) => {
        const rows: Array<{ payload: AdapterPayload }> = await this.ds.query(
          `SELECT payload FROM oauth_tokens WHERE token_hash = $1 AND revoked_at IS NULL AND payload IS NOT NULL`,
          [hashSecret(id)],
        );
        return rows[0]?.payload;
      },
      destroy: (id) => this.revokeTokens(`token_hash = $1`, hashSecret(id)),
      revokeByGrantId: (grantId) => this.revokeTokens(`grant_id = $1`, grantId),
      findByUid: () => Promise.resolve(undefined),
      findByUserCode: () => Promise.resolve(undefined),
      consume: () => Promise.resolve(),
    };
  }

  private async upsertToken(model: 'AccessToken' | 'ClientCredentials', id: string, payload: AdapterPayload) {
    const app = await this.apps.byClientId(String(payload.clientId));
    if (!app) throw new Error(`token of an unknown client ${payload.clientId}`);
    const installationId = (payload.extra as { app_installation_id?: string } | undefined)?.app_installation_id;
    const installation = installationId ? await this.apps.installationById(installationId) : null;
    const bot = model === 'ClientCredentials';
    if (bot && !installation) throw new Error('client-credentials token without an installation');
    const userId = bot ? installation!.bot_user_id : String(payload.accountId);
    const workspaceId = bot ? installation!.workspace_id : app.workspace_id;
    const scopes = String(payload.scope ?? '')
      .split(' ')
      .filter(Boolean);
    const grantType = bot ? 'client_credentials' : String(payload.gty ?? '');
    await this.ds.transaction(async (m) => {
      const rows: Array<TokenRow & { expires_at: Date; inserted: boolean }> = await m.query(UPSERT_TOKEN, [
        userId,
        hashSecret(id),
        scopes,
        app.name,
        payload.exp,
        app.client_id,
        payload.grantId ?? null,
        workspaceId,
        installation?.id ?? null,
        bot ? 'bot' : 'oauth',
        payload,
      ]);
      const t = rows[0];
      if (!t.inserted) return;
      await this.audit.record(m, { userId, kind: bot ? 'bot' : 'oauth' }, workspaceId, {
        event_name: grantType.endsWith('refresh_token') ? 'token.refreshed' : 'token.issued',
        category: 'auth',
        target_type: 'oauth_token',
        target_id: t.id,
        target_display_name: app.name,
        new_value: {
          id: t.id,
          user_id: userId,
          scopes,
          expires_at: new Date(t.expires_at).toISOString(),
          client_name: app.name,
          client_id: app.client_id,
          grant_type: grantType,
        },
        metadata: {
          app_id: app.id,
          client_id: app.client_id,
          grant_id: payload.grantId ?? null,
          principal_kind: bot ? 'bot' : 'oauth',
          ...(installation ? { app_installation_id: installation.id } : {}),
        },
      });
    });
  }

  /** Revokes live tokens matching `where` ($1 = `value`), each audited `token.revoked`; caches forget them. */
  private async revokeTokens(where: string, value: string): Promise<void> {
    const reason = revocationReason();
    try {
      await this.ds.transaction(async (m) => {
        const [rows]: [TokenRow[], number] = await m.query(
          `UPDATE oauth_tokens SET revoked_at = now() WHERE ${where} AND revoked_at IS NULL AND client_id IS NOT NULL
           RETURNING ${TOKEN_RETURNING}`,
          [value],
        );
        for (const t of rows) await this.recordRevoked(m, t, reason);
      });
    } finally {
      this.authCache?.invalidate();
    }
  }

  private recordRevoked(m: Queryable, t: TokenRow, reason: string): Promise<void> {
    return this.audit.record(m, { userId: t.user_id, kind: t.principal_kind }, t.workspace_id, {
      event_name: 'token.revoked',
      category: 'auth',
      target_type: 'oauth_token',
      target_id: t.id,
      target_display_name: t.client_name,
      old_value: { revoked_at: null },
      new_value: { revoked_at: new Date().toISOString() },
      reason,
      metadata: { client_id: t.client_id, grant_id: t.grant_id, principal_kind: t.principal_kind },
    });
  }

  /** Codes, refresh tokens, grants, sessions, interactions: one table, keyed by kind and the id's SHA-256. */
  private artifactAdapter(kind: string): Adapter {
    return {
      upsert: async (id, payload, expiresIn) => {
        await this.ds.query(
          `INSERT INTO oauth_artifacts (kind, id_hash, payload, grant_id, uid, expires_at)
           VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::int IS NULL THEN NULL ELSE now() + make_interval(secs => $6::int) END)
           ON CONFLICT (kind, id_hash) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
             uid = EXCLUDED.uid, expires_at = EXCLUDED.expires_at`,
          [kind, hashSecret(id), payload, payload.grantId ?? null, payload.uid ?? null, expiresIn ?? null],
        );
      },
      find: async (id) => {
        const rows: Array<{ payload: AdapterPayload }> = await this.ds.query(
          `SELECT payload FROM oauth_artifacts WHERE kind = $1 AND id_hash = $2`,
          [kind, hashSecret(id)],
        );
        return rows[0]?.payload;
      },
      findByUid: async (uid) => {
        const rows: Array<{ payload: AdapterPayload }> = await this.ds.query(
          `SELECT payload FROM oauth_artifacts WHERE kind = $1 AND uid = $2`,
          [kind, uid],
        );
        return rows[0]?.payload;
      },
      findByUserCode: () => Promise.resolve(undefined),
      // Marks it consumed only if it was not: of two requests racing with one code, one wins (the other is refused
      // by the provider's own check on its next read, or here).
      consume: async (id) => {
        const [rows]: [unknown[], number] = await this.ds.query(
          `UPDATE oauth_artifacts SET consumed_at = now(),
                  payload = payload || jsonb_build_object('consumed', floor(extract(epoch FROM now()))::bigint)
            WHERE kind = $1 AND id_hash = $2 AND consumed_at IS NULL RETURNING 1`,
          [kind, hashSecret(id)],
        );
        if (!rows.length) throw new (oidcErrors().InvalidGrant)(`${kind} already consumed`);
      },
      destroy: async (id) => {
        await this.ds.query(`DELETE FROM oauth_artifacts WHERE kind = $1 AND id_hash = $2`, [kind, hashSecret(id)]);
      },
      // Codes of a revoked grant stay, consumed: one presented again is still recognised as a replay.
      revokeByGrantId: async (grantId) => {
        await this.ds.query(
          kind === 'AuthorizationCode'
            ? `UPDATE oauth_artifacts SET consumed_at = coalesce(consumed_at, now()),
                      payload = payload || jsonb_build_object('consumed', floor(extract(epoch FROM now()))::bigint)
                WHERE kind = $1 AND grant_id = $2`
            : `DELETE FROM oauth_artifacts WHERE kind = $1 AND grant_id = $2`,
          [kind, grantId],
        );
      },
    };
  }

  /** Drops records that expired more than a day ago (kept that long so a late replay is still recognised). */
  async sweep(): Promise<void> {
    await this.ds.query(`DELETE FROM oauth_artifacts WHERE expires_at < now() - interval '1 day'`);
  }
}
