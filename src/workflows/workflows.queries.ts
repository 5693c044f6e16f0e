/**
 * SQL fragments of workflows that other features' statements embed (an exported, named query module: other
 * features never import workflows.repository). Arguments are SQL references, never values.
 */

/**
 * SQL (a scalar subquery; arguments are SQL references) for the `allow_issue_creation` of a state in the
 * project's active workflow, when the project's workflow feature is on, an active workflow exists and it
 * has a row for the state; else NULL. Work item creates evaluate it inside their insert statement.
 */
export const creationRuleSql = (project: string, state: string) =>
  `(SELECT ws.allow_issue_creation
      FROM workflows w
      JOIN project_features pf ON pf.project_id = w.project_id AND pf.is_workflow_enabled
      JOIN workflow_states ws ON ws.workflow_id = w.id AND ws.state_id = ${state} AND ws.deleted_at IS NULL
     WHERE w.project_id = ${project} AND w.is_active AND w.deleted_at IS NULL
     LIMIT 1)`;
