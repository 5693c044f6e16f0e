import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ADMIN_ACTOR, AuditActor, AuditService } from '../audit/audit.service';
import { hashSecret, newAccessToken } from '../common/auth/credentials';
import { RequestContext } from '../common/auth/request-context';
import { isKnownScope } from '../common/auth/scopes';
import { ProblemException } from '../common/errors/problem.exception';
import { Queryable } from '../common/pagination/sql-params';

export const ACCESS_TOKEN_TTL_SECONDS = 86400;

/**
 * OAuth access tokens, capped by their scopes; stored only as SHA-256. Issuing one is audited
 * (`token.issued`, category auth) in every workspace of its user, in the issuing transaction.
 */
@Injectable()
export class OAuthTokensService {
  constructor(
    private readonly ds: DataSource,
    private readonly audit: AuditService,
  ) {}

  async issue(
    userId: string,
    scopes: string[],
    ttlSeconds = ACCESS_TOKEN_TTL_SECONDS,
    db?: Queryable,
    actor: AuditActor | RequestContext = ADMIN_ACTOR,
  ) {
    const unknown = scopes.filter((s) => !isKnownScope(s));
    if (!scopes.length) throw ProblemException.validation('scopes', 'Give at least one scope.');
    if (unknown.length) throw ProblemException.validation('scopes', `Unknown scope(s): ${unknown.join(', ')}.`);
    const granted = [...new Set(scopes)];
    const run = async (tx: Queryable) => {
      const token = newAccessToken();
      const rows = await tx.query(
        `INSERT INTO oauth_tokens (user_id, token_hash, scopes, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4)) RETURNING id, client_name, expires_at`,
        [userId, hashSecret(token), granted, ttlSeconds],
      );
      const r = rows[0];
      await this.audit.recordForUser(tx, actor, userId, {
        event_name: 'token.issued',
        category: 'auth',
        target_type: 'oauth_token',
        target_id: r.id,
        target_display_name: r.client_name || 'OAuth access token',
        new_value: {
          id: r.id,
          user_id: userId,
          scopes: granted,
          expires_at: new Date(r.expires_at).toISOString(),
          client_name: r.client_name,
        },
      });
      return { id: r.id as string, access_token: token, token_type: 'Bearer', expires_in: ttlSeconds, scopes: granted };
    };
    return db ? run(db) : this.ds.transaction(run);
  }
}
