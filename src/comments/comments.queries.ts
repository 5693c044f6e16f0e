import { ListSpec } from '../common/pagination/list-spec';
import { COMMENT_ACCESS } from './comment.entity';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

export const COMMENT_LIST: ListSpec = {
  filters: [
    {
      name: 'access',
      type: 'enum',
      values: COMMENT_ACCESS,
      ops: ['eq'],
      column: 'c.access',
      description: 'INTERNAL or EXTERNAL.',
    },
    { name: 'external_id', type: 'string', ops: ['eq'], column: 'c.external_id' },
    { name: 'external_source', type: 'string', ops: ['eq'], column: 'c.external_source' },
  ],
  search: ['c.comment_stripped'],
  orderings: {
    created_at: { expr: 'c.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'c.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: 'created_at',
  idExpr: 'c.id',
};
