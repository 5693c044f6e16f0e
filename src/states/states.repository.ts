import { STATE_LIST } from './states.queries';
import { Injectable } from '@nestjs/common';
import { PartialUpdate, runPartialUpdate } from '../common/database/partial-update';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';
import { StateRow } from './states.mapper';

/** The states every new project starts with: one per group, Backlog the default. */
export const DEFAULT_STATES = [
  { name: 'Backlog', color: '#A3A3A3', group: 'backlog', sequence: 15000, is_default: true, is_triage: false },
  { name: 'Todo', color: '#3A3A3A', group: 'unstarted', sequence: 25000, is_default: false, is_triage: false },
  { name: 'In Progress', color: '#F59E0B', group: 'started', sequence: 35000, is_default: false, is_triage: false },
  { name: 'Done', color: '#16A34A', group: 'completed', sequence: 45000, is_default: false, is_triage: false },
  { name: 'Cancelled', color: '#EF4444', group: 'cancelled', sequence: 55000, is_default: false, is_triage: false },
  { name: 'Triage', color: '#4E5355', group: 'triage', sequence: 65000, is_default: false, is_triage: true },
] as const;

@Injectable()
export class StatesSeedRepository {
  /** Seeds the default states of a new project in one statement. */
  async seedDefaults(db: Queryable, workspaceId: string, projectId: string, userId: string | null): Promise<void> {
    await db.query(
      `INSERT INTO states (workspace_id, project_id, name, color, "group", sequence, is_default, is_triage, created_by_id)
       SELECT $1, $2, s.name, s.color, s.grp, s.seq, s.is_default, s.is_triage, $3
         FROM jsonb_to_recordset($4::jsonb) AS s(name text, color text, grp text, seq float8, is_default boolean, is_triage boolean)`,
      [
        workspaceId,
        projectId,
        userId,
        JSON.stringify(DEFAULT_STATES.map((s) => ({ ...s, grp: s.group, seq: s.sequence }))),
      ],
    );
  }
}

const COLS = `s.id, s.name, s.description, s.color, s."group", s.sequence, s.is_default, s.is_triage,
  s.external_id, s.external_source, s.created_at, s.created_by_id`;

/** Gap left between an appended state and the last one. */
export const SEQUENCE_STEP = 10000;

export interface StateWrite {
  name?: string;
  color?: string;
  group?: string;
  description?: string | null;
  sequence?: number;
  is_default?: boolean;
  external_id?: string | null;
  external_source?: string | null;
}

/** States of a project: reads, writes and the checks behind the two delete refusals. */
/** The columns a state PATCH writes (the allow-list of its partial update). */
const STATE_UPDATE: PartialUpdate<StateWrite> = {
  table: 'states',
  where: 'id = $1 AND workspace_id = $2',
  columns: {
    name: {},
    color: {},
    group: {},
    description: { nullAs: '' },
    sequence: {},
    is_default: {},
    external_id: {},
    external_source: {},
  },
};

@Injectable()
export class StatesRepository {
  constructor(private readonly ds: DataSource) {}

  list(workspaceId: string, projectId: string, q: ListQuery) {
    const p = new SqlParams([workspaceId, projectId]);
    return runList<StateRow>(this.ds, STATE_LIST, q, {
      select: COLS,
      from: 'states s',
      where: ['s.workspace_id = $1', 's.project_id = $2', 's.deleted_at IS NULL'],
      params: p,
    });
  }

  async get(
    workspaceId: string,
    projectId: string,
    id: string,
    db: Queryable = this.ds,
    forUpdate = false,
  ): Promise<StateRow | null> {
    const rows = await db.query(
      `SELECT ${COLS} FROM states s WHERE s.workspace_id = $1 AND s.project_id = $2 AND s.id = $3 AND s.deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
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
      `SELECT 1 FROM states
        WHERE workspace_id = $4 AND project_id = $1 AND name = $2 AND deleted_at IS NULL AND ($3::uuid IS NULL OR id <> $3)`,
      [projectId, name, exceptId, workspaceId],
    );
    return rows.length > 0;
  }

  /**
   * Serialises the writes that change which state is the default (or that read the default to
   * protect it), per project, until the transaction ends.
   */
  async lockProjectStates(projectId: string, db: Queryable): Promise<void> {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('states:' || $1::text))`, [projectId]);
  }

