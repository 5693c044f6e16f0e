import { Injectable } from '@nestjs/common';
import { WorkspaceContext } from '../common/auth/request-context';
import { ProblemException } from '../common/errors/problem.exception';
import { ListQuery, parseListQuery, RawQuery } from '../common/pagination/list-query';
import { AuditService, normalizeIp } from './audit.service';
import { AuditLogDto } from './audit-logs.dto';
import { mapAuditLog } from './audit-logs.mapper';
import { AuditLogsRepository } from './audit-logs.repository';
import { AUDIT_LOG_LIST } from './audit-logs.queries';

/** Reading the workspace's trail. Counts of aggregated failures held by this process are flushed first. */
@Injectable()
export class AuditLogsService {
  constructor(
    private readonly repo: AuditLogsRepository,
    private readonly audit: AuditService,
  ) {}

  list(ctx: WorkspaceContext, q: ListQuery) {
    return this.listTrail(ctx.workspace.id, q);
  }

  /** listTrail with the query string parsed as the API's list parses it (admin CLI `audit list`). */
  listTrailQuery(workspaceId: string | null, query: RawQuery) {
    return this.listTrail(workspaceId, parseListQuery(query, AUDIT_LOG_LIST));
  }

  /** A workspace's trail, or with `null` the instance trail (admin CLI `audit list --instance`). */
  async listTrail(workspaceId: string | null, q: ListQuery) {
    await this.audit.flushAggregates();
    const { rows, envelope } = await this.repo.list(workspaceId, normalizeFilters(q));
    return envelope(rows.map(mapAuditLog));
  }

  async get(ctx: WorkspaceContext, id: string): Promise<AuditLogDto> {
    await this.audit.flushAggregates();
    const row = await this.repo.get(ctx.workspace.id, id);
    if (!row) throw ProblemException.notFound('Audit log entry');
    return mapAuditLog(row);
  }
}

/** Filter values compared with stored values in the form they are stored: `ip_address` as `normalizeIp` writes it. */
function normalizeFilters(q: ListQuery): ListQuery {
  return {
    ...q,
    filters: q.filters.map((f) =>
      f.def.name === 'ip_address' && typeof f.value === 'string' ? { ...f, value: normalizeIp(f.value) ?? f.value } : f,
    ),
  };
}
