import { ListSpec } from '../common/pagination/list-spec';

/**
 * SQL fragments of workflows that other features' statements embed (an exported, named query module: other
 * features never import workflows.repository). Arguments are SQL references, never values.
 */

/**
 * SQL (a scalar subquery; arguments are SQL references) for the `allow_issue_creation` of a state in the
 * project's active workflow, when the project's workflow feature is on, an active workflow exists and it
 * has a row for the state; else NULL. Work item creates evaluate it inside their insert statement. Every table
 * is pinned to `workspace` (a statement a distributed PostgreSQL routes to one shard, docs/scaling.md).
 */
export const creationRuleSql = (project: string, state: string, workspace: string) =>
  `(SELECT ws.allow_issue_creation
      FROM workflows w
      JOIN project_features pf ON pf.workspace_id = ${workspace} AND pf.project_id = w.project_id AND pf.is_workflow_enabled
      JOIN workflow_states ws ON ws.workspace_id = ${workspace} AND ws.workflow_id = w.id AND ws.state_id = ${state}
           AND ws.deleted_at IS NULL
     WHERE w.workspace_id = ${workspace} AND w.project_id = ${project} AND w.is_active AND w.deleted_at IS NULL
     LIMIT 1)`;

export const WORKFLOW_LIST: ListSpec = {
  filters: [
    { name: 'is_active', type: 'bool', ops: ['eq'], column: 'w.is_active' },
    { name: 'is_default', type: 'bool', ops: ['eq'], column: 'w.is_default' },
  ],
  search: ['w.name'],
  orderings: {
    created_at: { expr: 'w.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'w.id', cursor: true, cast: 'uuid' },
    name: { expr: 'w.name', cursor: false },
  },
  defaultOrder: 'created_at',
  idExpr: 'w.id',
};

export const WORKFLOW_STATE_LIST: ListSpec = {
  filters: [
    { name: 'state_id', type: 'uuid', ops: ['eq', 'in'], column: 'ws.state_id' },
    { name: 'allow_issue_creation', type: 'bool', ops: ['eq'], column: 'ws.allow_issue_creation' },
  ],
  orderings: {
    created_at: { expr: 'ws.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'ws.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: 'created_at',
  idExpr: 'ws.id',
};

export const TRANSITION_LIST: ListSpec = {
  filters: [
    { name: 'workflow_state_id', type: 'uuid', ops: ['eq', 'in'], column: 't.workflow_state_id' },
    { name: 'transition_state_id', type: 'uuid', ops: ['eq', 'in'], column: 't.transition_state_id' },
  ],
  orderings: {
    created_at: { expr: 't.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 't.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: 'created_at',
  idExpr: 't.id',
};
