import { AuditLogDto } from './audit-logs.dto';

export interface AuditLogRow extends Record<string, unknown> {
  id: string;
  event_id: string;
  sequence_number: string;
  event_name: string;
  category: string;
  outcome: string;
  source: string;
  actor_type: string;
  actor_id: string | null;
  actor_display_name: string;
  actor_email: string;
  target_type: string;
  target_id: string;
  target_display_name: string;
  old_value: unknown;
  new_value: unknown;
  reason: string;
  metadata: Record<string, unknown> | null;
  ip_address: string | null;
  user_agent: string;
  workspace_id: string;
  project_id: string | null;
  /** ISO 8601 UTC with microseconds. */
  created_at: string;
  /** Occurrences counted for an aggregated failure (audit_aggregates), else null. */
  agg_occurrences: number | null;
}

export function mapAuditLog(r: AuditLogRow): AuditLogDto {
  const metadata = { ...(r.metadata ?? {}) };
  if (
    r.agg_occurrences !== null &&
    r.agg_occurrences !== undefined &&
    typeof metadata.aggregation === 'object' &&
    metadata.aggregation
  ) {
    metadata.aggregation = {
      ...(metadata.aggregation as Record<string, unknown>),
      occurrences: Number(r.agg_occurrences),
    };
  }
  return {
    id: r.id,
    event_id: r.event_id,
    sequence_number: Number(r.sequence_number),
    event_name: r.event_name,
    category: r.category,
    outcome: r.outcome,
    source: r.source,
    actor_type: r.actor_type,
    actor_id: r.actor_id,
    actor_display_name: r.actor_display_name,
    actor_email: r.actor_email,
    target_type: r.target_type,
    target_id: r.target_id,
    target_display_name: r.target_display_name,
    old_value: r.old_value ?? null,
    new_value: r.new_value ?? null,
    reason: r.reason,
    metadata,
    // The spec types ip_address as a string: entries without a client address (CLI, system) carry "", like actor_email.
    ip_address: r.ip_address ?? '',
    user_agent: r.user_agent,
    workspace_id: r.workspace_id,
    project_id: r.project_id,
    created_at: r.created_at,
  };
}
