import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, ThrottlerStorage } from '@nestjs/throttler';
import { DataSource } from 'typeorm';
import { AuditActor, AuditService } from '../audit/audit.service';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { fitVarchar } from '../common/database/columns';
import { PasswordsService } from '../users/passwords.service';
import { UsersService } from '../users/users.service';
import { OAuthRequestInfo } from './oauth-request';

export type SignInOutcome =
  | { ok: true; user: { id: string; email: string; display_name: string } }
  | { ok: false; reason: 'invalid_credentials' }
  | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number };

/**
 * The sign-in page's check of an email and password. Attempts count against two budgets in the rate limiter's
 * storage (memory, or Redis shared by instances when REDIS_URL is set): the client address and the account, each
 * SIGN_IN_RATE_LIMIT_MAX per SIGN_IN_RATE_LIMIT_WINDOW_SECONDS, so neither one address nor many addresses can guess
 * a password quickly. Every attempt is audited (`auth.sign_in`, `auth.sign_in_failed`).
 */
@Injectable()
export class SignInService {
  constructor(
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    private readonly ds: DataSource,
    private readonly users: UsersService,
    private readonly passwords: PasswordsService,
    private readonly audit: AuditService,
  ) {}

  async signIn(req: OAuthRequestInfo, emailInput: string, password: string, clientId: string): Promise<SignInOutcome> {
    const email = fitVarchar(emailInput.trim().toLowerCase(), 320);
    const user = await this.users.signInCandidate(email);
    const retryAfter = await this.spend(req.ip ?? 'unknown', email);
    const actor = (u: typeof user): AuditActor => ({
      source: 'auth',
      actor_type: u ? 'user' : 'anonymous',
      actor_id: u?.id ?? null,
      actor_display_name: u?.display_name ?? '',
      actor_email: u?.email ?? email,
      ip_address: req.ip,
      user_agent: req.userAgent,
    });
    const metadata = { client_id: clientId, request_id: req.requestId };
    if (retryAfter !== null) {
      await this.recordFailure(user, actor(user), 'rate_limited', { ...metadata, email });
      return { ok: false, reason: 'rate_limited', retryAfterSeconds: retryAfter };
    }
    if (!user || !(await this.passwords.verify(user.password_hash, password))) {
      const reason = !user ? 'unknown_account' : user.password_hash ? 'wrong_password' : 'no_password_set';
      await this.recordFailure(user, actor(user), reason, { ...metadata, email });
      return { ok: false, reason: 'invalid_credentials' };
    }
    await this.audit.recordForUser(this.ds, actor(user), user.id, {
      event_name: 'auth.sign_in',
      category: 'auth',
      target_type: 'user',
      target_id: user.id,
      target_display_name: user.display_name,
      metadata,
    });
    return { ok: true, user: { id: user.id, email: user.email, display_name: user.display_name } };
  }

  /** Counts the attempt against both budgets; the seconds to wait when either is spent, else null. */
  private async spend(ip: string, email: string): Promise<number | null> {
    const { limit, ttlMs } = this.cfg.oauth.signInRateLimit;
    const account = createHash('sha256').update(email).digest('hex');
    let wait: number | null = null;
    for (const key of [`sign-in:ip:${ip}`, `sign-in:account:${account}`]) {
      const r = await this.storage.increment(key, ttlMs, limit, ttlMs, 'sign-in');
      if (r.isBlocked) wait = Math.max(wait ?? 0, Math.max(1, r.timeToBlockExpire));
    }
    return wait;
  }

  /** A known account's failure goes to its workspaces' trails; an unknown one to the instance trail. */
  private async recordFailure(
    user: { id: string; display_name: string } | null,
    actor: AuditActor,
    reason: string,
    metadata: Record<string, unknown>,
  ): Promise<void> {
    const event = {
      event_name: 'auth.sign_in_failed',
      category: 'auth' as const,
      outcome: 'failure' as const,
      target_type: 'user',
      target_id: user?.id ?? '',
      target_display_name: user?.display_name ?? '',
      reason,
      metadata,
    };
    if (user) await this.audit.recordForUser(this.ds, actor, user.id, event);
    else await this.audit.recordInstance(this.ds, actor, event);
  }
}
