import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor, AuditService, UserAuditEvent } from '../audit/audit.service';
import { Queryable } from '../common/pagination/sql-params';
import { oauthRequest } from './oauth-request';

/** A user or bot as the authorization server's events name them: the owner of the grant or token. */
export interface OAuthPrincipal {
  userId: string | null;
  kind: 'oauth' | 'bot';
}

/** The audit trail of the authorization server: every event goes to the app's workspace (source `auth`). */
@Injectable()
export class OAuthAudit {
  private readonly logger = new Logger('OAuthAudit');

  constructor(
    private readonly ds: DataSource,
    private readonly audit: AuditService,
  ) {}

  /** The actor of an authorization server event: the token's owner, at the address of the request served. */
  async actor(db: Queryable, who: OAuthPrincipal): Promise<AuditActor> {
    const req = oauthRequest.getStore();
    const users: Array<{ email: string; display_name: string }> = who.userId
      ? await db.query(`SELECT email, display_name FROM users WHERE id = $1`, [who.userId])
      : [];
    return {
      source: 'auth',
      actor_type: who.userId ? (who.kind === 'bot' ? 'bot' : 'user') : 'anonymous',
      actor_id: who.userId,
      actor_display_name: users[0]?.display_name ?? '',
      actor_email: users[0]?.email ?? '',
      ip_address: req?.ip ?? null,
      user_agent: req?.userAgent ?? '',
    };
  }

  /** Records in `db`'s transaction (the change it describes commits with it). */
  async record(db: Queryable, who: OAuthPrincipal, workspaceId: string, e: UserAuditEvent): Promise<void> {
    const req = oauthRequest.getStore();
    await this.audit.record(db, await this.actor(db, who), {
      ...e,
      workspace_id: workspaceId,
      metadata: { ...(e.metadata ?? {}), ...(req ? { path: req.path, request_id: req.requestId } : {}) },
    });
  }

  /** Records on its own (an event with no change of its own to commit with); never fails the request. */
  async recordNow(who: OAuthPrincipal, workspaceId: string, e: UserAuditEvent): Promise<void> {
    try {
      await this.record(this.ds, who, workspaceId, e);
    } catch (err) {
      this.logger.error({ msg: 'could not record an OAuth event in the audit trail', err: (err as Error)?.message });
    }
  }
}

/** Why tokens were revoked, from the endpoint whose request revoked them. */
export function revocationReason(): string {
  const path = oauthRequest.getStore()?.path ?? '';
  if (path.startsWith('/auth/o/token')) return 'replay_detected';
  if (path.startsWith('/auth/o/revoke')) return 'revocation_request';
  return 'grant_revoked';
}
