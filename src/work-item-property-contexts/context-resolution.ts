/**
 * Context precedence (spec "Property context"), most specific first:
 *   1 listed projects and listed types, 2 listed projects and all types,
 *   3 all projects and listed types,   4 all projects and all types.
 * The first matching context wins whole; nothing is merged. Same-tier overlaps are refused at write
 * time, so at most one context matches per tier (sort_order and id only make the order total).
 */
export function CONTEXT_TIER_SQL(c: string): string {
  return `(CASE WHEN NOT ${c}.applies_to_all_projects AND NOT ${c}.applies_to_all_work_item_types THEN 1
               WHEN NOT ${c}.applies_to_all_projects THEN 2
               WHEN NOT ${c}.applies_to_all_work_item_types THEN 3 ELSE 4 END)`;
}

/** Does context `c` cover the work item's project and type (SQL expressions)? */
export function contextMatchesSql(c: string, projectExpr: string, typeExpr: string): string {
  return `(${c}.applies_to_all_projects OR EXISTS (SELECT 1 FROM work_item_property_context_projects cp
             WHERE cp.workspace_id = ${c}.workspace_id AND cp.context_id = ${c}.id AND cp.project_id = ${projectExpr}))
      AND (${c}.applies_to_all_work_item_types OR EXISTS (SELECT 1 FROM work_item_property_context_types ct
             WHERE ct.workspace_id = ${c}.workspace_id AND ct.context_id = ${c}.id AND ct.type_id = ${typeExpr}))`;
}

export type ContextTier = 1 | 2 | 3 | 4;

export function contextTier(allProjects: boolean, allTypes: boolean): ContextTier {
  if (!allProjects && !allTypes) return 1;
  if (!allProjects) return 2;
  if (!allTypes) return 3;
  return 4;
}
