import { ListSpec, nameFilter } from '../common/pagination/list-spec';
import { ESTIMATE_TYPES } from './estimate.entity';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

export const ESTIMATE_LIST: ListSpec = {
  filters: [
    nameFilter('e.name'),
    { name: 'is_active', type: 'bool', ops: ['eq'], column: 'e.is_active' },
    { name: 'type', type: 'enum', ops: ['eq', 'in'], values: ESTIMATE_TYPES, column: 'e.type' },
    { name: 'external_id', type: 'string', ops: ['eq'], column: 'e.external_id' },
    { name: 'external_source', type: 'string', ops: ['eq'], column: 'e.external_source' },
  ],
  search: ['e.name'],
  orderings: {
    created_at: { expr: 'e.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'e.id', cursor: true, cast: 'uuid' },
    name: { expr: 'e.name', cursor: false },
  },
  defaultOrder: 'created_at',
  idExpr: 'e.id',
};

export const POINT_LIST: ListSpec = {
  filters: [
    { name: 'external_id', type: 'string', ops: ['eq'], column: 'p.external_id' },
    { name: 'external_source', type: 'string', ops: ['eq'], column: 'p.external_source' },
  ],
  search: ['p.value'],
  orderings: {
    key: { expr: 'p.key', cursor: true, cast: 'int' },
    created_at: { expr: 'p.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'p.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: 'key',
  idExpr: 'p.id',
};
