import { ListSpec, nameFilter } from '../common/pagination/list-spec';

/**
 * SQL fragments of work item types that other features' statements embed (an exported, named query module:
 * other features never import work-item-types.repository). Arguments are SQL references, never values.
 */

/** `t` is on the roster of the project: owned by it or a workspace-level type imported into it. */
export function visibleInProject(projectRef: string, alias = 't'): string {
  return `(${alias}.project_id = ${projectRef} OR (${alias}.project_id IS NULL AND EXISTS (
    SELECT 1 FROM project_work_item_types pwt
     WHERE pwt.workspace_id = ${alias}.workspace_id AND pwt.project_id = ${projectRef} AND pwt.type_id = ${alias}.id)))`;
}

export const TYPE_LIST: ListSpec = {
  filters: [nameFilter('t.name')],
  orderings: {
    created_at: { expr: 't.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 't.id', cursor: true, cast: 'uuid' },
    level: { expr: 't.level', cursor: false },
    name: { expr: 't.name', cursor: false },
  },
  defaultOrder: 'created_at',
  idExpr: 't.id',
};
