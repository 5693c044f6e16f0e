import { Injectable } from '@nestjs/common';
import { assertNameFree, cleanName } from '../common/names/names';
import { DataSource, EntityManager } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { ProjectContext } from '../common/auth/request-context';
import { ErrorCode } from '../common/errors/error-codes';
import { ProblemException } from '../common/errors/problem.exception';
import { ListQuery } from '../common/pagination/list-query';
import { Queryable } from '../common/pagination/sql-params';
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
import { mapTransition, mapWorkflow, mapWorkflowState, WorkflowRow } from './workflows.mapper';
import { WorkflowsRepository } from './workflows.repository';

const lower = (id: string) => id.toLowerCase();
const uniqueIds = (ids: string[]) => [...new Set(ids.map(lower))];

/**
 * Workflows per project (later-edition shape): which states accept new work items and which moves
 * between states are allowed. Configuration endpoints, plus the two assertions work item writes call.
 *
 * Enforcement semantics (documented in docs/states-labels-estimates-workflows.md):
 * - Rules apply only while the project feature `is_workflow_enabled` is on AND the project has an
 *   active workflow (at most one exists). Otherwise nothing is restricted.
 * - Creation in a state is denied when the active workflow has a row for that state with
 *   `allow_issue_creation` false. States without a row are unrestricted.
 * - A move from A to B (A != B) is denied when A's row in the active workflow has at least one
 *   transition and none leads to B, or when the transitions leading to B all name `member_ids` and
 *   the caller is in none of them. A state without a row, or with no transitions, is unrestricted.
 * - Same-state is never a transition. Denials are 403 `workflow_transition_denied`.
 */
