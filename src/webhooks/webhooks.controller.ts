import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, WorkspaceContext } from '../common/auth/request-context';
import { WorkspaceRole } from '../common/auth/roles';
import { ApiSlugParam, ApiUuidParam, UuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { CreateWebhookDto, UpdateWebhookDto, WebhookDto, WebhookLogDto, WebhookWithSecretDto } from './webhooks.dto';
import { WEBHOOK_LIST, WEBHOOK_LOG_LIST } from './webhooks.queries';
import { WebhooksService } from './webhooks.service';

const READ = { scope: 'webhooks:read', workspace: WorkspaceRole.Admin } as const;
const WRITE = { scope: 'webhooks:write', workspace: WorkspaceRole.Admin } as const;

@ApiTags('webhooks')
@ApiSlugParam()
@Controller('api/v2/workspaces/:slug/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @Authenticated(READ)
  @ApiOperation({ operationId: 'webhooks_list', summary: 'List the workspace webhooks (owners and admins)' })
  @ApiListQuery(WEBHOOK_LIST)
  @ApiListResponse(WebhookDto)
  list(@Ctx() ctx: WorkspaceContext, @ListParams(WEBHOOK_LIST) q: ListQuery) {
    return this.webhooks.list(ctx, q);
  }

  @Post()
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'webhooks_create',
    summary: 'Register a webhook',
    description:
      'The response carries `secret_key` once (also returned by regenerate, never by reads). Deliveries: docs/webhooks.md.',
  })
  @ApiCreatedResponse({ type: WebhookWithSecretDto })
  @ApiProblemResponses(400, 404)
  create(@Ctx() ctx: WorkspaceContext, @Body() body: CreateWebhookDto) {
    return this.webhooks.create(ctx, body);
  }

  @Get(':pk')
  @Authenticated(READ)
  @ApiOperation({ operationId: 'webhooks_retrieve', summary: 'Get a webhook (without its secret)' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WebhookDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string) {
    return this.webhooks.get(ctx, pk);
  }

  @Patch(':pk')
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'webhooks_partial_update',
    summary: 'Update a webhook (partial)',
    description: 'Setting is_active true turns a webhook the service disabled on again and forgets its failures.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WebhookDto })
  @ApiProblemResponses(400, 404)
  update(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string, @Body() body: UpdateWebhookDto) {
    return this.webhooks.update(ctx, pk, body);
  }

  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'webhooks_destroy',
    summary: 'Delete a webhook',
    description: 'Its pending deliveries and its logs go with it.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.webhooks.remove(ctx, pk);
  }

  @Post(':pk/regenerate')
  @HttpCode(200)
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'webhooks_regenerate',
    summary: 'Replace the signing secret',
    description: 'Returns the new `secret_key` once; the old one stops signing at once.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WebhookWithSecretDto })
  @ApiProblemResponses(400, 404)
  regenerate(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string) {
    return this.webhooks.regenerate(ctx, pk);
  }
}

@ApiTags('webhook-logs')
@ApiSlugParam()
@ApiUuidParam('webhook_id')
@Controller('api/v2/workspaces/:slug/webhook-logs/:webhook_id')
export class WebhookLogsController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @Authenticated(READ)
  @ApiOperation({
    operationId: 'webhook_logs_list',
    summary: "List a webhook's delivery attempts",
    description: 'One entry per attempt (retries included), newest first; kept WEBHOOK_LOG_RETENTION_DAYS days.',
  })
  @ApiListQuery(WEBHOOK_LOG_LIST)
  @ApiListResponse(WebhookLogDto)
  list(
    @Ctx() ctx: WorkspaceContext,
    @UuidParam('webhook_id') webhookId: string,
    @ListParams(WEBHOOK_LOG_LIST) q: ListQuery,
  ) {
    return this.webhooks.listLogs(ctx, webhookId, q);
  }

  @Get(':pk')
  @Authenticated(READ)
  @ApiOperation({ operationId: 'webhook_logs_retrieve', summary: 'Get one delivery attempt' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WebhookLogDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: WorkspaceContext, @UuidParam('webhook_id') webhookId: string, @UuidParam('pk') pk: string) {
    return this.webhooks.getLog(ctx, webhookId, pk);
  }
}
