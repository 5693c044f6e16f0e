import { ListSpec } from '../common/pagination/list-spec';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

/** Filters narrow one work item's links, one range of ix_work_item_links_list. */
export const LINK_LIST: ListSpec = {
  filters: [
    { name: 'title', type: 'string', ops: ['eq'], column: 'l.title' },
    { name: 'url', type: 'string', ops: ['eq'], column: 'l.url' },
  ],
  search: ['l.title', 'l.url'],
  orderings: {
    created_at: { expr: 'l.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'l.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: 'created_at',
  idExpr: 'l.id',
};
