import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, WorkspaceContext } from '../common/auth/request-context';
import { WorkspaceRole } from '../common/auth/roles';
import { UuidParam, ApiSlugParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { AuditLogDto } from './audit-logs.dto';
import { AUDIT_LOG_LIST } from './audit-logs.queries';
import { AuditLogsService } from './audit-logs.service';

@ApiTags('audit-logs')
@ApiSlugParam()
@Controller('api/v2/workspaces/:slug/audit-logs')
export class AuditLogsController {
  constructor(private readonly logs: AuditLogsService) {}

  @Get()
  @Authenticated({ scope: 'workspaces.audit_logs:read', workspace: WorkspaceRole.Admin })
  @ApiOperation({
    operationId: 'audit_logs_list',
    summary: 'List the workspace audit trail',
    description:
      'Workspace owners and admins only (the trail exposes emails, addresses and user agents). Default order -created_at. ' +
      'Cursor mode has no offset ceiling and neither skips nor repeats entries as new ones arrive. Export: paginate=cursor, per_page=200, ' +
      'order_by=created_at, follow next_cursor while has_more (repeat the other parameters), key entries on event_id; resume later with ' +
      'created_after = the last stored created_at (event_id absorbs the overlap). search matches event name, actor name and email, and target name.',
  })
  @ApiListQuery(AUDIT_LOG_LIST)
  @ApiListResponse(AuditLogDto)
  list(@Ctx() ctx: WorkspaceContext, @ListParams(AUDIT_LOG_LIST) q: ListQuery) {
    return this.logs.list(ctx, q);
  }

  @Get(':pk')
  @Authenticated({ scope: 'workspaces.audit_logs:read', workspace: WorkspaceRole.Admin })
  @ApiOperation({
    operationId: 'audit_logs_get',
    summary: 'Get one audit log entry',
    description: 'By entry id; an event_id is not an entry id (404).',
  })
  @ApiOkResponse({ type: AuditLogDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string) {
    return this.logs.get(ctx, pk);
  }
}
