import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiExtraModels,
  getSchemaPath,
} from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { UuidParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import {
  CreateWorkflowDto,
  CreateWorkflowStateDto,
  CreateWorkflowTransitionDto,
  UpdateWorkflowDto,
  UpdateWorkflowStateDto,
  UpdateWorkflowTransitionDto,
  WorkflowDto,
  WorkflowStateDto,
  WorkflowTransitionDto,
} from './workflows.dto';
import { TRANSITION_LIST, WORKFLOW_LIST, WORKFLOW_STATE_LIST } from './workflows.queries';
import { WorkflowsService } from './workflows.service';
import { Versioned } from '../common/http/conditional';

const READ = { scope: 'projects.workflows:read', project: ProjectRole.Guest } as const;
const WRITE = { scope: 'projects.workflows:write', project: ProjectRole.Admin } as const;
const BAD_STATE: [number, string] = [
  400,
  '`validation_error` (also: a state id that is not a state of the project, naming the field)',
];

@ApiTags('workflows')
@ApiSlugParam()
@ApiUuidParam('project_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/workflows')
export class WorkflowsController {
  constructor(private readonly workflows: WorkflowsService) {}

  @Get()
  @Authenticated(READ)
  @ApiOperation({ operationId: 'workflows_list', summary: 'List workflows' })
  @ApiListQuery(WORKFLOW_LIST)
  @ApiListResponse(WorkflowDto)
  list(@Ctx() ctx: ProjectContext, @ListParams(WORKFLOW_LIST) q: ListQuery) {
    return this.workflows.list(ctx, q);
  }

  @Post()
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'workflows_create',
    summary: 'Create a workflow',
    description:
      'At most one workflow per project is active: `is_active: true` deactivates the previous one. Rules apply while the project feature is_workflow_enabled is on. Audit: workflow.created.',
  })
  @ApiCreatedResponse({ type: WorkflowDto })
  @ApiProblemResponses(BAD_STATE, 404, [409, '`conflict`: the name is already used in the project'])
  create(@Ctx() ctx: ProjectContext, @Body() body: CreateWorkflowDto) {
    return this.workflows.create(ctx, body);
  }

  @Versioned('workflows')
  @Get(':pk')
  @Authenticated(READ)
  @ApiOperation({ operationId: 'workflows_get', summary: 'Get a workflow' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkflowDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string) {
    return this.workflows.get(ctx, pk);
  }

  @Versioned('workflows')
  @Patch(':pk')
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'workflows_update',
    summary: 'Update a workflow (partial)',
    description: 'Audit: workflow.updated (old and new values).',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkflowDto })
  @ApiProblemResponses(BAD_STATE, 404, [409, '`conflict`: the name is already used in the project'])
  update(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: UpdateWorkflowDto) {
    return this.workflows.update(ctx, pk, body);
  }

  @Versioned('workflows')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'workflows_delete',
    summary: 'Delete a workflow (soft)',
    description: 'Removes its workflow states and transitions too. Audit: workflow.deleted.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.workflows.remove(ctx, pk);
  }
}

@ApiTags('workflows')
@ApiSlugParam()
@ApiUuidParam('project_id')
@ApiUuidParam('workflow_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/workflows/:workflow_id/states')
export class WorkflowStatesController {
  constructor(private readonly workflows: WorkflowsService) {}

  @Get()
  @Authenticated(READ)
  @ApiOperation({ operationId: 'workflow_states_list', summary: 'List workflow states' })
  @ApiListQuery(WORKFLOW_STATE_LIST)
  @ApiListResponse(WorkflowStateDto)
  list(
    @Ctx() ctx: ProjectContext,
    @UuidParam('workflow_id') workflowId: string,
    @ListParams(WORKFLOW_STATE_LIST) q: ListQuery,
  ) {
    return this.workflows.listStates(ctx, workflowId, q);
  }

