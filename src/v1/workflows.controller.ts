import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { ErrorCode } from '../common/errors/error-codes';
import { ProblemException } from '../common/errors/problem.exception';
import { UuidParam } from '../common/http/params';
import {
  CreateWorkflowDto,
  CreateWorkflowStateDto,
  CreateWorkflowTransitionDto,
  UpdateWorkflowDto,
  UpdateWorkflowTransitionDto,
  WorkflowTransitionDto,
} from '../workflows/workflows.dto';
import { TRANSITION_LIST, WORKFLOW_LIST, WORKFLOW_STATE_LIST } from '../workflows/workflows.queries';
import { WorkflowsService } from '../workflows/workflows.service';
import { everyRow } from './v1-list';
import { asV2Body } from './v1-shape';
import { V1Shaper } from './v1-shaper';
import { V1Transaction } from './v1-transaction';
import { V1_RECORDS, V1Returns } from './v1-responses';

const READ = { scope: 'projects.workflows:read', project: ProjectRole.Guest } as const;
const WRITE = { scope: 'projects.workflows:write', project: ProjectRole.Admin } as const;

/**
 * v1 answers a repeated transition with 400 "... already exists" (what Plane's SDK reads to return null from
 * transitions.create); v2 keeps the spec's 409. Only the status and message differ: the rule is v2's.
 */
function repeatedTransition(e: unknown): unknown {
  if (!(e instanceof ProblemException) || e.code !== ErrorCode.Conflict) return e;
  return ProblemException.validation(
    'transition_state_id',
    'A transition from this state to that state already exists.',
  );
}

/**
 * Workflows through v1: lists are arrays; v1 names a workflow's states and a transition's starting point by the
 * project state's id, where v2 names the workflow's own state row (workflow_state_id): mapped here both ways.
 */
@ApiTags('v1 workflows')
@Controller('api/v1/workspaces/:slug/projects/:project_id/workflows')
export class V1WorkflowsController {
  constructor(
    private readonly workflows: WorkflowsService,
    private readonly shape: V1Shaper,
    private readonly tx: V1Transaction,
  ) {}

  /** The workflow's rows: project state id -> workflow state id, and back. */
  private async rows(ctx: ProjectContext, workflow: string) {
    const rows = await everyRow(WORKFLOW_STATE_LIST, (q) => this.workflows.listStates(ctx, workflow, q));
    return {
      byState: new Map(rows.map((r) => [r.state_id, r.id])),
      byRow: new Map(rows.map((r) => [r.id, r.state_id])),
    };
  }

  private transitionV1(t: WorkflowTransitionDto, byRow: Map<string, string>) {
    return { ...t, state_id: byRow.get(t.workflow_state_id) ?? null };
  }

