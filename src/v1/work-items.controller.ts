import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import { ProjectRole, WORK_ITEM_READER, WorkspaceRole } from '../common/auth/roles';
import { IgnoresExpand } from '../common/expand/expand';
import { WorkItemIdParam } from '../common/http/params';
import { RawQuery } from '../common/pagination/list-query';
import { ModulesService } from '../modules/modules.service';
import { CreateWorkItemDto, UpdateWorkItemDto } from '../work-items/work-items.dto';
import { WORK_ITEM_LIST, WORKSPACE_WORK_ITEM_LIST } from '../work-items/work-items.queries';
import { WorkItemsService } from '../work-items/work-items.service';
import { v1List, v1ListQuery } from './v1-list';
import { asV2Body, fromV1 } from './v1-shape';
import { V1Transaction } from './v1-transaction';
import { v1Expand, V1WorkItemShaper, WORK_ITEM_FILTERS, WORK_ITEM_IN } from './work-items.mapper';
import { V1_RECORDS, V1Returns } from './v1-responses';

const READ = { scope: 'projects.work_items:read', project: WORK_ITEM_READER } as const;
const WRITE = { scope: 'projects.work_items:write', project: ProjectRole.Contributor } as const;
const WORKSPACE_READ = { scope: 'projects.work_items:read', workspace: WorkspaceRole.Guest } as const;
const WORKSPACE_FILTERS = { ...WORK_ITEM_FILTERS, project: 'project_id' };
const V1_COUNT = {
  type: 'object',
  properties: { grouped_by: { type: 'null' }, sub_grouped_by: { type: 'null' }, total_count: { type: 'integer' } },
  required: ['grouped_by', 'sub_grouped_by', 'total_count'],
};

/** Work items through v1: its names, embedded expansions, update stamps and description_html. */
@ApiTags('v1 work items')
@Controller('api/v1/workspaces/:slug')
export class V1WorkItemsController {
  constructor(
    private readonly items: WorkItemsService,
    private readonly modules: ModulesService,
    private readonly shape: V1WorkItemShaper,
    private readonly tx: V1Transaction,
  ) {}