  async nextSequence(workspaceId: string, projectId: string, db: Queryable): Promise<number> {
    const rows = await db.query(
      `SELECT COALESCE(max(sequence), 0) + ${SEQUENCE_STEP} AS seq FROM states
        WHERE workspace_id = $2 AND project_id = $1 AND deleted_at IS NULL`,
      [projectId, workspaceId],
    );
    return Number(rows[0].seq);
  }

  async clearDefault(workspaceId: string, projectId: string, db: Queryable): Promise<void> {
    await db.query(
      `UPDATE states SET is_default = false, updated_at = now()
        WHERE workspace_id = $2 AND project_id = $1 AND is_default AND deleted_at IS NULL`,
      [projectId, workspaceId],
    );
  }

  async insert(
    workspaceId: string,
    projectId: string,
    v: Required<Pick<StateWrite, 'name' | 'color' | 'group' | 'sequence' | 'is_default'>> & StateWrite,
    createdBy: string,
    db: Queryable,
  ): Promise<StateRow> {
    const rows = await db.query(
      `INSERT INTO states AS s (workspace_id, project_id, name, color, "group", description, sequence, is_default, external_id, external_source, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       RETURNING ${COLS}`,
      [
        workspaceId,
        projectId,
        v.name,
        v.color,
        v.group,
        v.description ?? '',
        v.sequence,
        v.is_default,
        v.external_id ?? null,
        v.external_source ?? null,
        createdBy,
      ],
    );
    return rows[0];
  }

  async update(workspaceId: string, id: string, v: StateWrite, db: Queryable): Promise<void> {
    await runPartialUpdate(db, STATE_UPDATE, v, new SqlParams([id, workspaceId]));
  }

  /**
   * Does any live work item sit in this state? (Second delete refusal of gap-reference 3.3.)
   * Archived items count: they still reference the state.
   */
  async hasWorkItems(workspaceId: string, projectId: string, stateId: string, db: Queryable): Promise<boolean> {
    const rows = await db.query(
      `SELECT EXISTS (SELECT 1 FROM work_items WHERE workspace_id = $1 AND project_id = $2 AND state_id = $3 AND deleted_at IS NULL) AS x`,
      [workspaceId, projectId, stateId],
    );
    return rows[0].x;
  }

  /**
   * Soft-deletes a state. Workflow rows that name it (its workflow state with that state's outgoing
   * transitions, and every transition leading to it) go with it, so no rule refers to a state that
   * no longer exists.
   */
  async softDelete(workspaceId: string, id: string, db: Queryable): Promise<void> {
    const p = [id, workspaceId];
    await db.query(`UPDATE states SET deleted_at = now() WHERE workspace_id = $2 AND id = $1`, p);
    await db.query(
      `UPDATE workflow_state_transitions SET deleted_at = now()
        WHERE workspace_id = $2 AND deleted_at IS NULL
          AND (transition_state_id = $1
               OR workflow_state_id IN (SELECT id FROM workflow_states
                                         WHERE workspace_id = $2 AND state_id = $1 AND deleted_at IS NULL))`,
      p,
    );
    await db.query(
      `UPDATE workflow_state_transitions SET rejection_state_id = NULL
        WHERE workspace_id = $2 AND rejection_state_id = $1 AND deleted_at IS NULL`,
      p,
    );
    await db.query(
      `UPDATE workflow_states SET deleted_at = now() WHERE workspace_id = $2 AND state_id = $1 AND deleted_at IS NULL`,
      p,
    );
  }
}
