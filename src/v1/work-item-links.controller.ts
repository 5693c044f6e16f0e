import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole, WORK_ITEM_READER } from '../common/auth/roles';
import { UuidParam, WorkItemIdParam } from '../common/http/params';
import { CreateWorkItemLinkDto, UpdateWorkItemLinkDto } from '../work-item-links/work-item-links.dto';
import { LINK_LIST } from '../work-item-links/work-item-links.queries';
import { WorkItemLinksService } from '../work-item-links/work-item-links.service';
import { V1ListParams, v1List, V1Page } from './v1-list';
import { asV2Body } from './v1-shape';
import { V1Shaper } from './v1-shaper';
import { V1_RECORDS, V1Returns } from './v1-responses';

const READ = { scope: 'projects.work_items.links:read', project: WORK_ITEM_READER } as const;
const WRITE = { scope: 'projects.work_items.links:write', project: ProjectRole.Contributor } as const;

/** A work item's links through v1: v2's fields with `issue`, `created_by`, `project`, `workspace` and stamps. */
@ApiTags('v1 links')
@Controller('api/v1/workspaces/:slug/projects/:project_id/work-items/:work_item_id/links')
export class V1WorkItemLinksController {
  constructor(
    private readonly links: WorkItemLinksService,
    private readonly shape: V1Shaper,
  ) {}

  @Get()
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.link, list: 'page' })
  @ApiOperation({ operationId: 'v1_links_list' })
  async list(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @V1ListParams(LINK_LIST) page: V1Page,
  ) {
    const env = await this.links.list(ctx, item, page.query);
    return v1List({ ...env, data: await this.shape.many('work_item_links', ctx, env.data) }, page, (r) => r);
  }

  @Post()
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.link })
  @ApiOperation({ operationId: 'v1_links_create' })
  async create(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') item: string, @Body() body: unknown) {
    const dto = await asV2Body(CreateWorkItemLinkDto, body);
    return this.shape.one('work_item_links', ctx, await this.links.create(ctx, item, dto));
  }

  @Get(':pk')
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.link })
  @ApiOperation({ operationId: 'v1_links_get' })
  async get(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') item: string, @UuidParam('pk') pk: string) {
    return this.shape.one('work_item_links', ctx, await this.links.get(ctx, item, pk));
  }

  @Patch(':pk')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.link })
  @ApiOperation({ operationId: 'v1_links_update' })
  async update(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @UuidParam('pk') pk: string,
    @Body() body: unknown,
  ) {
    const dto = await asV2Body(UpdateWorkItemLinkDto, body);
    return this.shape.one('work_item_links', ctx, await this.links.update(ctx, item, pk, dto));
  }

  @Put(':pk')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.link })
  @ApiOperation({ operationId: 'v1_links_replace' })
  replace(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @UuidParam('pk') pk: string,
    @Body() body: unknown,
  ) {
    return this.update(ctx, item, pk, body);
  }

  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_links_delete' })
  async remove(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.links.remove(ctx, item, pk);
  }
}
