import { ListSpec } from '../common/pagination/list-spec';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

/** A workspace has a handful of definitions: the list index (workspace_id, sort_order, id) serves every page. */
export const DEFINITION_LIST: ListSpec = {
  filters: [
    { name: 'is_active', type: 'bool', ops: ['eq'], column: 'd.is_active' },
    { name: 'is_default', type: 'bool', ops: ['eq'], column: 'd.is_default' },
  ],
  search: ['d.name'],
  orderings: {
    sort_order: { expr: 'd.sort_order', cursor: false },
    created_at: { expr: 'd.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'd.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: 'sort_order',
  idExpr: 'd.id',
};
