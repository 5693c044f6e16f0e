import { ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { ThrottlerGuard, ThrottlerLimitDetail, ThrottlerRequest } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashSecret, readCredential } from '../auth/credentials';
import { SecurityEvents } from '../auth/security-events';
import { ProblemException } from '../errors/problem.exception';
import { ErrorCode } from '../errors/error-codes';
import { Metrics } from '../metrics/metrics';

/** Address charges registered on a request that presented a credential (see chargeFailedAuthentication). */
const ADDRESS_CHARGES = Symbol('wt.throttle.addressCharges');
type AddressCharge = () => Promise<void>;
type Charged = { [ADDRESS_CHARGES]?: AddressCharge[] };

const addressTracker = (req: { ip?: string }) => `ip:${req.ip}`;
/** The request's tracker, computed once. */
const TRACKER = Symbol('wt.throttle.tracker');

/**
 * Called by the AuthGuard when authentication fails: the request is charged to the client address's
 * budget too (429 rate_limited once it is spent). A request that presented no credential was already
 * charged there, so only a presented (unknown, revoked, expired or malformed) credential adds a charge.
 * Without this, each new bogus credential would buy a fresh budget.
 */
export async function chargeFailedAuthentication(req: FastifyRequest): Promise<void> {
  const charges = (req as unknown as Charged)[ADDRESS_CHARGES];
  if (!charges) return;
  delete (req as unknown as Charged)[ADDRESS_CHARGES];
  for (const charge of charges) await charge();
}

/** Stand-in handler of unmatched requests (404 / 405), so they have an ExecutionContext like routes. */
function unmatchedRoute(): void {}

/**
 * Rate limiting runs before authentication: one budget per credential (the hash of the API key or
 * bearer token), or per client address when none is sent. A credential that then fails to
 * authenticate also counts against its address (chargeFailedAuthentication). Requests that match no
 * route (404, 405) are never authenticated: they count against the client address, whatever
 * credential they carry, and are throttled like any other request.
 */
@Injectable()
export class CredentialThrottlerGuard extends ThrottlerGuard {
  /** Records `rate_limit.exceeded` (aggregated) in the workspace of the path. */
  @Optional() @Inject(SecurityEvents) private readonly events?: SecurityEvents;
  @Optional() @Inject(HttpAdapterHost) private readonly adapterHost?: HttpAdapterHost;
  @Optional() @Inject(Metrics) private readonly metrics?: Metrics;
  private rejections: { inc(labels: { credential: string }): void } | undefined;

  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    this.rejections = this.metrics?.counter({
      name: 'rate_limit_rejections_total',
      help: 'Requests refused with 429, by the budget they exhausted (api_key, oauth or the client address).',
      labelNames: ['credential'] as const,
    });
    // Guards run only on matched routes; unmatched requests reach Fastify's not-found handler, whose
    // hooks are those of the root instance. Added during app.init(), before the server is ready.
    const fastify = this.adapterHost?.httpAdapter?.getInstance?.();
    fastify?.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
      if (!req.is404) return;
      await this.canActivate(new ExecutionContextHost([req, reply], CredentialThrottlerGuard, unmatchedRoute));
    });
  }

  protected override async getTracker(req: Record<string, unknown>): Promise<string> {
    // Asked twice per request (handleRequest below, then the base): the credential is hashed once.
    const memo = req as { [TRACKER]?: string };
    return (memo[TRACKER] ??= this.trackerOf(req as unknown as FastifyRequest));
  }

  private trackerOf(r: FastifyRequest): string {
    if (r.is404) return addressTracker(r);
    const cred = readCredential(r.headers);
    if (cred) return `${cred.kind === 'api_key' ? 'key' : 'bearer'}:${hashSecret(cred.secret)}`;
    return addressTracker(r);
  }

  /** As the base, and registers the address charge for a request counted against a credential. */
  protected override async handleRequest(props: ThrottlerRequest): Promise<boolean> {
    const { req, res } = this.getRequestResponse(props.context);
    if ((await props.getTracker(req, props.context)) !== addressTracker(req)) {
      const charged = req as Charged;
      (charged[ADDRESS_CHARGES] ??= []).push(() => this.chargeAddress(props, req, res));
    }
    return super.handleRequest(props);
  }

  /** Counts the request against its client address; the budget headers then describe that budget. */
  private async chargeAddress(
    props: ThrottlerRequest,
    req: Record<string, unknown>,
    res: Record<string, unknown>,
  ): Promise<void> {
    const { context, limit, ttl, blockDuration, throttler, generateKey } = props;
    const tracker = addressTracker(req);
    const key = generateKey(context, tracker, throttler.name!);
    const r = await this.storageService.increment(key, ttl, limit, blockDuration, throttler.name!);
    if (r.isBlocked) await this.throwThrottlingException(context, { limit, ttl, key, tracker, ...r });
    const suffix = throttler.name === 'default' ? '' : `-${throttler.name}`;
    this.setResponseHeader(res, `${this.headerPrefix}-Limit${suffix}`, limit);
    this.setResponseHeader(res, `${this.headerPrefix}-Remaining${suffix}`, Math.max(0, limit - r.totalHits));
    this.setResponseHeader(res, `${this.headerPrefix}-Reset${suffix}`, r.timeToExpire);
  }

  /**
   * 429 rate_limited. The base guard sets Retry-After (seconds) only; the budget headers are set here
   * too, so every response, throttled or not, tells the client where it stands.
   */
  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const retryAfter = Math.max(1, detail.timeToBlockExpire);
    const kind = detail.tracker.slice(0, detail.tracker.indexOf(':'));
    this.rejections?.inc({ credential: kind === 'key' ? 'api_key' : kind === 'bearer' ? 'oauth' : 'address' });
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
