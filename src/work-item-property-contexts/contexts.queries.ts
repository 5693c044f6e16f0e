import { ListSpec, nameFilter } from '../common/pagination/list-spec';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

export const CONTEXT_LIST: ListSpec = {
  filters: [nameFilter('c.name')],
  orderings: {
    sort_order: { expr: 'c.sort_order', cursor: false },
    created_at: { expr: 'c.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'c.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: 'sort_order',
  idExpr: 'c.id',
};
