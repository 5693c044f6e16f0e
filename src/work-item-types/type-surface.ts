import { applyDecorators, CanActivate, ExecutionContext, Injectable, Logger, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiExtension } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { auditSafely, requestMetadata, requestRoute } from '../audit/audit-security-events';
import { AuditService } from '../audit/audit.service';
import { ErrorCode } from '../common/errors/error-codes';
import { ProblemException } from '../common/errors/problem.exception';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { FeaturesRepository } from '../features/features.repository';

/** Which work item type mode a write needs: `project` (is_work_item_types_enabled false) or `workspace` (true). */
export type TypeSurfaceKind = 'project' | 'workspace';

const TYPE_SURFACE_META = 'wt:type-surface';

const GATE_CODE: Record<TypeSurfaceKind, ErrorCode> = {
  project: ErrorCode.WorkItemTypesManagedAtWorkspace,
  workspace: ErrorCode.WorkItemTypesManagedAtProject,
};

/**
 * Declares the mode a write route needs. Every POST/PATCH/DELETE of the type, property, option and
 * context controllers carries it (the guard refuses a write route without it), and the OpenAPI
 * document gets the matching 409. `conflict` documents a plain 409 `conflict` of the same operation.
 */
export function TypeSurface(surface: TypeSurfaceKind, conflict?: string): MethodDecorator {
  const gate = `\`${GATE_CODE[surface]}\`: this write needs ${surface} mode (workspace feature is_work_item_types_enabled ${surface === 'workspace'}); the same request belongs on the other surface`;
  return applyDecorators(
    SetMetadata(TYPE_SURFACE_META, surface),
    ApiExtension('x-work-item-type-mode', surface),
    ApiProblemResponses([409, conflict ? `${gate}; or \`conflict\`: ${conflict}` : gate]),
  );
}

/**
 * The one gate of the work item type mode (spec "Two surfaces"). Runs after the AuthGuard (so 401,
 * 403 and 404 come first) and before body validation. Reads (GET) are never gated. A refused write
 * is 409 with the mode code and is recorded in the audit trail as `work_item_types.surface_conflict`
 * (repeats of the same refused operation are aggregated by the audit service's flood protection).
 */
@Injectable()
export class TypeModeGuard implements CanActivate {
  private readonly logger = new Logger('TypeModeGuard');

  constructor(
    private readonly reflector: Reflector,
    private readonly features: FeaturesRepository,
    private readonly audit: AuditService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    if (req.method === 'GET' || req.method === 'HEAD') return true;
    const surface = this.reflector.get<TypeSurfaceKind>(TYPE_SURFACE_META, context.getHandler());
    if (!surface) throw new Error(`Write route ${req.method} ${req.routeOptions?.url ?? req.url} lacks @TypeSurface`);
    const ctx = req.ctx;
    const workspace = ctx?.workspace;
    if (!ctx || !workspace) throw new Error('TypeModeGuard needs the request context of the AuthGuard');
    const workspaceMode = await this.features.isWorkspaceTypeMode(workspace.id);
    const needsWorkspace = surface === 'workspace';
    if (workspaceMode === needsWorkspace) return true;

    const code = GATE_CODE[surface];
    const detail = workspaceMode
      ? 'This workspace manages work item types and properties at the workspace level; use the /api/v2/workspaces/{slug}/work-item-types/ and /work-item-properties/ endpoints (or switch is_work_item_types_enabled off).'
      : 'This workspace manages work item types and properties per project; use the /projects/{project_id}/work-item-types/ and /work-item-properties/ endpoints (or switch is_work_item_types_enabled on).';
    // Identical refusals (same operation, actor, address) within the audit window aggregate into one entry.
    // Recording never changes the response: a failed audit write is logged and the client still gets the 409.
    await auditSafely(this.logger, () =>
      this.audit.recordNow(ctx, {
        event_name: 'work_item_types.surface_conflict',
        fingerprint: requestRoute(req),
        category: 'settings',
        outcome: 'failure',
        workspace_id: workspace.id,
        project_id: ctx.project?.id ?? null,
        target_type: 'workspace',
        target_id: workspace.id,
        target_display_name: workspace.name,
        reason: code,
        metadata: { ...requestMetadata(req), surface, mode: workspaceMode ? 'workspace' : 'project' },
      }),
    );
    throw new ProblemException(code, detail);
  }
}
