import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProjectRole, WorkspaceRole } from './roles';

/** `bot`: an app installation's bot user with a client-credentials token (scope-capped like `oauth`). */
export type PrincipalKind = 'api_key' | 'oauth' | 'bot' | 'other';

export interface Principal {
  userId: string;
  email: string;
  displayName: string;
  kind: PrincipalKind;
  scopes: string[];
  credentialId: string;
}

export interface WorkspaceRef {
  id: string;
  slug: string;
  name: string;
}

export interface ProjectRef {
  id: string;
  workspaceId: string;
  identifier: string;
  name: string;
  defaultAssigneeId: string | null;
  /** Archived projects (issue 19) keep their data and reads; writes refuse with 409 `project_archived`. */
  archived?: boolean;
}

/** Who is calling and in which tenant, resolved once per request by the AuthGuard. */
export interface RequestContext {
  principal: Principal;
  workspace: WorkspaceRef | null;
  workspaceRole: WorkspaceRole | null;
  project: ProjectRef | null;
  /** Effective project role (workspace owners/admins count as project admins). */
  projectRole: ProjectRole | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string;
  /**
   * Set by the work item type mode guard on a type/property/option/context write it let through: the mode
   * the write needs and the request's audit fingerprint, so the write's transaction can re-check the mode
   * under lock (TypeModeGate) and record a refusal like the guard does.
   */
  typeSurface?: { surface: 'project' | 'workspace'; route: string; metadata: Record<string, unknown> };
}

/** A context whose workspace was resolved (every /workspaces/{slug}/ route). */
export interface WorkspaceContext extends RequestContext {
  workspace: WorkspaceRef;
  workspaceRole: WorkspaceRole;
}

/** A context whose project was resolved (every /projects/{project_id}/ route). */
export interface ProjectContext extends WorkspaceContext {
  project: ProjectRef;
  projectRole: ProjectRole;
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx?: RequestContext;
  }
}

export const Ctx = createParamDecorator((_data: unknown, host: ExecutionContext): RequestContext => {
  const req = host.switchToHttp().getRequest<FastifyRequest>();
  if (!req.ctx) throw new Error('Request context missing: route lacks @Authenticated');
  return req.ctx;
});
