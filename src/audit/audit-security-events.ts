import { Injectable, Logger } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { AuthRepository } from '../common/auth/auth.repository';
import { hashSecret } from '../common/auth/credentials';
import { publicPath } from '../common/http/trailing-slash';
import { RequestContext } from '../common/auth/request-context';
import { RateLimitInfo, SecurityEvents } from '../common/auth/security-events';
import { AuditActor, AuditService, normalizeIp } from './audit.service';

interface WorkspaceHit {
  id: string;
  name: string;
}

const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 1000;

/** The anonymous actor of a request that carries no valid credential: only its address and user agent. */
export function anonymousActor(req: FastifyRequest): AuditActor {
  return {
    source: 'api',
    actor_type: 'anonymous',
    actor_id: null,
    actor_display_name: '',
    actor_email: '',
    ip_address: normalizeIp(req.ip),
    user_agent: req.headers['user-agent'] ?? '',
  };
}

/** The request path as the client sent it (the router sees it without the trailing slash). */
export function requestPath(req: FastifyRequest): string {
  return publicPath(req.url.split('?')[0]);
}

/** `PATCH /api/v2/workspaces/{slug}/members/{pk}/`: the operation, in the form of the OpenAPI document. */
export function requestRoute(req: FastifyRequest): string {
  const pattern = req.routeOptions?.url;
  return `${req.method} ${pattern ? publicPath(pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}')) : requestPath(req)}`;
}

export function requestMetadata(req: FastifyRequest): Record<string, unknown> {
  return { method: req.method, route: requestRoute(req), path: requestPath(req), request_id: String(req.id) };
}

/**
 * Runs an audit write of a refused request so that it can never change the response: an error is logged and
 * swallowed (the client still gets its 401/403/409/429, not a 500). Used by the guards' security events and by
 * the type mode gate.
 */
export async function auditSafely(logger: Logger, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    logger.error({ msg: 'could not record a failure event in the audit trail', err: (err as Error)?.message });
  }
}

/** `api_key`, `oauth` or `none`: which kind of credential a request sent (never the credential). */
export function credentialKind(req: FastifyRequest): 'api_key' | 'oauth' | 'none' {
  const key = req.headers['x-api-key'];
  if (typeof key === 'string' && key) return 'api_key';
  return typeof req.headers.authorization === 'string' && /^Bearer\s+\S+/i.test(req.headers.authorization)
    ? 'oauth'
    : 'none';
}

/**
 * Records the security failures the guards see (the foundation's SecurityEvents hooks): authentication
 * failures and rate limiting on a workspace path (`auth.failed`, `rate_limit.exceeded`) and permission
 * denials (`permission.denied`). All are outcome `failure` written through `AuditService.recordNow`, so
 * identical repeats are aggregated. A path without a workspace, or an unknown slug, records nothing (the
 * trail is per workspace). Recording never changes the response: errors are logged and swallowed.
 */
@Injectable()
export class AuditSecurityEvents extends SecurityEvents {
  private readonly logger = new Logger('AuditSecurityEvents');
  /** slug -> workspace (or null for an unknown slug), so a flood of bad requests costs no lookup each. */
  private readonly workspaces = new Map<string, { at: number; hit: WorkspaceHit | null }>();
  /** rate-limit tracker -> the credential's user (or null), for the same reason. */
  private readonly principals = new Map<
    string,
    { at: number; hit: Pick<AuditActor, 'actor_type' | 'actor_id' | 'actor_display_name' | 'actor_email'> | null }
  >();

  constructor(
    private readonly audit: AuditService,
    private readonly ds: DataSource,
    private readonly auth: AuthRepository,
  ) {
    super();
  }

  override async authenticationFailed(req: FastifyRequest, slug: string | null, reason: string): Promise<void> {
    await this.safely(async () => {
      const ws = slug ? await this.workspaceBySlug(slug) : null;
      if (!ws) return;
      await this.audit.recordNow(anonymousActor(req), {
        event_name: 'auth.failed',
        category: 'auth',
        outcome: 'failure',
        workspace_id: ws.id,
        target_type: 'workspace',
        target_id: ws.id,
        target_display_name: ws.name,
        reason,
        metadata: { ...requestMetadata(req), credential: credentialKind(req) },
      });
    });
  }

