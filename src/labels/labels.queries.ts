import { ListSpec, nameFilter } from '../common/pagination/list-spec';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

export const LABEL_LIST: ListSpec = {
  filters: [
    nameFilter('l.name'),
    {
      name: 'parent_id',
      type: 'uuid',
      ops: ['eq', 'isnull'],
      column: 'l.parent_id',
      description: 'parent_id__isnull=true lists top-level labels only.',
    },
    { name: 'external_id', type: 'string', ops: ['eq'], column: 'l.external_id' },
    { name: 'external_source', type: 'string', ops: ['eq'], column: 'l.external_source' },
  ],
  search: ['l.name'],
  orderings: {
    sort_order: { expr: 'l.sort_order', cursor: false },
    created_at: { expr: 'l.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'l.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: 'sort_order',
  idExpr: 'l.id',
};
