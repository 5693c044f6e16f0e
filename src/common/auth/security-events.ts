import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { RequestContext } from './request-context';

/** A throttled request: the limit it exceeded and the budget it counted against (never the credential). */
export interface RateLimitInfo {
  /** The throttler's tracker (`key:<sha256>`, `bearer:<sha256>` or `ip:<address>`). */
  tracker: string;
  limit: number;
  ttlMs: number;
  retryAfterSeconds: number;
}

/**
 * Hook points for security-relevant failures seen by the guards (authentication failed, permission
 * denied, rate limited): a port of the foundation. The audit module binds it to AuditSecurityEvents, which
 * records them; without a binding (no audit module) the guards record nothing.
 */
@Injectable()
export class SecurityEvents {
  async authenticationFailed(_req: FastifyRequest, _slug: string | null, _reason: string): Promise<void> {}
  async permissionDenied(
    _ctx: RequestContext,
    _req: FastifyRequest,
    _reason: string,
    _required: string,
  ): Promise<void> {}
  async rateLimited(_req: FastifyRequest, _info: RateLimitInfo): Promise<void> {}
}
