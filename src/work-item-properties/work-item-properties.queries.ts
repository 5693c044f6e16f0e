import { ListSpec, nameFilter } from '../common/pagination/list-spec';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

export const PROPERTY_LIST: ListSpec = {
  filters: [nameFilter('p.name')],
  orderings: {
    sort_order: { expr: 'p.sort_order', cursor: false },
    created_at: { expr: 'p.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'p.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: 'sort_order',
  idExpr: 'p.id',
};

/** Properties attached to a type: ordered by the attachment's sort_order by default. */
export const TYPE_PROPERTY_LIST: ListSpec = {
  filters: [],
  orderings: {
    sort_order: { expr: 'tp.sort_order', cursor: false },
    created_at: { expr: 'p.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'p.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: 'sort_order',
  idExpr: 'p.id',
};