@Injectable()
export class WorkflowsService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: WorkflowsRepository,
    private readonly audit: AuditService,
  ) {}

  // ---- enforcement API (called by work item writes) ----

  /** Throws 403 `workflow_transition_denied` when the active workflow forbids creating work items in `stateId`. */
  async assertCreateAllowed(db: Queryable, ctx: ProjectContext, stateId: string): Promise<void> {
    this.assertCreationRule(await this.repo.creationRule(ctx.workspace.id, ctx.project.id, lower(stateId), db));
  }

  /** The same 403 for a rule already read (work item creates read it inside their insert: creationRuleSql). */
  assertCreationRule(allowed: boolean | null): void {
    if (allowed === false) {
      throw new ProblemException(
        ErrorCode.WorkflowTransitionDenied,
        "The project's workflow does not allow creating work items in this state. Create it in another state, or ask a project admin to change the workflow.",
      );
    }
  }

  /** Throws 403 `workflow_transition_denied` when the active workflow forbids moving a work item from `fromStateId` to `toStateId`. */
  async assertTransitionAllowed(
    db: Queryable,
    ctx: ProjectContext,
    fromStateId: string,
    toStateId: string,
  ): Promise<void> {
    const from = lower(fromStateId);
    const to = lower(toStateId);
    if (from === to) return;
    const { total, matching } = await this.repo.transitionRules(ctx.workspace.id, ctx.project.id, from, to, db);
    if (total === 0) return;
    if (!matching.length) {
      throw new ProblemException(
        ErrorCode.WorkflowTransitionDenied,
        "The project's workflow does not allow moving a work item from its current state to this state.",
      );
    }
    const userId = ctx.principal.userId;
    if (!matching.some((members) => members.length === 0 || members.includes(userId))) {
      throw new ProblemException(
        ErrorCode.WorkflowTransitionDenied,
        "The project's workflow allows this move only to the members named on the transition.",
      );
    }
  }

  // ---- workflows ----

  async list(ctx: ProjectContext, q: ListQuery) {
    const { rows, envelope } = await this.repo.list(ctx.workspace.id, ctx.project.id, q);
    return envelope(rows.map(mapWorkflow));
  }

  async get(ctx: ProjectContext, id: string): Promise<WorkflowDto> {
    return mapWorkflow(await this.workflowOr404(ctx, id));
  }

  async create(ctx: ProjectContext, dto: CreateWorkflowDto): Promise<WorkflowDto> {
    return this.ds.transaction(async (tx) => {
      const projectId = ctx.project.id;
      await this.repo.lockProject(projectId, tx);
      const name = cleanName(dto.name);
      await assertNameFree(this.repo.nameTaken(ctx.workspace.id, projectId, name, null, tx), 'workflow', name);
      const row = await this.repo.insert(
        ctx.workspace.id,
        projectId,
        {
          name,
          description: dto.description,
          work_item_type_ids: await this.checkTypes(ctx, dto.work_item_type_ids ?? [], tx),
        },
        ctx.principal.userId,
        tx,
      );
      if (dto.is_active) await this.repo.setFlag(ctx.workspace.id, projectId, row.id, 'is_active', true, tx);
      if (dto.is_default) await this.repo.setFlag(ctx.workspace.id, projectId, row.id, 'is_default', true, tx);
      const created = mapWorkflow((await this.repo.get(ctx.workspace.id, projectId, row.id, tx))!);
      await this.record(tx, ctx, 'workflow.created', created, null, created, 'workflow.created');
      return created;
    });
  }

  async update(ctx: ProjectContext, id: string, dto: UpdateWorkflowDto): Promise<WorkflowDto> {
    return this.ds.transaction(async (tx) => {
      const projectId = ctx.project.id;
      await this.repo.lockProject(projectId, tx);
      const current = await this.workflowOr404(ctx, id, tx, true);
      let name: string | undefined;
      if (dto.name !== undefined) {
        name = cleanName(dto.name);
        await assertNameFree(this.repo.nameTaken(ctx.workspace.id, projectId, name, id, tx), 'workflow', name);
      }
      await this.repo.update(
        ctx.workspace.id,
        id,
        {
          name,
          description: dto.description,
          work_item_type_ids:
            dto.work_item_type_ids === undefined ? undefined : await this.checkTypes(ctx, dto.work_item_type_ids, tx),
        },
        tx,
      );
      if (dto.is_active !== undefined && dto.is_active !== current.is_active)
        await this.repo.setFlag(ctx.workspace.id, projectId, id, 'is_active', dto.is_active, tx);
      if (dto.is_default !== undefined && dto.is_default !== current.is_default)
        await this.repo.setFlag(ctx.workspace.id, projectId, id, 'is_default', dto.is_default, tx);
      const updated = mapWorkflow((await this.repo.get(ctx.workspace.id, projectId, id, tx))!);
      await this.record(tx, ctx, 'workflow.updated', updated, mapWorkflow(current), updated, 'workflow.updated');
      return updated;
    });
  }

  /** Soft delete of the workflow with its states and transitions. */
  async remove(ctx: ProjectContext, id: string): Promise<void> {
    await this.ds.transaction(async (tx) => {
      await this.repo.lockProject(ctx.project.id, tx);
      const current = mapWorkflow(await this.workflowOr404(ctx, id, tx, true));
      await this.repo.softDelete(ctx.workspace.id, id, tx);
      await this.record(tx, ctx, 'workflow.deleted', current, current, null, 'workflow.deleted');
    });
  }

  // ---- workflow states ----

  async listStates(ctx: ProjectContext, workflowId: string, q: ListQuery) {
    await this.workflowOr404(ctx, workflowId);
    const { rows, envelope } = await this.repo.listStates(ctx.workspace.id, workflowId, q);
    return envelope(rows.map(mapWorkflowState));
  }

  async getState(ctx: ProjectContext, workflowId: string, id: string): Promise<WorkflowStateDto> {
    await this.workflowOr404(ctx, workflowId);
    return mapWorkflowState(await this.stateOr404(ctx, workflowId, id));
  }

  /** The single form `{state_id, ...}` answers the row; the attach form `{state_ids}` the array of rows. */
  async createState(
    ctx: ProjectContext,
    workflowId: string,
    dto: CreateWorkflowStateDto,
  ): Promise<WorkflowStateDto | WorkflowStateDto[]> {
    if (dto.state_ids !== undefined) return this.attachStates(ctx, workflowId, dto, dto.state_ids);
    return this.ds.transaction(async (tx) => {
      const wf = await this.workflowOr404(ctx, workflowId, tx, true);
      const stateId = lower(dto.state_id!);
      await this.assertProjectStates(ctx, { state_id: stateId }, tx);
      if (await this.repo.stateRowFor(ctx.workspace.id, workflowId, stateId, null, tx))
        throw ProblemException.conflict('This state already has a row in this workflow.');
      const row = await this.repo.insertState(
        ctx.workspace.id,
        ctx.project.id,
        workflowId,
        { state_id: stateId, allow_issue_creation: dto.allow_issue_creation ?? true },
        ctx.principal.userId,
        tx,
      );
      if (dto.is_default) await this.repo.setStateDefault(ctx.workspace.id, workflowId, row.id, true, tx);
      const created = mapWorkflowState((await this.repo.getState(ctx.workspace.id, workflowId, row.id, tx))!);
      await this.record(tx, ctx, 'workflow.updated', mapWorkflow(wf), null, created, 'workflow_state.created');
      return created;
    });
  }

  /**
   * The later edition's attach (`{state_ids}`, Plane's client): every id must be a state of the project (400 naming
   * `state_ids`, nothing attached); states already in the workflow are kept as they are; each row attached is audited
   * as a single create is.
   */
  private async attachStates(
    ctx: ProjectContext,
    workflowId: string,
    dto: CreateWorkflowStateDto,
    ids: string[],
  ): Promise<WorkflowStateDto[]> {
    if (dto.state_id !== undefined || dto.is_default !== undefined) {
      throw ProblemException.validation(
        dto.state_id !== undefined ? 'state_id' : 'is_default',
        'Send state_ids alone (with allow_issue_creation at most), or the single form state_id.',
      );
    }
    const stateIds = uniqueIds(ids);
    return this.ds.transaction(async (tx) => {
      const wf = await this.workflowOr404(ctx, workflowId, tx, true);
      const foreign = await this.repo.foreignStates(ctx.workspace.id, ctx.project.id, stateIds, tx);
      if (foreign.length)
        throw ProblemException.validation('state_ids', `Not states of this project: ${foreign.join(', ')}.`);
      const { rows, created } = await this.repo.attachStates(
        ctx.workspace.id,
        ctx.project.id,
        workflowId,
        stateIds,
        dto.allow_issue_creation ?? true,
        ctx.principal.userId,
        tx,
      );
      const out = rows.map(mapWorkflowState);
      for (const row of out.filter((r) => created.has(r.id)))
        await this.record(tx, ctx, 'workflow.updated', mapWorkflow(wf), null, row, 'workflow_state.created');
      return out;
    });
  }

  async updateState(
    ctx: ProjectContext,
    workflowId: string,
    id: string,
    dto: UpdateWorkflowStateDto,
  ): Promise<WorkflowStateDto> {
    return this.ds.transaction(async (tx) => {
      const wf = await this.workflowOr404(ctx, workflowId, tx, true);
      const current = await this.stateOr404(ctx, workflowId, id, tx);
      let stateId: string | undefined;
      if (dto.state_id !== undefined && lower(dto.state_id) !== current.state_id) {
        stateId = lower(dto.state_id);
        await this.assertProjectStates(ctx, { state_id: stateId }, tx);
        if (await this.repo.stateRowFor(ctx.workspace.id, workflowId, stateId, id, tx))
          throw ProblemException.conflict('This state already has a row in this workflow.');
        await this.repo.dropSelfTransitions(ctx.workspace.id, id, stateId, tx);
      }
      await this.repo.updateState(
        ctx.workspace.id,
        id,
        { state_id: stateId, allow_issue_creation: dto.allow_issue_creation },
        tx,
      );
      if (dto.is_default !== undefined && dto.is_default !== current.is_default)
        await this.repo.setStateDefault(ctx.workspace.id, workflowId, id, dto.is_default, tx);
      const updated = mapWorkflowState((await this.repo.getState(ctx.workspace.id, workflowId, id, tx))!);
      await this.record(
        tx,
        ctx,
        'workflow.updated',
        mapWorkflow(wf),
        mapWorkflowState(current),
        updated,
        'workflow_state.updated',
      );
      return updated;
    });
  }

  /** Soft delete of a workflow state and of its outgoing transitions. */
  async removeState(ctx: ProjectContext, workflowId: string, id: string): Promise<void> {
    await this.ds.transaction(async (tx) => {
      const wf = await this.workflowOr404(ctx, workflowId, tx, true);
      const current = mapWorkflowState(await this.stateOr404(ctx, workflowId, id, tx));
      await this.repo.softDeleteState(ctx.workspace.id, id, tx);
      await this.record(tx, ctx, 'workflow.updated', mapWorkflow(wf), current, null, 'workflow_state.deleted');
    });
  }

  // ---- transitions ----

  async listTransitions(ctx: ProjectContext, workflowId: string, q: ListQuery) {
    await this.workflowOr404(ctx, workflowId);
    const { rows, envelope } = await this.repo.listTransitions(ctx.workspace.id, workflowId, q);
    return envelope(rows.map(mapTransition));
  }

  async getTransition(ctx: ProjectContext, workflowId: string, id: string): Promise<WorkflowTransitionDto> {
    await this.workflowOr404(ctx, workflowId);
    return mapTransition(await this.transitionOr404(ctx, workflowId, id));
  }

  async createTransition(
    ctx: ProjectContext,
    workflowId: string,
    dto: CreateWorkflowTransitionDto,
  ): Promise<WorkflowTransitionDto> {
    return this.ds.transaction(async (tx) => {
      const wf = await this.workflowOr404(ctx, workflowId, tx, true);
      const from = await this.repo.getState(ctx.workspace.id, workflowId, lower(dto.workflow_state_id), tx);
      if (!from)
        throw ProblemException.validation(
          'workflow_state_id',
          'Must be a workflow state of this workflow (see .../workflows/{workflow_id}/states/).',
        );
      const target = lower(dto.transition_state_id);
      const rejection = dto.rejection_state_id ? lower(dto.rejection_state_id) : null;
      await this.assertProjectStates(ctx, { transition_state_id: target, rejection_state_id: rejection }, tx);
      if (target === from.state_id)
        throw ProblemException.validation(
          'transition_state_id',
          'A transition must lead to another state than the one it starts from.',
        );
      if (await this.repo.transitionExists(ctx.workspace.id, from.id, target, null, tx))
        throw ProblemException.conflict('This workflow state already has a transition to that state.');
      const memberIds = await this.checkMembers(ctx, dto.member_ids ?? [], tx);
      const row = await this.repo.insertTransition(
        ctx.workspace.id,
        ctx.project.id,
        workflowId,
        {
          workflow_state_id: from.id,
          transition_state_id: target,
          rejection_state_id: rejection,
          required_approvals: dto.required_approvals ?? 0,
          member_ids: memberIds,
        },
        ctx.principal.userId,
        tx,
      );
      const created = mapTransition(row);
      await this.record(tx, ctx, 'workflow.updated', mapWorkflow(wf), null, created, 'workflow_transition.created');
      return created;
    });
  }

  async updateTransition(
    ctx: ProjectContext,
    workflowId: string,
    id: string,
    dto: UpdateWorkflowTransitionDto,
  ): Promise<WorkflowTransitionDto> {
    return this.ds.transaction(async (tx) => {
      const wf = await this.workflowOr404(ctx, workflowId, tx, true);
      const current = await this.transitionOr404(ctx, workflowId, id, tx);
      const target = dto.transition_state_id === undefined ? undefined : lower(dto.transition_state_id);
      const rejection =
        dto.rejection_state_id === undefined
          ? undefined
          : dto.rejection_state_id === null
            ? null
            : lower(dto.rejection_state_id);
      await this.assertProjectStates(
        ctx,
        { transition_state_id: target ?? null, rejection_state_id: rejection ?? null },
        tx,
      );
      if (target !== undefined && target !== current.transition_state_id) {
        const from = (await this.repo.getState(ctx.workspace.id, workflowId, current.workflow_state_id, tx))!;
        if (target === from.state_id)
          throw ProblemException.validation(
            'transition_state_id',
            'A transition must lead to another state than the one it starts from.',
          );
        if (await this.repo.transitionExists(ctx.workspace.id, from.id, target, id, tx))
          throw ProblemException.conflict('This workflow state already has a transition to that state.');
      }
      const memberIds = dto.member_ids === undefined ? undefined : await this.checkMembers(ctx, dto.member_ids, tx);
      await this.repo.updateTransition(
        ctx.workspace.id,
        id,
        {
          transition_state_id: target,
          rejection_state_id: rejection,
          required_approvals: dto.required_approvals,
          member_ids: memberIds,
        },
        tx,
      );
      const updated = mapTransition((await this.repo.getTransition(ctx.workspace.id, workflowId, id, tx))!);
      await this.record(
        tx,
        ctx,
        'workflow.updated',
        mapWorkflow(wf),
        mapTransition(current),
        updated,
        'workflow_transition.updated',
      );
      return updated;
    });
  }

  async removeTransition(ctx: ProjectContext, workflowId: string, id: string): Promise<void> {
    await this.ds.transaction(async (tx) => {
      const wf = await this.workflowOr404(ctx, workflowId, tx, true);
      const current = mapTransition(await this.transitionOr404(ctx, workflowId, id, tx));
      await this.repo.softDeleteTransition(ctx.workspace.id, id, tx);
      await this.record(tx, ctx, 'workflow.updated', mapWorkflow(wf), current, null, 'workflow_transition.deleted');
    });
  }

  // ---- helpers ----

  private async workflowOr404(
    ctx: ProjectContext,
    id: string,
    db: Queryable = this.ds,
    forUpdate = false,
  ): Promise<WorkflowRow> {
    const row = await this.repo.get(ctx.workspace.id, ctx.project.id, id, db, forUpdate);
    if (!row) throw ProblemException.notFound('Workflow');
    return row;
  }

  private async stateOr404(ctx: ProjectContext, workflowId: string, id: string, db: Queryable = this.ds) {
    const row = await this.repo.getState(ctx.workspace.id, workflowId, id, db);
    if (!row) throw ProblemException.notFound('Workflow state');
    return row;
  }

  private async transitionOr404(ctx: ProjectContext, workflowId: string, id: string, db: Queryable = this.ds) {
    const row = await this.repo.getTransition(ctx.workspace.id, workflowId, id, db);
    if (!row) throw ProblemException.notFound('Workflow transition');
    return row;
  }

  /** Every given state id (field -> id; null skipped) must be a live state of the project: else 400 naming the field. */
  private async assertProjectStates(
    ctx: ProjectContext,
    fields: Record<string, string | null>,
    tx: EntityManager,
  ): Promise<void> {
    const given = Object.entries(fields).filter((e): e is [string, string] => e[1] !== null);
    if (!given.length) return;
    const foreign = new Set(
      await this.repo.foreignStates(
        ctx.workspace.id,
        ctx.project.id,
        given.map(([, id]) => id),
        tx,
      ),
    );
    const bad = given.filter(([, id]) => foreign.has(id));
    if (bad.length)
      throw ProblemException.validationMany(
        bad.map(([field]) => ({ field, message: 'Must be a state of this project.' })),
      );
  }

  /** Types of the project's roster (gap-reference 1: an id of another project or workspace is a 400). */
  private async checkTypes(ctx: ProjectContext, ids: string[], tx: EntityManager): Promise<string[]> {
    const unique = uniqueIds(ids);
    const bad = await this.repo.typesNotInProject(ctx.workspace.id, ctx.project.id, unique, tx);
    if (bad.length)
      throw ProblemException.validation(
        'work_item_type_ids',
        `Not work item types of this project: ${bad.join(', ')}.`,
      );
    return unique;
  }

  private async checkMembers(ctx: ProjectContext, ids: string[], tx: EntityManager): Promise<string[]> {
    const unique = uniqueIds(ids);
    const bad = await this.repo.nonMembers(ctx.workspace.id, ctx.project.id, unique, tx);
    if (bad.length) throw ProblemException.validation('member_ids', `Not members of this project: ${bad.join(', ')}.`);
    return unique;
  }

  /** One audit entry per workflow write, in the write's transaction (category settings, target the workflow). */
  private record(
    tx: EntityManager,
    ctx: ProjectContext,
    event: string,
    wf: WorkflowDto,
    oldValue: unknown,
    newValue: unknown,
    change: string,
  ): Promise<void> {
    return this.audit.record(tx, ctx, {
      event_name: event,
      category: 'settings',
      workspace_id: ctx.workspace.id,
      project_id: ctx.project.id,
      target_type: 'workflow',
      target_id: wf.id,
      target_display_name: wf.name,
      old_value: oldValue,
      new_value: newValue,
      metadata: { change },
    });
  }
}
