import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AUTH_META, AuthRule, PUBLIC_META } from './authenticated.decorator';
import { AuthRepository, ProjectKey } from './auth.repository';
import { CredentialUsage } from './credential-usage';
import { hashSecret, readCredential } from './credentials';
import { chargeFailedAuthentication } from '../throttle/credential-throttler.guard';
import { RequestContext } from './request-context';
import {
  effectiveProjectRole,
  projectLevel,
  PROJECT_ROLE_LEVEL,
  WORKSPACE_ROLE_LEVEL,
  WorkspaceRole,
  workspaceLevel,
} from './roles';
import { grantSatisfies } from './scopes';
import { ProblemException } from '../errors/problem.exception';
import { ErrorCode } from '../errors/error-codes';
import { PROJECT_IDENTIFIER_RE, UUID_RE } from '../http/validation';
import { SecurityEvents } from './security-events';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * `{project_id}` holds the project's UUID or, as the later edition allows (gap-reference 9.5), its identifier in
 * any case (`ENG`, `eng`); anything else is null (400).
 */
export function projectRefOf(raw: string): ProjectKey | null {
  if (UUID_RE.test(raw)) return { id: raw.toLowerCase() };
  return PROJECT_IDENTIFIER_RE.test(raw) ? { identifier: raw.toUpperCase() } : null;
}

/**
 * Authenticates every request and enforces the route's @Authenticated rule, in this order:
 * credential (401), tenant wall (404 for a workspace or project the user cannot see), OAuth
 * scope ceiling (403), role (403). Services never check roles themselves.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly repo: AuthRepository,
    private readonly events: SecurityEvents,
    private readonly usage: CredentialUsage,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_META, targets)) return true;
    const rule = this.reflector.getAllAndOverride<AuthRule>(AUTH_META, targets);
    if (!rule) throw ProblemException.forbidden('This route declares no access rule.');

    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const params = (req.params ?? {}) as Record<string, string>;
    // PostgreSQL cannot bind a NUL; such a slug names no workspace (404 after the credential check, the
    // input guard never gets to it). No workspace has a '/' in its slug: it is a path segment.
    const slug = params.slug === undefined ? null : params.slug.includes('\u0000') ? '/' : params.slug;
    const rawProjectId = params.project_id ?? null;
    const projectRef = rawProjectId === null ? null : projectRefOf(rawProjectId);
    const projectIdValid = rawProjectId === null || projectRef !== null;

    const { kind, row } = await this.authenticate(req, slug, projectRef);
    if (!projectIdValid)
      throw ProblemException.validation('project_id', "Must be a project's UUID or its identifier (e.g. ENG).");
    const ctx = requestContext(req, kind, row);
    req.ctx = ctx;

    // The tenant wall comes first: a foreign workspace or project is 404 whatever the token's scopes.
    if (slug !== null && !ctx.workspace) throw ProblemException.notFound('Workspace');
    if (projectRef !== null && !ctx.project) throw ProblemException.notFound('Project');
    await this.authorize(req, ctx, kind, rule);
    return true;
  }

  /**
   * Credentials first: a request without valid credentials learns nothing about the path (401). A failed
   * authentication counts against the client address's budget (429 once it is spent), so sending a new bogus
   * credential each time does not buy a fresh budget.
   */
  private async authenticate(req: FastifyRequest, slug: string | null, project: ProjectKey | null) {
    const cred = readCredential(req.headers);
    const row = cred ? await this.repo.resolve(cred.kind, hashSecret(cred.secret), slug, project) : null;
    if (!cred || !row) {
      await this.events.authenticationFailed(req, slug, cred ? 'invalid_credentials' : 'missing_credentials');
      await chargeFailedAuthentication(req);
      throw ProblemException.unauthorized();
    }
    this.usage.note(cred.kind, row.credential_id);
    return { kind: cred.kind, row };
  }

  /** The OAuth scope ceiling, then the route's project or workspace role (403, recorded). */
  private async authorize(req: FastifyRequest, ctx: RequestContext, kind: string, rule: AuthRule): Promise<void> {
    if (kind === 'oauth' && !this.scopeAllows(rule, ctx.principal.scopes)) {
      await this.events.permissionDenied(ctx, req, 'insufficient_scope', rule.scope);
      throw ProblemException.forbidden(
        `This token lacks the scope ${rule.scope === 'any-read' ? 'read (or any *:read scope)' : rule.scope}.`,
      );
    }
    if (rule.project) {
      if (projectLevel(ctx.projectRole) < PROJECT_ROLE_LEVEL[rule.project]) {
        await this.events.permissionDenied(ctx, req, 'insufficient_role', `project:${rule.project}`);
        throw ProblemException.forbidden(`This action needs the project role ${rule.project} or higher.`);
      }
    } else if (rule.workspace) {
      if (workspaceLevel(ctx.workspaceRole) < WORKSPACE_ROLE_LEVEL[rule.workspace]) {
        await this.events.permissionDenied(ctx, req, 'insufficient_role', `workspace:${rule.workspace}`);
        throw ProblemException.forbidden(`This action needs the workspace role ${rule.workspace} or higher.`);
      }
    }
    // After the role: who may not write learns that first; an archived project refuses even its admins' writes.
    if (ctx.project?.archived && !READ_METHODS.has(req.method) && !rule.archivedProject) {
      throw new ProblemException(
        ErrorCode.ProjectArchived,
        `The project ${ctx.project.identifier} is archived: its data can be read, not changed. Unarchive it first (POST .../projects/{project_id}/unarchive/).`,
      );
    }
  }

  private scopeAllows(rule: AuthRule, granted: string[]): boolean {
    if (rule.scope === 'any-read') return granted.some((s) => s === 'read' || s.endsWith(':read'));
    return grantSatisfies(granted, rule.scope);
  }
}

type CredentialRow = NonNullable<Awaited<ReturnType<AuthRepository['resolve']>>>;

/** The request's context from the credential's row. A workspace is visible only to its active members. */
function requestContext(req: FastifyRequest, kind: 'api_key' | 'oauth', row: CredentialRow): RequestContext {
  const member = !!(row.workspace_id && row.workspace_role);
  return {
    principal: {
      userId: row.user_id,
      email: row.email,
      displayName: row.display_name,
      kind: row.principal_kind === 'bot' ? 'bot' : kind,
      scopes: row.scopes ?? [],
      credentialId: row.credential_id,
    },
    workspace: member ? { id: row.workspace_id!, slug: row.workspace_slug!, name: row.workspace_name! } : null,
    workspaceRole: member ? (row.workspace_role as WorkspaceRole) : null,
    project:
      member && row.project_id
        ? {
            id: row.project_id,
            workspaceId: row.workspace_id!,
            identifier: row.project_identifier!,
            name: row.project_name!,
            defaultAssigneeId: row.project_default_assignee_id,
            archived: !!row.project_archived,
          }
        : null,
    projectRole: member && row.project_id ? effectiveProjectRole(row.workspace_role, row.project_role) : null,
    ip: req.ip ?? null,
    userAgent: req.headers['user-agent'] ?? null,
    requestId: String(req.id),
  };
}