  @Post()
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'workflow_states_create',
    summary: 'Create a workflow state',
    description:
      "`allow_issue_creation: false` forbids creating work items in the state while the workflow applies. Two forms: `{state_id, allow_issue_creation, is_default}` answers the row (409 when the state already has one); the later edition's attach form `{state_ids: [...]}` (Plane's client) attaches every state not yet in the workflow and answers the array of rows for the states sent (already attached ones as they are). Audit: workflow.updated per row created.",
  })
  @ApiExtraModels(WorkflowStateDto)
  @ApiCreatedResponse({
    description: 'The row (single form) or the array of rows (`state_ids` form)',
    schema: {
      oneOf: [
        { $ref: getSchemaPath(WorkflowStateDto) },
        { type: 'array', items: { $ref: getSchemaPath(WorkflowStateDto) } },
      ],
    },
  })
  @ApiProblemResponses(BAD_STATE, 404, [409, '`conflict`: the state already has a row in the workflow'])
  create(
    @Ctx() ctx: ProjectContext,
    @UuidParam('workflow_id') workflowId: string,
    @Body() body: CreateWorkflowStateDto,
  ) {
    return this.workflows.createState(ctx, workflowId, body);
  }

  @Versioned('workflow_states')
  @Get(':pk')
  @Authenticated(READ)
  @ApiOperation({ operationId: 'workflow_states_get', summary: 'Get a workflow state' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkflowStateDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @UuidParam('workflow_id') workflowId: string, @UuidParam('pk') pk: string) {
    return this.workflows.getState(ctx, workflowId, pk);
  }

  @Versioned('workflow_states')
  @Patch(':pk')
  @Authenticated(WRITE)
  @ApiOperation({ operationId: 'workflow_states_update', summary: 'Update a workflow state (partial)' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkflowStateDto })
  @ApiProblemResponses(BAD_STATE, 404, [409, '`conflict`: the state already has a row in the workflow'])
  update(
    @Ctx() ctx: ProjectContext,
    @UuidParam('workflow_id') workflowId: string,
    @UuidParam('pk') pk: string,
    @Body() body: UpdateWorkflowStateDto,
  ) {
    return this.workflows.updateState(ctx, workflowId, pk, body);
  }

  @Versioned('workflow_states')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'workflow_states_delete',
    summary: 'Delete a workflow state (soft)',
    description: 'Removes its outgoing transitions too. Audit: workflow.updated.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(
    @Ctx() ctx: ProjectContext,
    @UuidParam('workflow_id') workflowId: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.workflows.removeState(ctx, workflowId, pk);
  }
}

@ApiTags('workflows')
@ApiSlugParam()
@ApiUuidParam('project_id')
@ApiUuidParam('workflow_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/workflows/:workflow_id/state-transitions')
export class WorkflowTransitionsController {
  constructor(private readonly workflows: WorkflowsService) {}

  @Get()
  @Authenticated(READ)
  @ApiOperation({ operationId: 'workflow_transitions_list', summary: 'List workflow state transitions' })
  @ApiListQuery(TRANSITION_LIST)
  @ApiListResponse(WorkflowTransitionDto)
  list(
    @Ctx() ctx: ProjectContext,
    @UuidParam('workflow_id') workflowId: string,
    @ListParams(TRANSITION_LIST) q: ListQuery,
  ) {
    return this.workflows.listTransitions(ctx, workflowId, q);
  }

  @Post()
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'workflow_transitions_create',
    summary: 'Create a workflow state transition',
    description:
      'Once a workflow state has a transition, work items in that state may move only to the states its transitions lead to. Audit: workflow.updated.',
  })
  @ApiCreatedResponse({ type: WorkflowTransitionDto })
  @ApiProblemResponses(BAD_STATE, 404, [409, '`conflict`: the workflow state already has a transition to that state'])
  create(
    @Ctx() ctx: ProjectContext,
    @UuidParam('workflow_id') workflowId: string,
    @Body() body: CreateWorkflowTransitionDto,
  ) {
    return this.workflows.createTransition(ctx, workflowId, body);
  }

  @Versioned('workflow_state_transitions')
  @Get(':pk')
  @Authenticated(READ)
  @ApiOperation({ operationId: 'workflow_transitions_get', summary: 'Get a workflow state transition' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkflowTransitionDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @UuidParam('workflow_id') workflowId: string, @UuidParam('pk') pk: string) {
    return this.workflows.getTransition(ctx, workflowId, pk);
  }

  @Versioned('workflow_state_transitions')
  @Patch(':pk')
  @Authenticated(WRITE)
  @ApiOperation({ operationId: 'workflow_transitions_update', summary: 'Update a workflow state transition (partial)' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkflowTransitionDto })
  @ApiProblemResponses(BAD_STATE, 404, [409, '`conflict`: the workflow state already has a transition to that state'])
  update(
    @Ctx() ctx: ProjectContext,
    @UuidParam('workflow_id') workflowId: string,
    @UuidParam('pk') pk: string,
    @Body() body: UpdateWorkflowTransitionDto,
  ) {
    return this.workflows.updateTransition(ctx, workflowId, pk, body);
  }

  @Versioned('workflow_state_transitions')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @ApiOperation({ operationId: 'workflow_transitions_delete', summary: 'Delete a workflow state transition (soft)' })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(
    @Ctx() ctx: ProjectContext,
    @UuidParam('workflow_id') workflowId: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.workflows.removeTransition(ctx, workflowId, pk);
  }
}
