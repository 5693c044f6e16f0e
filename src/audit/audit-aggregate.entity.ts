import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Counters of aggregated failures (docs/audit.md, "Flood protection"). The first occurrence of a failure
 * fingerprint in a time window writes one audit entry (`event_id`); later identical occurrences in the
 * same window only increment `occurrences` here, so the append-only trail grows by at most one entry per
 * fingerprint and window. The audit-log API reports the count as `metadata.aggregation.occurrences`.
 */
@Entity('audit_aggregates')
@Index('uq_audit_aggregates_event', ['workspace_id', 'event_id'], { unique: true })
export class AuditAggregateEntity {
  @PrimaryColumn('uuid') workspace_id!: string;
  /** SHA-256 (hex) of event name, actor, address, reason and target. */
  @PrimaryColumn('char', { length: 64 }) fingerprint!: string;
  @PrimaryColumn('timestamptz') window_start!: Date;
  /** The audit entry written for the window's first occurrence. */
  @Column('uuid') event_id!: string;
  @Column('integer', { default: 1 }) occurrences!: number;
  @Column('timestamptz') last_seen_at!: Date;
}
