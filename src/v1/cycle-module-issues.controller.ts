import { Body, Controller, Delete, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { IgnoresExpand } from '../common/expand/expand';
import { UuidParam, WorkItemIdParam } from '../common/http/params';
import { RawQuery } from '../common/pagination/list-query';
import { TransferCycleDto, WorkItemsMembershipDto } from '../cycles/cycles.dto';
import { CyclesService } from '../cycles/cycles.service';
import { ModulesService } from '../modules/modules.service';
import { WORK_ITEM_LIST } from '../work-items/work-items.repository';
import { WorkItemsService } from '../work-items/work-items.service';
import { v1List, v1ListQuery } from './v1-list';
import { asV2Body, fromV1 } from './v1-shape';
import { v1Expand, V1WorkItemShaper, WORK_ITEM_FILTERS } from './work-items.mapper';

type Container = 'cycle' | 'module';

/** v1 sends the work items to add as `issues`; v2 takes them as `add`. */
const ISSUES_IN = { issues: 'add' };

/**
 * v1's cycle-issues and module-issues: the v2 work item list filtered by the cycle or module, and the v2
 * membership change (add / remove) of the cycle or module.
 */
abstract class V1ContainerIssues {
  protected abstract readonly kind: Container;
  constructor(
    protected readonly items: WorkItemsService,
    protected readonly workItems: V1WorkItemShaper,
  ) {}

  protected abstract exists(ctx: ProjectContext, id: string): Promise<unknown>;
  protected abstract change(ctx: ProjectContext, id: string, dto: WorkItemsMembershipDto): Promise<{ added: string[] }>;

  protected async listIn(ctx: ProjectContext, id: string, req: FastifyRequest) {
    await this.exists(ctx, id);
    const raw = { ...(req.query as RawQuery), [`${this.kind}_id`]: id };
    const page = v1ListQuery(raw, WORK_ITEM_LIST, WORK_ITEM_FILTERS);
    const expand = v1Expand((req.query as RawQuery).expand);
    const env = await this.items.list(ctx, page.query, expand.v2);
    return v1List({ ...env, data: await this.workItems.many(ctx, env.data, expand.project) }, page, (r) => r);
  }

  /** v1 answers the memberships it created: one record per work item added. */
  protected async addTo(ctx: ProjectContext, id: string, body: unknown) {
    const dto = await asV2Body(WorkItemsMembershipDto, fromV1(body, ISSUES_IN));
    const { added } = await this.change(ctx, id, { add: dto.add ?? [] });
    const tenant = { project: ctx.project.id, workspace: ctx.workspace.id };
    return added.map((issue) => ({ issue, [this.kind]: id, ...tenant }));
  }

  protected async removeFrom(ctx: ProjectContext, id: string, item: string) {
    await this.change(ctx, id, { remove: [item] });
  }
}

const CYCLE_READ = { scope: 'projects.cycles:read', project: ProjectRole.Guest } as const;
const CYCLE_WRITE = { scope: 'projects.cycles:write', project: ProjectRole.Contributor } as const;

@ApiTags('v1 cycles')
@Controller('api/v1/workspaces/:slug/projects/:project_id/cycles/:pk')
export class V1CycleIssuesController extends V1ContainerIssues {
  protected readonly kind = 'cycle';
  constructor(
    items: WorkItemsService,
    workItems: V1WorkItemShaper,
    private readonly cycles: CyclesService,
  ) {
    super(items, workItems);
  }
  protected exists(ctx: ProjectContext, id: string) {
    return this.cycles.get(ctx, id);
  }
  protected change(ctx: ProjectContext, id: string, dto: WorkItemsMembershipDto) {
    return this.cycles.changeWorkItems(ctx, id, dto);
  }

  @Get('cycle-issues')
  @IgnoresExpand()
  @Authenticated(CYCLE_READ)
  @ApiOperation({ operationId: 'v1_cycle_issues_list' })
  list(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Req() req: FastifyRequest) {
    return this.listIn(ctx, pk, req);
  }

  @Post('cycle-issues')
  @Authenticated(CYCLE_WRITE)
  @ApiOperation({ operationId: 'v1_cycle_issues_add' })
  add(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: unknown) {
    return this.addTo(ctx, pk, body);
  }

  @Delete('cycle-issues/:work_item_id')
  @HttpCode(204)
  @Authenticated(CYCLE_WRITE)
  @ApiOperation({ operationId: 'v1_cycle_issues_remove' })
  async remove(
    @Ctx() ctx: ProjectContext,
    @UuidParam('pk') pk: string,
    @WorkItemIdParam('work_item_id') item: string,
  ): Promise<void> {
    await this.removeFrom(ctx, pk, item);
  }

  @Post('transfer-issues')
  @Authenticated(CYCLE_WRITE)
  @ApiOperation({ operationId: 'v1_cycle_transfer_issues' })
  async transfer(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: unknown) {
    const result = await this.cycles.transfer(ctx, pk, await asV2Body(TransferCycleDto, body));
    return { message: 'Success', ...result };
  }
}

const MODULE_READ = { scope: 'projects.modules:read', project: ProjectRole.Guest } as const;
const MODULE_WRITE = { scope: 'projects.modules:write', project: ProjectRole.Contributor } as const;

@ApiTags('v1 modules')
@Controller('api/v1/workspaces/:slug/projects/:project_id/modules/:pk')
export class V1ModuleIssuesController extends V1ContainerIssues {
  protected readonly kind = 'module';
  constructor(
    items: WorkItemsService,
    workItems: V1WorkItemShaper,
    private readonly modules: ModulesService,
  ) {
    super(items, workItems);
  }
  protected exists(ctx: ProjectContext, id: string) {
    return this.modules.get(ctx, id);
  }
  protected change(ctx: ProjectContext, id: string, dto: WorkItemsMembershipDto) {
    return this.modules.changeWorkItems(ctx, id, dto);
  }

  @Get('module-issues')
  @IgnoresExpand()
  @Authenticated(MODULE_READ)
  @ApiOperation({ operationId: 'v1_module_issues_list' })
  list(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Req() req: FastifyRequest) {
    return this.listIn(ctx, pk, req);
  }

  @Post('module-issues')
  @Authenticated(MODULE_WRITE)
  @ApiOperation({ operationId: 'v1_module_issues_add' })
  add(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: unknown) {
    return this.addTo(ctx, pk, body);
  }

  @Delete('module-issues/:work_item_id')
  @HttpCode(204)
  @Authenticated(MODULE_WRITE)
  @ApiOperation({ operationId: 'v1_module_issues_remove' })
  async remove(
    @Ctx() ctx: ProjectContext,
    @UuidParam('pk') pk: string,
    @WorkItemIdParam('work_item_id') item: string,
  ): Promise<void> {
    await this.removeFrom(ctx, pk, item);
  }
}
