import { applyDecorators, CanActivate, ExecutionContext, Injectable, Logger, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiExtension } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { DataSource, EntityManager } from 'typeorm';
import { auditSafely, requestMetadata, requestRoute } from '../audit/audit-security-events';
import { AuditService } from '../audit/audit.service';
import { RequestContext } from '../common/auth/request-context';
import { ErrorCode } from '../common/errors/error-codes';
import { ProblemException } from '../common/errors/problem.exception';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { FeatureFlags } from '../features/feature-flags.queries';

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
 * The mode check itself, shared by the guard (before validation, unlocked: the fast refusal) and by the
 * writes' transactions (under lock: a mode switch that lands between the guard and the write must not let
 * the write through onto the surface it just disabled). A refusal is 409 with the mode code and is recorded
 * in the audit trail as `work_item_types.surface_conflict` (repeats of the same refused operation are
 * aggregated by the audit service's flood protection); recording never changes the response.
 */
@Injectable()
export class TypeModeGate {
  private readonly logger = new Logger('TypeModeGate');

  constructor(
    private readonly ds: DataSource,
    private readonly features: FeatureFlags,
    private readonly audit: AuditService,
  ) {}

  /** Runs a type surface write in a transaction that first re-reads the mode under the features row lock. */
  async transaction<T>(ctx: RequestContext, work: (tx: EntityManager) => Promise<T>): Promise<T> {
    const grant = ctx.typeSurface;
    const workspace = ctx.workspace;
    if (!grant || !workspace) throw new Error('A type surface write ran without TypeModeGuard');
    let refusedInMode: boolean | null = null;
    try {
      return await this.ds.transaction(async (tx) => {
        const workspaceMode = await this.features.lockWorkspaceTypeMode(workspace.id, tx);
        if (workspaceMode !== (grant.surface === 'workspace')) {
          refusedInMode = workspaceMode;
          throw new ProblemException(GATE_CODE[grant.surface], refusalDetail(workspaceMode));
        }
        return work(tx);
      });
    } catch (err) {
      // The audit entry is written after the rollback, on its own connection, as the guard's is.
      if (refusedInMode !== null) await this.recordRefusal(ctx, grant, refusedInMode);
      throw err;
    }
  }

  async recordRefusal(
    ctx: RequestContext,
    grant: NonNullable<RequestContext['typeSurface']>,
    workspaceMode: boolean,
  ): Promise<void> {
    const workspace = ctx.workspace!;
    await auditSafely(this.logger, () =>
      this.audit.recordNow(ctx, {
        event_name: 'work_item_types.surface_conflict',
        fingerprint: grant.route,
        category: 'settings',
        outcome: 'failure',
        workspace_id: workspace.id,
        project_id: ctx.project?.id ?? null,
        target_type: 'workspace',
        target_id: workspace.id,
        target_display_name: workspace.name,
        reason: GATE_CODE[grant.surface],
        metadata: { ...grant.metadata, surface: grant.surface, mode: workspaceMode ? 'workspace' : 'project' },
      }),
    );
  }
}

function refusalDetail(workspaceMode: boolean): string {
  return workspaceMode
    ? 'This workspace manages work item types and properties at the workspace level; use the /api/v2/workspaces/{slug}/work-item-types/ and /work-item-properties/ endpoints (or switch is_work_item_types_enabled off).'
    : 'This workspace manages work item types and properties per project; use the /projects/{project_id}/work-item-types/ and /work-item-properties/ endpoints (or switch is_work_item_types_enabled on).';
}

/**
 * The one gate of the work item type mode (spec "Two surfaces"). Runs after the AuthGuard (so 401,
 * 403 and 404 come first) and before body validation. Reads (GET) are never gated. A write let through
 * carries its grant on the request context, and its service runs it in `TypeModeGate.transaction`, which
 * checks the mode again under lock.
 */
@Injectable()
export class TypeModeGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly features: FeatureFlags,
    private readonly gate: TypeModeGate,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    if (req.method === 'GET' || req.method === 'HEAD') return true;
    const surface = this.reflector.get<TypeSurfaceKind>(TYPE_SURFACE_META, context.getHandler());
    if (!surface) throw new Error(`Write route ${req.method} ${req.routeOptions?.url ?? req.url} lacks @TypeSurface`);
    const ctx = req.ctx;
    const workspace = ctx?.workspace;
    if (!ctx || !workspace) throw new Error('TypeModeGuard needs the request context of the AuthGuard');
    const grant = { surface, route: requestRoute(req), metadata: requestMetadata(req) };
    const workspaceMode = await this.features.isWorkspaceTypeMode(workspace.id);
    if (workspaceMode === (surface === 'workspace')) {
      ctx.typeSurface = grant;
      return true;
    }
    await this.gate.recordRefusal(ctx, grant, workspaceMode);
    throw new ProblemException(GATE_CODE[surface], refusalDetail(workspaceMode));
  }
}
