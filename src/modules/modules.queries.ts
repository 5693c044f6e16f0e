import { ListSpec, nameFilter } from '../common/pagination/list-spec';
import { MODULE_STATUSES } from './module.entity';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

export const MODULE_LIST: ListSpec = {
  filters: [
    nameFilter('m.name'),
    { name: 'status', type: 'enum', values: MODULE_STATUSES, ops: ['eq', 'in'], column: 'm.status' },
    { name: 'lead_id', type: 'uuid', ops: ['eq', 'in', 'isnull'], column: 'm.lead_id' },
    { name: 'external_id', type: 'string', ops: ['eq'], column: 'm.external_id' },
    { name: 'external_source', type: 'string', ops: ['eq'], column: 'm.external_source' },
  ],
  search: ['m.name'],
  orderings: {
    // The default; not unique and rewritable, so a bare paginate=cursor is 400.
    sort_order: { expr: 'm.sort_order', cursor: false },
    created_at: { expr: 'm.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'm.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: 'sort_order',
  idExpr: 'm.id',
};
