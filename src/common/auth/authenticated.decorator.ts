import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension, ApiOAuth2, ApiSecurity } from '@nestjs/swagger';
import { ProjectRole, WorkspaceRole } from './roles';
import { Scope, SCOPES, scopesSatisfying } from './scopes';
import { ApiProblemResponses } from '../openapi/problem-responses';

export const AUTH_META = 'wt:auth';
export const PUBLIC_META = 'wt:public';

export interface AuthRule {
  /** The fine-grained scope an OAuth token needs (the global read/write tier also satisfies it). */
  scope: Scope | 'any-read';
  /** Lowest workspace role allowed, for /workspaces/{slug}/ routes outside a project. */
  workspace?: WorkspaceRole;
  /** Lowest effective project role allowed, for /projects/{project_id}/ routes. */
  project?: ProjectRole;
  /** The route may write to an archived project (unarchive, delete); every other write to one is 409 `project_archived`. */
  archivedProject?: 'allowed';
}

/** What `any-read` (users/me) accepts: the global `read` or any fine-grained `*:read` scope. */
export const ANY_READ_SCOPES = Object.keys(SCOPES).filter((s) => s === 'read' || s.endsWith(':read'));
export const ANY_READ_NOTE = 'any read scope: read or any *:read';

/**
 * The one auth decorator of a route: sets the rule the AuthGuard enforces and the matching
 * OpenAPI security entries, so the document cannot drift from what is enforced.
 */
export function Authenticated(rule: AuthRule): MethodDecorator {
  const roleNote = rule.project
    ? `project role ${rule.project} or higher`
    : rule.workspace
      ? `workspace role ${rule.workspace} or higher`
      : 'any authenticated user';
  return applyDecorators(
    SetMetadata(AUTH_META, rule),
    ApiSecurity('ApiKey'),
    // Security requirements are alternatives: one per scope the guard accepts (for `any-read`, every read
    // scope; otherwise the scope, its global tier and the scopes implying it).
    ...(rule.scope === 'any-read' ? ANY_READ_SCOPES : scopesSatisfying(rule.scope)).map((s) => ApiOAuth2([s])),
    ApiExtension('x-required-scope', rule.scope === 'any-read' ? ANY_READ_NOTE : rule.scope),
    ApiExtension('x-required-role', roleNote),
    ApiProblemResponses(401, 403, 429),
  );
}

/** A route reachable without credentials (health, schema, docs). */
export function Public(): MethodDecorator & ClassDecorator {
  return SetMetadata(PUBLIC_META, true);
}
