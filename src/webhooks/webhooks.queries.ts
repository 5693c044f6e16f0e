import { ListSpec } from '../common/pagination/list-spec';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

export const WEBHOOK_LIST: ListSpec = {
  filters: [
    { name: 'is_active', type: 'bool', ops: ['eq'], column: 'w.is_active' },
    { name: 'name', type: 'string', ops: ['eq'], column: 'w.name' },
    { name: 'url', type: 'string', ops: ['eq'], column: 'w.url' },
  ],
  search: ['w.name', 'w.url'],
  orderings: {
    created_at: { expr: 'w.created_at', cursor: true, cast: 'timestamptz', immutable: true },
    name: { expr: 'w.name', cursor: false },
    id: { expr: 'w.id', cursor: true, cast: 'uuid', immutable: true },
  },
  defaultOrder: '-created_at',
  idExpr: 'w.id',
};

export const WEBHOOK_LOG_LIST: ListSpec = {
  filters: [
    { name: 'event_type', type: 'string', ops: ['eq'], column: 'l.event_type' },
    { name: 'event_id', type: 'uuid', ops: ['eq'], column: 'l.event_id' },
    { name: 'status_text', type: 'string', ops: ['eq'], column: 'l.status_text' },
    { name: 'created_after', type: 'datetime', ops: ['gte'], column: 'l.created_at' },
  ],
  orderings: {
    created_at: { expr: 'l.created_at', cursor: true, cast: 'timestamptz', immutable: true },
    id: { expr: 'l.id', cursor: true, cast: 'uuid', immutable: true },
  },
  defaultOrder: '-created_at',
  idExpr: 'l.id',
};
