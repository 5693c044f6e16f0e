import { ListSpec, nameFilter } from '../common/pagination/list-spec';
import { STATE_GROUPS } from './state.entity';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

export const STATE_LIST: ListSpec = {
  filters: [
    nameFilter('s.name'),
    { name: 'group', type: 'enum', ops: ['eq', 'in'], values: STATE_GROUPS, column: 's."group"' },
    { name: 'is_default', type: 'bool', ops: ['eq'], column: 's.is_default' },
    { name: 'external_id', type: 'string', ops: ['eq'], column: 's.external_id' },
    { name: 'external_source', type: 'string', ops: ['eq'], column: 's.external_source' },
  ],
  search: ['s.name'],
  orderings: {
    sequence: { expr: 's.sequence', cursor: false },
    created_at: { expr: 's.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 's.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: 'sequence',
  idExpr: 's.id',
};
