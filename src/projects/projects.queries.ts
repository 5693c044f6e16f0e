import { ListSpec, nameFilter } from '../common/pagination/list-spec';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

export const PROJECT_LIST: ListSpec = {
  filters: [
    nameFilter('p.name'),
    { name: 'external_id', type: 'string', ops: ['eq'], column: 'p.external_id' },
    { name: 'external_source', type: 'string', ops: ['eq'], column: 'p.external_source' },
    { name: 'identifier', type: 'string', ops: ['eq'], column: 'p.identifier' },
    {
      name: 'is_archived',
      type: 'bool',
      ops: ['eq'],
      sql: (_op, ref) => `(${ref} = (p.archived_at IS NOT NULL))`,
      description: 'true: archived projects only; false: active ones only (the default leaves archived projects out).',
    },
    {
      name: 'include_archived',
      type: 'bool',
      ops: ['eq'],
      sql: (_op, ref) => `(${ref} OR p.archived_at IS NULL)`,
      description: 'true: archived projects too.',
    },
  ],
  search: ['p.name', 'p.identifier'],
  orderings: {
    created_at: { expr: 'p.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'p.id', cursor: true, cast: 'uuid' },
    name: { expr: 'p.name', cursor: false },
  },
  defaultOrder: 'created_at',
  idExpr: 'p.id',
};
