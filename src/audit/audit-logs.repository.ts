import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { atOrBefore, ListQuery } from '../common/pagination/list-query';
import { ListSpec } from '../common/pagination/list-spec';
import { runList } from '../common/pagination/run-list';
import { SqlParams } from '../common/pagination/sql-params';
import { AUDIT_CATEGORIES, AUDIT_OUTCOMES } from './audit.service';
import { catalogueNames } from './audit-events';
import { AuditLogRow } from './audit-logs.mapper';

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

/** created_at with its microseconds (unique per workspace), so `created_after` can resume exactly at an entry. */
const COLS = `a.id, a.event_id, a.sequence_number::text AS sequence_number, a.event_name, a.category, a.outcome, a.source,
  a.actor_type, a.actor_id, a.actor_display_name, a.actor_email, a.target_type, a.target_id, a.target_display_name,
  a.old_value, a.new_value, a.reason, a.metadata, a.ip_address, a.user_agent, a.workspace_id, a.project_id,
  to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at, g.occurrences AS agg_occurrences`;

// The counter of an aggregated failure, by its unique (workspace_id, event_id): at most one row per entry.
const FROM = `audit_logs a LEFT JOIN audit_aggregates g ON g.workspace_id = a.workspace_id AND g.event_id = a.event_id`;

/** Reads only: the trail has no update or delete path. */
@Injectable()
export class AuditLogsRepository {
  constructor(private readonly ds: DataSource) {}

  /** One trail: a workspace's, or with `null` the instance trail (entries of no workspace, read by the admin CLI). */
  list(workspaceId: string | null, q: ListQuery) {
    const where = [workspaceId === null ? 'a.workspace_id IS NULL' : 'a.workspace_id = $1'];
    return runList<AuditLogRow>(this.ds, AUDIT_LOG_LIST, q, {
      select: COLS,
      from: FROM,
      where,
      params: new SqlParams(workspaceId === null ? [] : [workspaceId]),
      // Deep offsets count entries off the (workspace_id, …, created_at, id) indexes without the aggregates join.
      keyWalk: { from: 'audit_logs a', where },
    });
  }

  async get(workspaceId: string, id: string): Promise<AuditLogRow | null> {
    const rows: AuditLogRow[] = await this.ds.query(
      `SELECT ${COLS} FROM ${FROM} WHERE a.workspace_id = $1 AND a.id = $2`,
      [workspaceId, id],
    );
    return rows[0] ?? null;
  }
}
