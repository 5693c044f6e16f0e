import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { catchError, from, mergeMap, Observable, throwError } from 'rxjs';
import { ErrorCode } from '../common/errors/error-codes';
import { ProblemException } from '../common/errors/problem.exception';
import { requestMetadata, requestRoute } from './audit-security-events';
import { AuditService } from './audit.service';

/** 403 codes a service can raise after the guard let the request through. */
const DENIALS = new Set<string>([ErrorCode.Forbidden, ErrorCode.WorkflowTransitionDenied]);

/**
 * Records `permission.denied` (category security, outcome failure, aggregated) for a 403 raised by a
 * service: role hierarchy rules (`forbidden`) and workflow rules (`workflow_transition_denied`). Denials by
 * the AuthGuard never reach interceptors; AuditSecurityEvents records those. The failed change itself was
 * rolled back with its transaction, so the entry is written on its own.
 */
@Injectable()
export class AuditFailuresInterceptor implements NestInterceptor {
  private readonly logger = new Logger('AuditFailuresInterceptor');

  constructor(private readonly audit: AuditService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((err: unknown) => {
        if (!(err instanceof ProblemException) || !DENIALS.has(err.code)) return throwError(() => err);
        const req = context.switchToHttp().getRequest<FastifyRequest>();
        return from(this.recordDenial(req, err)).pipe(mergeMap(() => throwError(() => err)));
      }),
    );
  }

  private async recordDenial(req: FastifyRequest, err: ProblemException): Promise<void> {
    const ctx = req.ctx;
    if (!ctx?.workspace) return;
    const route = requestRoute(req);
    try {
      await this.audit.recordNow(ctx, {
        event_name: 'permission.denied',
        category: 'security',
        outcome: 'failure',
        workspace_id: ctx.workspace.id,
        project_id: ctx.project?.id ?? null,
        target_type: 'route',
        target_id: route,
        target_display_name: route,
        reason: err.code,
        fingerprint: err.detail,
        metadata: {
          ...requestMetadata(req),
          detail: err.detail,
          workspace_role: ctx.workspaceRole,
          project_role: ctx.projectRole,
        },
      });
    } catch (e) {
      this.logger.error({ msg: 'could not record a permission denial in the audit trail', err: (e as Error)?.message });
    }
  }
}
