import { createHash, randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Queryable } from '../common/pagination/sql-params';
import type { AuditActor, AuditEvent } from './audit.service';
import { loadConfig } from '../common/config/config';

/** Default aggregation window of repeated identical failures (AUDIT_FAILURE_WINDOW_SECONDS). */
/** Counts held in memory reach the database at least this often. */
const FLUSH_INTERVAL_MS = 1000;
/** Windows remembered in memory; older ones are forgotten first (the database stays correct without them). */
const MAX_REMEMBERED = 10_000;

/** AUDIT_FAILURE_WINDOW_SECONDS, validated with every other setting at start (config.ts). */
export function failureWindowSeconds(): number {
  return loadConfig().auditFailureWindowSeconds;
}

/** What makes two failures "identical": everything but the time, the user agent and free-form metadata. */
export function failureFingerprint(actor: AuditActor, e: AuditEvent): string {
  const parts = [
    e.workspace_id,
    e.project_id ?? '',
    e.event_name,
    actor.actor_type,
    actor.actor_id ?? '',
    actor.ip_address ?? '',
    e.reason ?? '',
    e.target_type ?? '',
    e.target_id ?? '',
    e.fingerprint ?? '',
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

interface Window {
  workspaceId: string;
  fingerprint: string;
  windowStart: Date;
  /** Occurrences seen by this process after the first, not yet added to the database counter. */
  pending: number;
  /** The first occurrence is in the database (its counter row exists). */
  ready: boolean;
}

type Writer = (db: Queryable, actor: AuditActor, e: AuditEvent) => Promise<void>;

/**
 * Flood protection of the audit trail (docs/audit.md, "Flood protection").
 *
 * Failures are grouped by fingerprint into fixed windows (`window_start` = time floored to the window).
 * The first occurrence of a fingerprint in a window upserts its counter row in `audit_aggregates` and, if
 * the row is new, appends ONE audit entry (in the same transaction). Every later occurrence in that window
 * only increments the counter: the append-only trail grows by at most one entry per fingerprint and window.
 *
 * This process also remembers the windows it has written, so a flood costs no database round trip per
 * request: repeats are counted in memory and added to the counter every second (and before every audit
 * read of this process). Several instances stay correct because the upsert is atomic: whichever inserts
 * the counter row writes the entry, the others only count.
 */
export class FailureAggregator {
  private readonly windows = new Map<string, Window>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private readonly logger = new Logger('AuditFailureAggregator');

  constructor(
    private readonly ds: DataSource,
    readonly windowSeconds: number,
    private readonly write: Writer,
    /** Called when a statement on audit_aggregates fails (the audit_write_failures_total metric). */
    private readonly countFailed: () => void = () => undefined,
  ) {}

  async submit(actor: AuditActor, e: AuditEvent): Promise<void> {
    const fingerprint = failureFingerprint(actor, e);
    const windowMs = this.windowSeconds * 1000;
    const windowStart = new Date(Math.floor(Date.now() / windowMs) * windowMs);
    const key = `${e.workspace_id}:${fingerprint}:${windowStart.getTime()}`;
    const known = this.windows.get(key);
    if (known) {
      known.pending++;
      this.schedule();
      return;
    }
    const w: Window = { workspaceId: e.workspace_id, fingerprint, windowStart, pending: 0, ready: false };
    this.remember(key, w);
    try {
      await this.ds.transaction(async (tx) => {
        const eventId = randomUUID();
        const rows: Array<{ event_id: string; inserted: boolean }> = await tx
          .query(
            `INSERT INTO audit_aggregates (workspace_id, fingerprint, window_start, event_id, occurrences, last_seen_at)
             VALUES ($1, $2, $3, $4, 1, now())
             ON CONFLICT (workspace_id, fingerprint, window_start)
               DO UPDATE SET occurrences = audit_aggregates.occurrences + 1, last_seen_at = now()
             RETURNING event_id, (xmax = 0) AS inserted`,
            [e.workspace_id, fingerprint, windowStart, eventId],
          )
          .catch((err: unknown) => {
            this.countFailed();
            throw err;
          });
        if (!rows[0]?.inserted) return;
        await this.write(tx, actor, {
          ...e,
          event_id: eventId,
          metadata: {
            ...(e.metadata ?? {}),
            aggregation: {
              window_start: windowStart.toISOString(),
              window_end: new Date(windowStart.getTime() + windowMs).toISOString(),
              window_seconds: this.windowSeconds,
              fingerprint,
            },
          },
        });
      });
      w.ready = true;
      if (w.pending) this.schedule();
    } catch (err) {
      this.windows.delete(key);
      throw err;
    }
  }

  /** Adds the counts held in memory to the database. */
  flush(): Promise<void> {
    if (!this.flushing) {
      this.flushing = this.doFlush().finally(() => {
        this.flushing = null;
      });
    }
    return this.flushing;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush().catch((err: Error) =>
      this.logger.warn({ msg: 'final flush of failure counts failed', err: err.message }),
    );
  }

  private async doFlush(): Promise<void> {
    const now = Date.now();
    const windowMs = this.windowSeconds * 1000;
    for (const [key, w] of this.windows) {
      if (w.ready && w.pending > 0) {
        const n = w.pending;
        w.pending = 0;
        try {
          await this.ds.query(
            `UPDATE audit_aggregates SET occurrences = occurrences + $4, last_seen_at = now()
              WHERE workspace_id = $1 AND fingerprint = $2 AND window_start = $3`,
            [w.workspaceId, w.fingerprint, w.windowStart, n],
          );
        } catch (err) {
          w.pending += n;
          this.countFailed();
          throw err;
        }
      }
      if (w.ready && w.pending === 0 && w.windowStart.getTime() + windowMs < now) this.windows.delete(key);
    }
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush().catch((err: Error) => {
        this.logger.warn({ msg: 'flush of failure counts failed; retrying', err: err.message });
        this.schedule();
      });
    }, FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  private remember(key: string, w: Window): void {
    if (this.windows.size >= MAX_REMEMBERED) {
      for (const [k, old] of this.windows) {
        if (this.windows.size < MAX_REMEMBERED) break;
        // Forgetting a window only means its next occurrence goes to the database (upsert +1) again.
        if (old.ready && old.pending === 0) this.windows.delete(k);
      }
    }
    this.windows.set(key, w);
  }
}
