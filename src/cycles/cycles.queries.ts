import { ListSpec, nameFilter } from '../common/pagination/list-spec';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

export const CYCLE_LIST: ListSpec = {
  filters: [
    nameFilter('c.name'),
    { name: 'owned_by_id', type: 'uuid', ops: ['eq', 'in'], column: 'c.owned_by_id' },
    { name: 'external_id', type: 'string', ops: ['eq'], column: 'c.external_id' },
    { name: 'external_source', type: 'string', ops: ['eq'], column: 'c.external_source' },
  ],
  search: ['c.name'],
  orderings: {
    created_at: { expr: 'c.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'c.id', cursor: true, cast: 'uuid' },
    // Not unique and rewritable: cannot anchor a keyset.
    sort_order: { expr: 'c.sort_order', cursor: false },
  },
  defaultOrder: 'created_at',
  idExpr: 'c.id',
};
