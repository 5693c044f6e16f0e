import { AUDIT_LOG_LIST } from './audit-logs.queries';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { SqlParams } from '../common/pagination/sql-params';
import { AuditLogRow } from './audit-logs.mapper';

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
