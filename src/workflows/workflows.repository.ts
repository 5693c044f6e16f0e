import { TRANSITION_LIST, WORKFLOW_LIST, WORKFLOW_STATE_LIST } from './workflows.queries';
import { Injectable } from '@nestjs/common';
import { PartialUpdate, runPartialUpdate } from '../common/database/partial-update';
import { creationRuleSql } from './workflows.queries';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';
import { visibleInProject } from '../work-item-types/work-item-types.queries';
import { WorkflowRow, WorkflowStateRow, WorkflowTransitionRow } from './workflows.mapper';

const W_COLS =
  'w.id, w.name, w.description, w.is_active, w.is_default, w.work_item_type_ids, w.created_at, w.created_by_id';
const WS_COLS = 'ws.id, ws.workflow_id, ws.state_id, ws.allow_issue_creation, ws.is_default';
const T_COLS =
  't.id, t.workflow_id, t.workflow_state_id, t.transition_state_id, t.rejection_state_id, t.required_approvals, t.member_ids';

export interface WorkflowWrite {
  name?: string;
  description?: string | null;
  work_item_type_ids?: string[];
}

/** The columns a workflow PATCH writes (the allow-list of its partial update). */
const WORKFLOW_UPDATE: PartialUpdate<WorkflowWrite> = {
  table: 'workflows',
  where: 'id = $1 AND workspace_id = $2',
  columns: { name: {}, description: { nullAs: '' }, work_item_type_ids: { cast: 'uuid[]' } },
};

export interface WorkflowStateWrite {
  state_id?: string;
  allow_issue_creation?: boolean;
}

const WORKFLOW_STATE_UPDATE: PartialUpdate<WorkflowStateWrite> = {
  table: 'workflow_states',
  where: 'id = $1 AND workspace_id = $2',
  columns: { state_id: {}, allow_issue_creation: {} },
};

export interface TransitionWrite {
  transition_state_id?: string;
  rejection_state_id?: string | null;
  required_approvals?: number;
  member_ids?: string[];
}

const TRANSITION_UPDATE: PartialUpdate<TransitionWrite> = {
  table: 'workflow_state_transitions',
  where: 'id = $1 AND workspace_id = $2',
  columns: { transition_state_id: {}, rejection_state_id: {}, required_approvals: {}, member_ids: { cast: 'uuid[]' } },
};

/** Workflows, their states and transitions, and the rule lookups behind enforcement. */
@Injectable()
export class WorkflowsRepository {
  constructor(private readonly ds: DataSource) {}

