import { Body, Controller, Delete, Get, HttpCode, Inject, Post, Req, Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Authenticated, AuthRule } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { IgnoresExpand } from '../common/expand/expand';
import { UuidParam, WorkItemIdParam } from '../common/http/params';
import { RawQuery } from '../common/pagination/list-query';
import { TransferCycleDto } from '../cycles/cycles.dto';
import { WorkItemsChangeDto, WorkItemsMembershipDto } from '../common/membership/membership.dto';
import { CyclesService } from '../cycles/cycles.service';
import { ModulesService } from '../modules/modules.service';
import { WORK_ITEM_LIST } from '../work-items/work-items.queries';
import { WorkItemsService } from '../work-items/work-items.service';
import { v1List, v1ListQuery } from './v1-list';
import { asV2Body, fromV1 } from './v1-shape';
import { v1Expand, V1WorkItemShaper, WORK_ITEM_FILTERS } from './work-items.mapper';
import { V1_RECORDS, v1Object, V1_UUIDS, V1Returns } from './v1-responses';

/** v1 sends the work items to add as `issues`; v2 takes them as `add`. */
const ISSUES_IN = { issues: 'add' };

/** A container of work items (cycle, module) as its v2 service offers it. */
interface ContainerOps {
  get(ctx: ProjectContext, id: string): Promise<unknown>;
  changeWorkItems(ctx: ProjectContext, id: string, dto: WorkItemsMembershipDto): Promise<WorkItemsChangeDto>;
}

interface ContainerSpec<S extends ContainerOps> {
  name: string;
  kind: 'cycle' | 'module';
  service: Type<S>;
  read: AuthRule;
  write: AuthRule;
}

/**
 * v1's cycle-issues and module-issues: the v2 work item list filtered by the cycle or module, and the v2
 * membership change (add / remove) of the cycle or module.
 */
function v1ContainerIssuesController<S extends ContainerOps>(spec: ContainerSpec<S>): Type<unknown> {
  const segment = `${spec.kind}-issues`;
  const op = (id: string) => ApiOperation({ operationId: `v1_${spec.kind}_issues_${id}` });
  const uuid = { type: 'string', format: 'uuid' };
  const keys = ['issue', spec.kind, 'project', 'workspace'];
  const membership = v1Object(keys, uuid);
  @ApiTags(`v1 ${spec.kind}s`)
  @Controller(`api/v1/workspaces/:slug/projects/:project_id/${spec.kind}s/:pk/${segment}`)
  class V1ContainerIssues {
    constructor(
      @Inject(spec.service) private readonly container: S,
      private readonly items: WorkItemsService,
      private readonly workItems: V1WorkItemShaper,
    ) {}

    @Get()
    @IgnoresExpand()
    @Authenticated(spec.read)
    @op('list')
    @V1Returns({ record: V1_RECORDS.workItem, list: 'page' })
    async list(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Req() req: FastifyRequest) {
      await this.container.get(ctx, pk);
      const raw = { ...(req.query as RawQuery), [`${spec.kind}_id`]: pk };
      const page = v1ListQuery(raw, WORK_ITEM_LIST, WORK_ITEM_FILTERS);
      const expand = v1Expand((req.query as RawQuery).expand);
      const env = await this.items.list(ctx, page.query, expand.v2);
      return v1List({ ...env, data: await this.workItems.many(ctx, env.data, expand.project) }, page, (r) => r);
    }

    /** v1 answers the memberships it created: one record per work item added. */
    @Post()
    @Authenticated(spec.write)
    @op('add')
    @V1Returns({ schema: { type: 'array', items: membership } })
    async add(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: unknown) {
      const dto = await asV2Body(WorkItemsMembershipDto, fromV1(body, ISSUES_IN));
      const { added } = await this.container.changeWorkItems(ctx, pk, { add: dto.add ?? [] });
      const tenant = { project: ctx.project.id, workspace: ctx.workspace.id };
      return added.map((issue) => ({ issue, [spec.kind]: pk, ...tenant }));
    }

    @Delete(':work_item_id')
    @HttpCode(204)
    @Authenticated(spec.write)
    @op('remove')
    @V1Returns({})
    async remove(
      @Ctx() ctx: ProjectContext,
      @UuidParam('pk') pk: string,
      @WorkItemIdParam('work_item_id') item: string,
    ): Promise<void> {
      await this.container.changeWorkItems(ctx, pk, { remove: [item] });
    }
  }
  Object.defineProperty(V1ContainerIssues, 'name', { value: spec.name });
  return V1ContainerIssues;
}

/** v1's transfer answer: v2's result and v1's `message`. */
const V1_TRANSFER = {
  type: 'object',
  properties: {
    message: { type: 'string', enum: ['Success'] },
    new_cycle_id: { type: 'string', format: 'uuid' },
    transferred: V1_UUIDS,
  },
  required: ['message', 'new_cycle_id', 'transferred'],
};

const CYCLE_READ = { scope: 'projects.cycles:read', project: ProjectRole.Guest } as const;
const CYCLE_WRITE = { scope: 'projects.cycles:write', project: ProjectRole.Contributor } as const;

export const V1CycleIssuesController = v1ContainerIssuesController({
  name: 'V1CycleIssuesController',
  kind: 'cycle',
  service: CyclesService,
  read: CYCLE_READ,
  write: CYCLE_WRITE,
});

export const V1ModuleIssuesController = v1ContainerIssuesController({
  name: 'V1ModuleIssuesController',
  kind: 'module',
  service: ModulesService,
  read: { scope: 'projects.modules:read', project: ProjectRole.Guest },
  write: { scope: 'projects.modules:write', project: ProjectRole.Contributor },
});

@ApiTags('v1 cycles')
@Controller('api/v1/workspaces/:slug/projects/:project_id/cycles/:pk/transfer-issues')
export class V1CycleTransferController {
  constructor(private readonly cycles: CyclesService) {}

  @Post()
  @Authenticated(CYCLE_WRITE)
  @V1Returns({ schema: V1_TRANSFER })
  @ApiOperation({ operationId: 'v1_cycle_transfer_issues' })
  async transfer(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: unknown) {
    const result = await this.cycles.transfer(ctx, pk, await asV2Body(TransferCycleDto, body));
    return { message: 'Success', ...result };
  }
}
