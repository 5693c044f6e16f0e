import { ListSpec } from '../common/pagination/list-spec';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

export const MEMBER_LIST: ListSpec = {
  filters: [
    { name: 'member_id', type: 'uuid', ops: ['eq', 'in'], column: 'm.member_id' },
    { name: 'role', type: 'string', ops: ['eq', 'in'], column: 'm.role' },
  ],
  search: ['u.display_name', 'u.email', 'u.first_name', 'u.last_name'],
  orderings: {
    created_at: { expr: 'm.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'm.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: 'created_at',
  idExpr: 'm.id',
};
