import { Versioned } from '../common/http/conditional';
import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole, WORK_ITEM_READER } from '../common/auth/roles';
import { ApiSlugParam, ApiUuidParam, UuidParam, WorkItemIdParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { CreateWorkItemLinkDto, UpdateWorkItemLinkDto, WorkItemLinkDto } from './work-item-links.dto';
import { LINK_LIST } from './work-item-links.queries';
import { WorkItemLinksService } from './work-item-links.service';

const READ = { scope: 'projects.work_items.links:read', project: WORK_ITEM_READER } as const;
const WRITE = { scope: 'projects.work_items.links:write', project: ProjectRole.Contributor } as const;

@ApiTags('work-item-links')
@ApiSlugParam()
@ApiUuidParam('project_id')
@ApiUuidParam('work_item_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/work-items/:work_item_id/links')
export class WorkItemLinksController {
  constructor(private readonly links: WorkItemLinksService) {}

  @Get()
  @Authenticated(READ)
  @ApiOperation({ operationId: 'links_list', summary: 'List the links of a work item' })
  @ApiListQuery(LINK_LIST)
  @ApiListResponse(WorkItemLinkDto)
  list(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @ListParams(LINK_LIST) q: ListQuery,
  ) {
    return this.links.list(ctx, workItemId, q);
  }

  @Post()
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'links_create',
    summary: 'Link a work item to a URL',
    description: 'url: an absolute http(s) URL. A second live link to the same url on the work item is 409.',
  })
  @ApiCreatedResponse({ type: WorkItemLinkDto })
  @ApiProblemResponses(400, 404, 409)
  create(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @Body() body: CreateWorkItemLinkDto,
  ) {
    return this.links.create(ctx, workItemId, body);
  }

  @Versioned('work_item_links')
  @Get(':pk')
  @Authenticated(READ)
  @ApiOperation({
    operationId: 'links_retrieve',
    summary: 'Get a link',
    description: 'A link of another work item is 404.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemLinkDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') workItemId: string, @UuidParam('pk') pk: string) {
    return this.links.get(ctx, workItemId, pk);
  }

  @Versioned('work_item_links')
  @Patch(':pk')
  @Authenticated(WRITE)
  @ApiOperation({ operationId: 'links_partial_update', summary: 'Update a link (partial)' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemLinkDto })
  @ApiProblemResponses(400, 404, 409)
  update(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @UuidParam('pk') pk: string,
    @Body() body: UpdateWorkItemLinkDto,
  ) {
    return this.links.update(ctx, workItemId, pk, body);
  }

  @Versioned('work_item_links')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @ApiOperation({ operationId: 'links_destroy', summary: 'Delete a link (soft)', description: 'Repeating is 404.' })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.links.remove(ctx, workItemId, pk);
  }
}
