import { ListSpec } from '../common/pagination/list-spec';
import { atOrBefore } from '../common/pagination/list-query';
import { AUDIT_CATEGORIES, AUDIT_OUTCOMES } from './audit.service';
import { catalogueNames } from './audit-events';

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

/**
 * The audit-log list. Both orderings are keysets over (created_at, id) / (id), which the insert trigger
 * makes commit-ordered within a workspace (docs/audit.md): a cursor walk never skips an entry that commits
 * after the walk passed its position in time, and the two orders agree (id is built from created_at).
 * Every filter has an index leading with workspace_id and ending with created_at, id.
 */
export const AUDIT_LOG_LIST: ListSpec = {
  filters: [
    {
      name: 'created_after',
      type: 'datetime',
      ops: ['eq'],
      sql: (_op, ref) => `a.created_at >= ${ref}`,
      description: 'Entries created at or after this instant (ISO 8601; send UTC).',
    },
    {
      name: 'created_before',
      type: 'datetime',
      ops: ['eq'],
      sql: (_op, ref, value) => atOrBefore('a.created_at', ref!, value as string),
      description:
        'Entries created at or before this instant (ISO 8601; send UTC), at its precision: a value in milliseconds, as the API renders created_at, includes that whole millisecond.',
    },
    {
      name: 'actor_id',
      type: 'uuid',
      ops: ['eq'],
      column: 'a.actor_id',
      description: "One user's actions; entries without an actor are excluded.",
    },
    {
      name: 'event_name',
      type: 'string',
      ops: ['eq'],
      column: 'a.event_name',
      description: `One event name (exact). The catalogue (each event's category, outcome, target and values is in the description of the entry's event_name): ${catalogueNames()}.`,
    },
    {
      name: 'category',
      type: 'enum',
      values: AUDIT_CATEGORIES,
      ops: ['eq'],
      column: 'a.category',
      description: 'Validated: an unknown value is 400.',
    },
    {
      name: 'outcome',
      type: 'enum',
      values: AUDIT_OUTCOMES,
      ops: ['eq'],
      column: 'a.outcome',
      description: 'Validated: an unknown value is 400.',
    },
    {
      name: 'target_type',
      type: 'string',
      ops: ['eq'],
      column: 'a.target_type',
      description: 'Kind of object acted on (exact).',
    },
    {
      name: 'target_id',
      type: 'string',
      ops: ['eq'],
      column: 'a.target_id',
      description: 'Specific object acted on (exact).',
    },
    {
      name: 'ip_address',
      type: 'string',
      ops: ['eq'],
      column: 'a.ip_address',
      description:
        'Client address (exact, after normalisation: an IPv4-mapped IPv6 address such as ::ffff:10.0.0.1 matches 10.0.0.1; IPv6 in any spelling matches its canonical form).',
    },
  ],
  search: ['a.event_name', 'a.actor_display_name', 'a.actor_email', 'a.target_display_name'],
  orderings: {
    created_at: { expr: 'a.created_at', cursor: true, cast: 'timestamptz' },
    id: { expr: 'a.id', cursor: true, cast: 'uuid' },
  },
  defaultOrder: '-created_at',
  idExpr: 'a.id',
};