  override async permissionDenied(
    ctx: RequestContext,
    req: FastifyRequest,
    reason: string,
    required: string,
  ): Promise<void> {
    await this.safely(async () => {
      if (!ctx.workspace) return;
      const route = requestRoute(req);
      await this.audit.recordNow(ctx, {
        event_name: 'permission.denied',
        category: 'security',
        outcome: 'failure',
        workspace_id: ctx.workspace.id,
        project_id: ctx.project?.id ?? null,
        target_type: 'route',
        target_id: route,
        target_display_name: route,
        reason,
        metadata: {
          ...requestMetadata(req),
          required,
          workspace_role: ctx.workspaceRole,
          project_role: ctx.projectRole,
          principal_kind: ctx.principal.kind,
          ...(ctx.principal.kind === 'oauth' || ctx.principal.kind === 'bot' ? { scopes: ctx.principal.scopes } : {}),
        },
      });
    });
  }

  override async rateLimited(req: FastifyRequest, info: RateLimitInfo): Promise<void> {
    await this.safely(async () => {
      const slug = ((req.params ?? {}) as Record<string, string>).slug;
      const ws = slug ? await this.workspaceBySlug(slug) : null;
      if (!ws) return;
      await this.audit.recordNow(await this.rateLimitedActor(req, info.tracker), {
        event_name: 'rate_limit.exceeded',
        category: 'security',
        outcome: 'failure',
        workspace_id: ws.id,
        target_type: 'workspace',
        target_id: ws.id,
        target_display_name: ws.name,
        reason: 'rate_limited',
        // One budget per credential: repeats of the same credential (or address) are one aggregate.
        fingerprint: info.tracker,
        metadata: {
          ...requestMetadata(req),
          credential: credentialKind(req),
          limit: info.limit,
          window_seconds: Math.round(info.ttlMs / 1000),
          retry_after_seconds: info.retryAfterSeconds,
        },
      });
    });
  }

  /** The user behind a throttled credential when it is valid (a throttled request is never authenticated). */
  private async rateLimitedActor(req: FastifyRequest, tracker: string): Promise<AuditActor> {
    const actor = anonymousActor(req);
    const kind = credentialKind(req);
    if (kind === 'none') return actor;
    const now = Date.now();
    let cached = this.principals.get(tracker);
    if (!cached || now - cached.at >= CACHE_TTL_MS) {
      const secret =
        kind === 'api_key'
          ? String(req.headers['x-api-key'])
          : String(req.headers.authorization)
              .replace(/^Bearer\s+/i, '')
              .trim();
      const row = await this.auth.resolve(kind, hashSecret(secret), null, null);
      const hit = row
        ? {
            actor_type: kind === 'api_key' ? ('api_token' as const) : ('user' as const),
            actor_id: row.user_id,
            actor_display_name: row.display_name,
            actor_email: row.email,
          }
        : null;
      if (this.principals.size >= CACHE_MAX) this.principals.clear();
      cached = { at: now, hit };
      this.principals.set(tracker, cached);
    }
    return cached.hit ? { ...actor, ...cached.hit } : actor;
  }

  private async workspaceBySlug(slug: string): Promise<WorkspaceHit | null> {
    const now = Date.now();
    const cached = this.workspaces.get(slug);
    if (cached && now - cached.at < CACHE_TTL_MS) return cached.hit;
    const rows: WorkspaceHit[] = await this.ds.query(
      `SELECT id, name FROM workspaces WHERE slug = $1 AND deleted_at IS NULL`,
      [slug],
    );
    const hit = rows[0] ?? null;
    // Only found workspaces are remembered: a slug unknown now may be created (admin CLI) a moment later, and
    // its failures must be recorded from then on. Unknown slugs cost one indexed lookup each (rate-limited).
    if (!hit) return null;
    if (this.workspaces.size >= CACHE_MAX) this.workspaces.clear();
    this.workspaces.set(slug, { at: now, hit });
    return hit;
  }

  private safely(fn: () => Promise<void>): Promise<void> {
    return auditSafely(this.logger, fn);
  }
}
