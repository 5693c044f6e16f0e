import { ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import { hashSecret } from '../auth/credentials';
import { SecurityEvents } from '../auth/security-events';
import { ProblemException } from '../errors/problem.exception';
import { ErrorCode } from '../errors/error-codes';

/**
 * Rate limiting runs before authentication: one budget per credential (the hash of the API key or
 * bearer token), or per client address when none is sent.
 */
@Injectable()
export class CredentialThrottlerGuard extends ThrottlerGuard {
  /** Records `rate_limit.exceeded` (aggregated) in the workspace of the path. */
  @Optional() @Inject(SecurityEvents) private readonly events?: SecurityEvents;

  protected override async getTracker(req: Record<string, any>): Promise<string> {
    const r = req as FastifyRequest;
    const key = r.headers['x-api-key'];
    if (typeof key === 'string' && key) return `key:${hashSecret(key)}`;
    const auth = r.headers.authorization;
    if (typeof auth === 'string' && /^Bearer\s+\S+/i.test(auth)) return `bearer:${hashSecret(auth.replace(/^Bearer\s+/i, '').trim())}`;
    return `ip:${r.ip}`;
  }

  /**
   * 429 rate_limited. The base guard sets Retry-After (seconds) only; the budget headers are set here
   * too, so every response, throttled or not, tells the client where it stands.
   */
  protected override async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const retryAfter = Math.max(1, detail.timeToBlockExpire);
    await this.events?.rateLimited(context.switchToHttp().getRequest<FastifyRequest>(), {
      tracker: detail.tracker,
      limit: detail.limit,
      ttlMs: detail.ttl,
      retryAfterSeconds: retryAfter,
    });
    throw new ProblemException(
      ErrorCode.RateLimited,
      `Rate limit of ${detail.limit} requests per ${Math.round(detail.ttl / 1000)} s exceeded. Retry after ${retryAfter} s.`,
      undefined,
      {
        'Retry-After': String(retryAfter),
        'X-RateLimit-Limit': String(detail.limit),
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(retryAfter),
      },
    );
  }
}