  @Get()
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.workflow, list: 'array' })
  @ApiOperation({ operationId: 'v1_workflows_list', summary: "The project's workflows (an array)" })
  async list(@Ctx() ctx: ProjectContext) {
    const rows = await everyRow(WORKFLOW_LIST, (q) => this.workflows.list(ctx, q));
    return this.shape.many('workflows', ctx, rows, { work_item_type_ids: 'work_item_type_ids' });
  }

  @Post()
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.workflow })
  @ApiOperation({ operationId: 'v1_workflows_create' })
  async create(@Ctx() ctx: ProjectContext, @Body() body: unknown) {
    const wf = await this.workflows.create(ctx, await asV2Body(CreateWorkflowDto, body));
    return this.shape.one('workflows', ctx, wf, { work_item_type_ids: 'work_item_type_ids' });
  }

  @Patch(':pk')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.workflow })
  @ApiOperation({ operationId: 'v1_workflows_update' })
  async update(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: unknown) {
    const wf = await this.workflows.update(ctx, pk, await asV2Body(UpdateWorkflowDto, body));
    return this.shape.one('workflows', ctx, wf, { work_item_type_ids: 'work_item_type_ids' });
  }

  @Put(':pk')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.workflow })
  @ApiOperation({ operationId: 'v1_workflows_replace' })
  replace(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: unknown) {
    return this.update(ctx, pk, body);
  }

  @Post(':workflow_id/states')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.workflowState, list: 'array' })
  @ApiOperation({
    operationId: 'v1_workflow_states_attach',
    description:
      '`state_ids`: each project state gets a row in the workflow, in order, in one transaction (a state already in it is 409 and adds none).',
  })
  async attach(@Ctx() ctx: ProjectContext, @UuidParam('workflow_id') workflow: string, @Body() body: unknown) {
    const ids = (body as { state_ids?: unknown } | null)?.state_ids;
    if (!Array.isArray(ids)) throw ProblemException.validation('state_ids', 'Must be an array of state ids.');
    const dtos: CreateWorkflowStateDto[] = [];
    for (const state_id of ids) dtos.push(await asV2Body(CreateWorkflowStateDto, { state_id }));
    // Every state or none: a state a rule refuses (already in the workflow) rolls back the ones before it.
    return this.tx.run(async () => {
      const created = [];
      for (const dto of dtos) created.push(await this.workflows.createState(ctx, workflow, dto));
      return created;
    });
  }

  @Delete(':workflow_id/states/:state_id')
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_workflow_states_detach', summary: 'Remove a project state from the workflow' })
  async detach(
    @Ctx() ctx: ProjectContext,
    @UuidParam('workflow_id') workflow: string,
    @UuidParam('state_id') state: string,
  ): Promise<void> {
    const row = (await this.rows(ctx, workflow)).byState.get(state);
    if (!row) throw new ProblemException(ErrorCode.ResourceNotFound, 'This state is not in the workflow.');
    await this.workflows.removeState(ctx, workflow, row);
  }

  @Get(':workflow_id/state-transitions')
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.workflowTransition, list: 'array' })
  @ApiOperation({ operationId: 'v1_workflow_transitions_list', summary: "The workflow's transitions (an array)" })
  async transitions(@Ctx() ctx: ProjectContext, @UuidParam('workflow_id') workflow: string) {
    const { byRow } = await this.rows(ctx, workflow);
    const list = await everyRow(TRANSITION_LIST, (q) => this.workflows.listTransitions(ctx, workflow, q));
    return list.map((t) => this.transitionV1(t, byRow));
  }

  @Post(':workflow_id/state-transitions')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.workflowTransition })
  @ApiOperation({
    operationId: 'v1_workflow_transitions_create',
    description: '`state_id` (a project state in the workflow) is the state moved from.',
  })
  async createTransition(
    @Ctx() ctx: ProjectContext,
    @UuidParam('workflow_id') workflow: string,
    @Body() body: unknown,
  ) {
    const { byState, byRow } = await this.rows(ctx, workflow);
    const src = (body ?? {}) as Record<string, unknown>;
    const from = typeof src.state_id === 'string' ? byState.get(src.state_id.toLowerCase()) : undefined;
    if (src.workflow_state_id === undefined && !from)
      throw ProblemException.validation('state_id', 'Must be a state of this workflow (attach it first).');
    const dto = await asV2Body(CreateWorkflowTransitionDto, { workflow_state_id: from, ...src });
    const created = await this.workflows.createTransition(ctx, workflow, dto).catch((e: unknown) => {
      throw repeatedTransition(e);
    });
    return this.transitionV1(created, byRow);
  }

  @Patch(':workflow_id/state-transitions/:pk')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.workflowTransition })
  @ApiOperation({ operationId: 'v1_workflow_transitions_update' })
  async updateTransition(
    @Ctx() ctx: ProjectContext,
    @UuidParam('workflow_id') workflow: string,
    @UuidParam('pk') pk: string,
    @Body() body: unknown,
  ) {
    const { byRow } = await this.rows(ctx, workflow);
    const dto = await asV2Body(UpdateWorkflowTransitionDto, body);
    return this.transitionV1(await this.workflows.updateTransition(ctx, workflow, pk, dto), byRow);
  }

  @Delete(':workflow_id/state-transitions/:pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_workflow_transitions_delete' })
  async removeTransition(
    @Ctx() ctx: ProjectContext,
    @UuidParam('workflow_id') workflow: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.workflows.removeTransition(ctx, workflow, pk);
  }
}
