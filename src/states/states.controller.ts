import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { UuidParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { CreateStateDto, StateDto, UpdateStateDto } from './states.dto';
import { STATE_LIST } from './states.queries';
import { StatesService } from './states.service';
import { Versioned } from '../common/http/conditional';

@ApiTags('states')
@ApiSlugParam()
@ApiUuidParam('project_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/states')
export class StatesController {
  constructor(private readonly states: StatesService) {}

  @Get()
  @Authenticated({ scope: 'projects.states:read', project: ProjectRole.Guest })
  @ApiOperation({
    operationId: 'states_list',
    summary: 'List the states of a project',
    description: 'Default order `sequence` (not cursor-eligible: use order_by=created_at or id with paginate=cursor).',
  })
  @ApiListQuery(STATE_LIST)
  @ApiListResponse(StateDto)
  list(@Ctx() ctx: ProjectContext, @ListParams(STATE_LIST) q: ListQuery) {
    return this.states.list(ctx, q);
  }

  @Post()
  @Authenticated({ scope: 'projects.states:write', project: ProjectRole.Admin })
  @ApiOperation({
    operationId: 'states_create',
    summary: 'Create a state',
    description: '`is_default: true` demotes the previous default in the same transaction.',
  })
  @ApiCreatedResponse({ type: StateDto })
  @ApiProblemResponses(400, 404, [409, '`conflict`: the name is already used in the project'])
  create(@Ctx() ctx: ProjectContext, @Body() body: CreateStateDto) {
    return this.states.create(ctx, body);
  }

  @Versioned('states')
  @Get(':pk')
  @Authenticated({ scope: 'projects.states:read', project: ProjectRole.Guest })
  @ApiOperation({ operationId: 'states_get', summary: 'Get a state' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: StateDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string) {
    return this.states.get(ctx, pk);
  }

  @Versioned('states')
  @Patch(':pk')
  @Authenticated({ scope: 'projects.states:write', project: ProjectRole.Admin })
  @ApiOperation({
    operationId: 'states_update',
    summary: 'Update a state (partial)',
    description: '`is_triage` is read-only. `is_default: true` demotes the previous default.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: StateDto })
  @ApiProblemResponses(400, 404, [409, '`conflict`: the name is already used in the project'])
  update(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: UpdateStateDto) {
    return this.states.update(ctx, pk, body);
  }

  @Versioned('states')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated({ scope: 'projects.states:write', project: ProjectRole.Admin })
  @ApiOperation({
    operationId: 'states_delete',
    summary: 'Delete a state (soft)',
    description:
      'Refused for the default state and for a state that still holds work items; work items are never moved.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404, [
    409,
    '`conflict`: "The default state cannot be deleted." or "This state still has work items in it."',
  ])
  async remove(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.states.remove(ctx, pk);
  }
}