  @Get('projects/:project_id/work-items')
  @IgnoresExpand()
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.workItem, list: 'page' })
  @ApiOperation({ operationId: 'v1_work_items_list' })
  async list(@Ctx() ctx: ProjectContext, @Req() req: FastifyRequest) {
    const page = v1ListQuery(req.query as RawQuery, WORK_ITEM_LIST, WORK_ITEM_FILTERS);
    const expand = v1Expand((req.query as RawQuery).expand);
    const env = await this.items.list(ctx, page.query, expand.v2);
    return v1List({ ...env, data: await this.shape.many(ctx, env.data, expand.project) }, page, (r) => r);
  }

  @Post('projects/:project_id/work-items')
  @IgnoresExpand()
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.workItem })
  @ApiOperation({ operationId: 'v1_work_items_create', description: 'v1 `module` adds the new item to that module.' })
  async create(@Ctx() ctx: ProjectContext, @Body() body: unknown) {
    const dto = await asV2Body(CreateWorkItemDto, fromV1(body, WORK_ITEM_IN));
    const module = (body as Record<string, unknown> | undefined)?.module;
    // The item and its module membership commit together: a refused module leaves no item behind.
    const created = await this.tx.run(async () => {
      const item = await this.items.create(ctx, dto, new Set());
      if (typeof module === 'string') await this.modules.changeWorkItems(ctx, module, { add: [item.id] });
      return item;
    });
    return this.shape.one(ctx, created);
  }

  @Get('projects/:project_id/work-items/:pk')
  @IgnoresExpand()
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.workItem })
  @ApiOperation({ operationId: 'v1_work_items_get' })
  async get(@Ctx() ctx: ProjectContext, @WorkItemIdParam('pk') pk: string, @Query('expand') expand: unknown) {
    const e = v1Expand(expand);
    return this.shape.one(ctx, await this.items.get(ctx, pk, e.v2), e.project);
  }

  @Patch('projects/:project_id/work-items/:pk')
  @IgnoresExpand()
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.workItem })
  @ApiOperation({ operationId: 'v1_work_items_update' })
  async update(@Ctx() ctx: ProjectContext, @WorkItemIdParam('pk') pk: string, @Body() body: unknown) {
    const dto = await asV2Body(UpdateWorkItemDto, fromV1(body, WORK_ITEM_IN));
    return this.shape.one(ctx, await this.items.update(ctx, pk, dto, new Set()));
  }

  @Put('projects/:project_id/work-items/:pk')
  @IgnoresExpand()
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.workItem })
  @ApiOperation({ operationId: 'v1_work_items_replace' })
  replace(@Ctx() ctx: ProjectContext, @WorkItemIdParam('pk') pk: string, @Body() body: unknown) {
    return this.update(ctx, pk, body);
  }

  @Delete('projects/:project_id/work-items/:pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_work_items_delete' })
  async remove(@Ctx() ctx: ProjectContext, @WorkItemIdParam('pk') pk: string): Promise<void> {
    await this.items.remove(ctx, pk);
  }

  @Post('projects/:project_id/work-items/:pk/archive')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.workItem })
  @ApiOperation({ operationId: 'v1_work_items_archive' })
  async archive(@Ctx() ctx: ProjectContext, @WorkItemIdParam('pk') pk: string) {
    return this.shape.one(ctx, await this.items.archive(ctx, pk));
  }

  @Delete('projects/:project_id/work-items/:pk/unarchive')
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_work_items_unarchive' })
  async unarchive(@Ctx() ctx: ProjectContext, @WorkItemIdParam('pk') pk: string): Promise<void> {
    await this.items.unarchive(ctx, pk);
  }

  @Get('work-items')
  @IgnoresExpand()
  @Authenticated(WORKSPACE_READ)
  @V1Returns({ record: V1_RECORDS.workItem, list: 'page' })
  @ApiOperation({
    operationId: 'v1_work_items_list_workspace',
    description: 'Every project the caller can read; v1 filter names and `project` (v2 `project_id`) too.',
  })
  async listWorkspace(@Ctx() ctx: WorkspaceContext, @Req() req: FastifyRequest) {
    const page = v1ListQuery(req.query as RawQuery, WORKSPACE_WORK_ITEM_LIST, WORKSPACE_FILTERS);
    const expand = v1Expand((req.query as RawQuery).expand);
    const env = await this.items.listWorkspace(ctx, page.query, expand.v2);
    return v1List({ ...env, data: await this.shape.many(ctx, env.data) }, page, (r) => r);
  }

  /** The workspace list's total under the same filters (no grouping: `group_by` is 400 like any unknown filter). */
  @Get('work-items/count')
  @Authenticated(WORKSPACE_READ)
  @V1Returns({ schema: V1_COUNT })
  @ApiOperation({ operationId: 'v1_work_items_count_workspace' })
  async countWorkspace(@Ctx() ctx: WorkspaceContext, @Req() req: FastifyRequest) {
    const raw = { ...(req.query as RawQuery), per_page: '1' };
    const page = v1ListQuery(raw, WORKSPACE_WORK_ITEM_LIST, WORKSPACE_FILTERS);
    const env = await this.items.listWorkspace(ctx, page.query, new Set());
    const total = 'total_count' in env && typeof env.total_count === 'number' ? env.total_count : 0;
    return { grouped_by: null, sub_grouped_by: null, total_count: total };
  }

  @Get('work-items/:identifier')
  @IgnoresExpand()
  @Authenticated({ scope: 'projects.work_items:read', workspace: WorkspaceRole.Guest })
  @V1Returns({ record: V1_RECORDS.workItem })
  @ApiOperation({ operationId: 'v1_work_items_get_by_identifier' })
  async byIdentifier(
    @Ctx() ctx: WorkspaceContext,
    @Param('identifier') identifier: string,
    @Query('expand') expand: unknown,
  ) {
    // The project expansion needs the project route; here `project` is the item's project id.
    const item = await this.items.getByIdentifier(ctx, identifier, v1Expand(expand).v2);
    return this.shape.one(ctx, item);
  }
}