  /** Serialises activation and default changes of one project's workflows until the transaction ends. */
  async lockProject(projectId: string, db: Queryable): Promise<void> {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('workflows:' || $1::text))`, [projectId]);
  }

  // ---- workflows ----

  list(workspaceId: string, projectId: string, q: ListQuery) {
    return runList<WorkflowRow>(this.ds, WORKFLOW_LIST, q, {
      select: W_COLS,
      from: 'workflows w',
      where: ['w.workspace_id = $1', 'w.project_id = $2', 'w.deleted_at IS NULL'],
      params: new SqlParams([workspaceId, projectId]),
    });
  }

  async get(
    workspaceId: string,
    projectId: string,
    id: string,
    db: Queryable = this.ds,
    forUpdate = false,
  ): Promise<WorkflowRow | null> {
    const rows = await db.query(
      `SELECT ${W_COLS} FROM workflows w WHERE w.workspace_id = $1 AND w.project_id = $2 AND w.id = $3 AND w.deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
      [workspaceId, projectId, id],
    );
    return rows[0] ?? null;
  }

  async nameTaken(
    workspaceId: string,
    projectId: string,
    name: string,
    exceptId: string | null,
    db: Queryable,
  ): Promise<boolean> {
    const rows = await db.query(
      `SELECT 1 FROM workflows
        WHERE workspace_id = $4 AND project_id = $1 AND name = $2 AND deleted_at IS NULL AND ($3::uuid IS NULL OR id <> $3)`,
      [projectId, name, exceptId, workspaceId],
    );
    return rows.length > 0;
  }

  async insert(
    workspaceId: string,
    projectId: string,
    v: WorkflowWrite & { name: string },
    createdBy: string,
    db: Queryable,
  ): Promise<WorkflowRow> {
    const rows = await db.query(
      `INSERT INTO workflows AS w (workspace_id, project_id, name, description, work_item_type_ids, created_by_id)
       VALUES ($1, $2, $3, $4, $5::uuid[], $6) RETURNING ${W_COLS}`,
      [workspaceId, projectId, v.name, v.description ?? '', v.work_item_type_ids ?? [], createdBy],
    );
    return rows[0];
  }

  async update(workspaceId: string, id: string, v: WorkflowWrite, db: Queryable): Promise<void> {
    await runPartialUpdate(db, WORKFLOW_UPDATE, v, new SqlParams([id, workspaceId]));
  }

  /** Sets a flag (is_active / is_default) on `id`; setting it true clears it on the project's other workflows first. */
  async setFlag(
    workspaceId: string,
    projectId: string,
    id: string,
    flag: 'is_active' | 'is_default',
    value: boolean,
    db: Queryable,
  ): Promise<void> {
    if (value) {
      await db.query(
        `UPDATE workflows SET "${flag}" = false, updated_at = now()
          WHERE workspace_id = $3 AND project_id = $1 AND id <> $2 AND "${flag}" AND deleted_at IS NULL`,
        [projectId, id, workspaceId],
      );
    }
    await db.query(`UPDATE workflows SET "${flag}" = $2, updated_at = now() WHERE workspace_id = $3 AND id = $1`, [
      id,
      value,
      workspaceId,
    ]);
  }

  /** Soft-deletes a workflow with its states and transitions. */
  async softDelete(workspaceId: string, id: string, db: Queryable): Promise<void> {
    const p = [id, workspaceId];
    await db.query(
      `UPDATE workflow_state_transitions SET deleted_at = now()
        WHERE workspace_id = $2 AND workflow_id = $1 AND deleted_at IS NULL`,
      p,
    );
    await db.query(
      `UPDATE workflow_states SET deleted_at = now() WHERE workspace_id = $2 AND workflow_id = $1 AND deleted_at IS NULL`,
      p,
    );
    await db.query(
      `UPDATE workflows SET deleted_at = now(), is_active = false, is_default = false WHERE workspace_id = $2 AND id = $1`,
      p,
    );
  }

  // ---- workflow states ----

  listStates(workspaceId: string, workflowId: string, q: ListQuery) {
    return runList<WorkflowStateRow>(this.ds, WORKFLOW_STATE_LIST, q, {
      select: WS_COLS,
      from: 'workflow_states ws',
      where: ['ws.workspace_id = $1', 'ws.workflow_id = $2', 'ws.deleted_at IS NULL'],
      params: new SqlParams([workspaceId, workflowId]),
    });
  }

  async getState(
    workspaceId: string,
    workflowId: string,
    id: string,
    db: Queryable = this.ds,
  ): Promise<WorkflowStateRow | null> {
    const rows = await db.query(
      `SELECT ${WS_COLS} FROM workflow_states ws WHERE ws.workspace_id = $1 AND ws.workflow_id = $2 AND ws.id = $3 AND ws.deleted_at IS NULL`,
      [workspaceId, workflowId, id],
    );
    return rows[0] ?? null;
  }

  async stateRowFor(
    workspaceId: string,
    workflowId: string,
    stateId: string,
    exceptId: string | null,
    db: Queryable,
  ): Promise<boolean> {
    const rows = await db.query(
      `SELECT 1 FROM workflow_states
        WHERE workspace_id = $4 AND workflow_id = $1 AND state_id = $2 AND deleted_at IS NULL AND ($3::uuid IS NULL OR id <> $3)`,
      [workflowId, stateId, exceptId, workspaceId],
    );
    return rows.length > 0;
  }

  async insertState(
    workspaceId: string,
    projectId: string,
    workflowId: string,
    v: { state_id: string; allow_issue_creation: boolean },
    createdBy: string,
    db: Queryable,
  ): Promise<WorkflowStateRow> {
    const rows = await db.query(
      `INSERT INTO workflow_states AS ws (workspace_id, project_id, workflow_id, state_id, allow_issue_creation, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${WS_COLS}`,
      [workspaceId, projectId, workflowId, v.state_id, v.allow_issue_creation, createdBy],
    );
    return rows[0];
  }

  /**
   * Attaches the states not yet in the workflow (one statement; the caller holds the workflow's lock) and answers
   * the workflow's row of every state sent, in the order sent; `created` names the rows this call inserted.
   */
  async attachStates(
    workspaceId: string,
    projectId: string,
    workflowId: string,
    stateIds: string[],
    allowIssueCreation: boolean,
    createdBy: string,
    db: Queryable,
  ): Promise<{ rows: WorkflowStateRow[]; created: Set<string> }> {
    const inserted: Array<{ id: string }> = await db.query(
      `INSERT INTO workflow_states (workspace_id, project_id, workflow_id, state_id, allow_issue_creation, created_by_id)
       SELECT $1, $2, $3, u.id, $5, $6 FROM unnest($4::uuid[]) WITH ORDINALITY AS u(id, ord)
        WHERE NOT EXISTS (SELECT 1 FROM workflow_states x
                           WHERE x.workspace_id = $1 AND x.workflow_id = $3 AND x.state_id = u.id AND x.deleted_at IS NULL)
        ORDER BY u.ord
       RETURNING id`,
      [workspaceId, projectId, workflowId, stateIds, allowIssueCreation, createdBy],
    );
    const rows: WorkflowStateRow[] = await db.query(
      `SELECT ${WS_COLS} FROM unnest($3::uuid[]) WITH ORDINALITY AS u(id, ord)
         JOIN workflow_states ws ON ws.workspace_id = $1 AND ws.workflow_id = $2 AND ws.state_id = u.id AND ws.deleted_at IS NULL
        ORDER BY u.ord`,
      [workspaceId, workflowId, stateIds],
    );
    return { rows, created: new Set(inserted.map((r) => r.id)) };
  }

  async updateState(workspaceId: string, id: string, v: WorkflowStateWrite, db: Queryable): Promise<void> {
    await runPartialUpdate(db, WORKFLOW_STATE_UPDATE, v, new SqlParams([id, workspaceId]));
  }

  async setStateDefault(
    workspaceId: string,
    workflowId: string,
    id: string,
    value: boolean,
    db: Queryable,
  ): Promise<void> {
    if (value) {
      await db.query(
        `UPDATE workflow_states SET is_default = false, updated_at = now()
          WHERE workspace_id = $3 AND workflow_id = $1 AND id <> $2 AND is_default AND deleted_at IS NULL`,
        [workflowId, id, workspaceId],
      );
    }
    await db.query(
      `UPDATE workflow_states SET is_default = $2, updated_at = now() WHERE workspace_id = $3 AND id = $1`,
      [id, value, workspaceId],
    );
  }

  /** Soft-deletes a workflow state with its outgoing transitions. */
  async softDeleteState(workspaceId: string, id: string, db: Queryable): Promise<void> {
    const p = [id, workspaceId];
    await db.query(
      `UPDATE workflow_state_transitions SET deleted_at = now()
        WHERE workspace_id = $2 AND workflow_state_id = $1 AND deleted_at IS NULL`,
      p,
    );
    await db.query(
      `UPDATE workflow_states SET deleted_at = now(), is_default = false WHERE workspace_id = $2 AND id = $1`,
      p,
    );
  }

  /** When a workflow state changes state_id, its outgoing transitions that would now lead to itself go. */
  async dropSelfTransitions(
    workspaceId: string,
    workflowStateId: string,
    stateId: string,
    db: Queryable,
  ): Promise<void> {
    await db.query(
      `UPDATE workflow_state_transitions SET deleted_at = now()
        WHERE workspace_id = $3 AND workflow_state_id = $1 AND transition_state_id = $2 AND deleted_at IS NULL`,
      [workflowStateId, stateId, workspaceId],
    );
  }

  // ---- transitions ----

  listTransitions(workspaceId: string, workflowId: string, q: ListQuery) {
    return runList<WorkflowTransitionRow>(this.ds, TRANSITION_LIST, q, {
      select: T_COLS,
      from: 'workflow_state_transitions t',
      where: ['t.workspace_id = $1', 't.workflow_id = $2', 't.deleted_at IS NULL'],
      params: new SqlParams([workspaceId, workflowId]),
    });
  }

  async getTransition(
    workspaceId: string,
    workflowId: string,
    id: string,
    db: Queryable = this.ds,
  ): Promise<WorkflowTransitionRow | null> {
    const rows = await db.query(
      `SELECT ${T_COLS} FROM workflow_state_transitions t WHERE t.workspace_id = $1 AND t.workflow_id = $2 AND t.id = $3 AND t.deleted_at IS NULL`,
      [workspaceId, workflowId, id],
    );
    return rows[0] ?? null;
  }

  async transitionExists(
    workspaceId: string,
    workflowStateId: string,
    targetStateId: string,
    exceptId: string | null,
    db: Queryable,
  ): Promise<boolean> {
    const rows = await db.query(
      `SELECT 1 FROM workflow_state_transitions
        WHERE workspace_id = $4 AND workflow_state_id = $1 AND transition_state_id = $2 AND deleted_at IS NULL
          AND ($3::uuid IS NULL OR id <> $3)`,
      [workflowStateId, targetStateId, exceptId, workspaceId],
    );
    return rows.length > 0;
  }

  async insertTransition(
    workspaceId: string,
    projectId: string,
    workflowId: string,
    v: {
      workflow_state_id: string;
      transition_state_id: string;
      rejection_state_id: string | null;
      required_approvals: number;
      member_ids: string[];
    },
    createdBy: string,
    db: Queryable,
  ): Promise<WorkflowTransitionRow> {
    const rows = await db.query(
      `INSERT INTO workflow_state_transitions AS t (workspace_id, project_id, workflow_id, workflow_state_id, transition_state_id, rejection_state_id,
         required_approvals, member_ids, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::uuid[], $9) RETURNING ${T_COLS}`,
      [
        workspaceId,
        projectId,
        workflowId,
        v.workflow_state_id,
        v.transition_state_id,
        v.rejection_state_id,
        v.required_approvals,
        v.member_ids,
        createdBy,
      ],
    );
    return rows[0];
  }

  async updateTransition(workspaceId: string, id: string, v: TransitionWrite, db: Queryable): Promise<void> {
    await runPartialUpdate(db, TRANSITION_UPDATE, v, new SqlParams([id, workspaceId]));
  }

  async softDeleteTransition(workspaceId: string, id: string, db: Queryable): Promise<void> {
    await db.query(`UPDATE workflow_state_transitions SET deleted_at = now() WHERE workspace_id = $2 AND id = $1`, [
      id,
      workspaceId,
    ]);
  }

  // ---- references ----

  /** The ids among `ids` that are NOT live states of the project. */
  async foreignStates(workspaceId: string, projectId: string, ids: string[], db: Queryable): Promise<string[]> {
    const rows: Array<{ id: string }> = await db.query(
      `SELECT u.id FROM unnest($3::uuid[]) AS u(id)
        WHERE NOT EXISTS (SELECT 1 FROM states s WHERE s.id = u.id AND s.workspace_id = $1 AND s.project_id = $2 AND s.deleted_at IS NULL)`,
      [workspaceId, projectId, ids],
    );
    return rows.map((r) => r.id);
  }

  /** The user ids among `ids` that cannot act in the project: neither project members nor workspace owners/admins. */
  /** Of `ids`, those that are no live work item type on the project's roster (own or imported). */
  async typesNotInProject(workspaceId: string, projectId: string, ids: string[], db: Queryable): Promise<string[]> {
    if (!ids.length) return [];
    const rows: Array<{ id: string }> = await db.query(
      `SELECT x.id FROM unnest($3::uuid[]) AS x(id)
        WHERE NOT EXISTS (SELECT 1 FROM work_item_types t WHERE t.workspace_id = $1 AND t.id = x.id AND t.deleted_at IS NULL
                            AND ${visibleInProject('$2::uuid')})`,
      [workspaceId, projectId, ids],
    );
    return rows.map((r) => r.id);
  }

  async nonMembers(workspaceId: string, projectId: string, ids: string[], db: Queryable): Promise<string[]> {
    if (!ids.length) return [];
    const rows: Array<{ id: string }> = await db.query(
      `SELECT u.id FROM unnest($3::uuid[]) AS u(id)
        WHERE NOT EXISTS (SELECT 1 FROM project_members pm WHERE pm.workspace_id = $1 AND pm.project_id = $2 AND pm.member_id = u.id AND pm.deleted_at IS NULL)
          AND NOT EXISTS (SELECT 1 FROM workspace_members wm WHERE wm.workspace_id = $1 AND wm.member_id = u.id AND wm.deleted_at IS NULL
                            AND wm.is_active AND wm.role IN ('owner', 'admin'))`,
      [workspaceId, projectId, ids],
    );
    return rows.map((r) => r.id);
  }

  // ---- enforcement lookups (one statement each) ----

  /** The creation rule of a state (creationRuleSql): true / false, or null when no rule applies. */
  async creationRule(workspaceId: string, projectId: string, stateId: string, db: Queryable): Promise<boolean | null> {
    const rows = await db.query(`SELECT ${creationRuleSql('$1::uuid', '$2::uuid', '$3::uuid')} AS allowed`, [
      projectId,
      stateId,
      workspaceId,
    ]);
    return rows[0].allowed;
  }

  /**
   * The transitions defined out of `fromStateId` in the project's active workflow (when the feature
   * is on): how many exist, and the member lists of those leading to `toStateId`.
   */
  async transitionRules(
    workspaceId: string,
    projectId: string,
    fromStateId: string,
    toStateId: string,
    db: Queryable,
  ): Promise<{ total: number; matching: string[][] }> {
    const rows: Array<{ transition_state_id: string; member_ids: string[] }> = await db.query(
      `SELECT t.transition_state_id, t.member_ids
         FROM workflows w
         JOIN project_features pf ON pf.workspace_id = $3 AND pf.project_id = w.project_id AND pf.is_workflow_enabled
         JOIN workflow_states ws ON ws.workspace_id = $3 AND ws.workflow_id = w.id AND ws.state_id = $2 AND ws.deleted_at IS NULL
         JOIN workflow_state_transitions t ON t.workspace_id = $3 AND t.workflow_state_id = ws.id AND t.deleted_at IS NULL
        WHERE w.workspace_id = $3 AND w.project_id = $1 AND w.is_active AND w.deleted_at IS NULL`,
      [projectId, fromStateId, workspaceId],
    );
    return {
      total: rows.length,
      matching: rows.filter((r) => r.transition_state_id === toStateId).map((r) => r.member_ids ?? []),
    };
  }
}
