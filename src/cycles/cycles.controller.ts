import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { UuidParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { CreateCycleDto, CycleDto, TransferCycleDto, TransferResultDto, UpdateCycleDto } from './cycles.dto';
import { WorkItemsChangeDto, WorkItemsMembershipDto } from '../common/membership/membership.dto';
import { CYCLE_LIST } from './cycles.queries';
import { CyclesService } from './cycles.service';
import { Versioned } from '../common/http/conditional';
import { Bodyless } from '../common/http/bodyless';

const DISABLED_400 =
  '`validation_error`: invalid field, or cycles are disabled for the project (`is_cycles_enabled` false)';
const ARCHIVED_409 = '`cycle_archived`: the cycle is archived (unarchive it first)';

@ApiTags('cycles')
@ApiSlugParam()
@ApiUuidParam('project_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/cycles')
export class CyclesController {
  constructor(private readonly cycles: CyclesService) {}

  @Get()
  @Authenticated({ scope: 'projects.cycles:read', project: ProjectRole.Guest })
  @ApiOperation({
    operationId: 'cycles_list',
    summary: 'List cycles',
    description: 'Default order created_at. Works while the cycles feature is off.',
  })
  @ApiListQuery(CYCLE_LIST)
  @ApiListResponse(CycleDto)
  list(@Ctx() ctx: ProjectContext, @ListParams(CYCLE_LIST) q: ListQuery) {
    return this.cycles.list(ctx, q);
  }

  @Post()
  @Authenticated({ scope: 'projects.cycles:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'cycles_create',
    summary: 'Create a cycle',
    description: 'owned_by_id is set to the caller and is not accepted. end_date may not be before start_date.',
  })
  @ApiCreatedResponse({ type: CycleDto })
  @ApiProblemResponses([400, DISABLED_400], 404, [409, '`conflict`: name in use in this project'])
  create(@Ctx() ctx: ProjectContext, @Body() body: CreateCycleDto) {
    return this.cycles.create(ctx, body);
  }

  @Versioned('cycles')
  @Get(':pk')
  @Authenticated({ scope: 'projects.cycles:read', project: ProjectRole.Guest })
  @ApiOperation({
    operationId: 'cycles_get',
    summary: 'Get a cycle',
    description: 'Carries `progress`: the count of its work items per state group.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: CycleDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string) {
    return this.cycles.get(ctx, pk);
  }

  @Versioned('cycles')
  @Patch(':pk')
  @Authenticated({ scope: 'projects.cycles:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'cycles_update',
    summary: 'Update a cycle',
    description: 'Partial; null clears dates; owned_by_id and audit fields are ignored.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: CycleDto })
  @ApiProblemResponses([400, DISABLED_400], 404, [409, `\`conflict\`: name in use in this project; ${ARCHIVED_409}`])
  update(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: UpdateCycleDto) {
    return this.cycles.update(ctx, pk, body);
  }

  @Versioned('cycles')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated({ scope: 'projects.cycles:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'cycles_delete',
    summary: 'Delete a cycle (soft)',
    description: 'The name is freed; its work items stay in the project and lose their cycle. A repeat is 404.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses([400, DISABLED_400], 404, [409, ARCHIVED_409])
  async remove(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.cycles.remove(ctx, pk);
  }

  @Post(':pk/work-items')
  @HttpCode(200)
  @Authenticated({ scope: 'projects.cycles:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'cycles_work_items',
    summary: 'Add or remove cycle work items',
    description:
      'A work item is in at most one cycle: adding it here moves it out of its previous cycle. Ids that are not work items of this project ' +
      'make the whole request 400 naming them. `added` lists the ids newly placed in this cycle, `removed` those taken out ' +
      '(already-there or not-there ids are not repeated).',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemsChangeDto })
  @ApiProblemResponses([400, DISABLED_400], 404, [409, ARCHIVED_409])
  changeWorkItems(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: WorkItemsMembershipDto) {
    return this.cycles.changeWorkItems(ctx, pk, body);
  }

  @Post(':pk/transfer')
  @HttpCode(200)
  @Authenticated({ scope: 'projects.cycles:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'cycles_transfer',
    summary: 'Transfer unfinished work items to another cycle',
    description:
      'Moves the work items of this cycle whose state group is neither completed nor cancelled (archived ones stay) to new_cycle_id, ' +
      'another cycle of the project that has not ended.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: TransferResultDto })
  @ApiProblemResponses([400, DISABLED_400], 404, [409, `${ARCHIVED_409} (the source cycle)`])
  transfer(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: TransferCycleDto) {
    return this.cycles.transfer(ctx, pk, body);
  }

  @Post(':pk/archive')
  @Bodyless()
  @HttpCode(200)
  @Authenticated({ scope: 'projects.cycles:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'cycles_archive',
    summary: 'Archive a cycle',
    description:
      'Bodyless. Only a completed cycle (end_date in the past) can be archived, as in Plane. The cycle leaves the ' +
      'cycle list and the detail read (listed by GET .../archived-cycles/); its work items stay in it; every write ' +
      'to it is 409 `cycle_archived` until it is unarchived, archiving it again included.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: CycleDto })
  @ApiProblemResponses([400, DISABLED_400], 404, [
    409,
    `\`not_archivable\`: the cycle has not ended (no end_date, or end_date not in the past); ${ARCHIVED_409}`,
  ])
  archive(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string) {
    return this.cycles.setArchived(ctx, pk, true);
  }

  @Post(':pk/unarchive')
  @Bodyless()
  @HttpCode(200)
  @Authenticated({ scope: 'projects.cycles:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'cycles_unarchive',
    summary: 'Unarchive a cycle',
    description: 'Bodyless; idempotent (a cycle that is not archived is returned unchanged).',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: CycleDto })
  @ApiProblemResponses([400, DISABLED_400], 404)
  unarchive(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string) {
    return this.cycles.setArchived(ctx, pk, false);
  }
}

@ApiTags('cycles')
@ApiSlugParam()
@ApiUuidParam('project_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/archived-cycles')
export class ArchivedCyclesController {
  constructor(private readonly cycles: CyclesService) {}

  @Get()
  @Authenticated({ scope: 'projects.cycles:read', project: ProjectRole.Guest })
  @ApiOperation({
    operationId: 'cycles_list_archived',
    summary: 'List archived cycles',
    description: "The project's archived cycles, with the cycle list's filters, orderings and pagination.",
  })
  @ApiListQuery(CYCLE_LIST)
  @ApiListResponse(CycleDto)
  list(@Ctx() ctx: ProjectContext, @ListParams(CYCLE_LIST) q: ListQuery) {
    return this.cycles.listArchived(ctx, q);
  }
}
