import { ListSpec, nameFilter } from '../common/pagination/list-spec';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

export const OPTION_LIST: ListSpec = {
  filters: [nameFilter('o.name')],
  orderings: {
    sort_order: { expr: 'o.sort_order', cursor: false },
    created_at: { expr: 'o.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'o.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: 'sort_order',
  idExpr: 'o.id',
};
