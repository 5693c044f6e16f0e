import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Queryable } from '../common/pagination/sql-params';

export interface DeliveryWork {
  delivery_id: string;
  workspace_id: string;
  status: string;
  attempts: number;
  first_attempt_at: Date | null;
  webhook_id: string;
  webhook_name: string | null;
  url: string;
  secret_key: string;
  is_active: boolean;
  event_id: string;
  event: string;
  entity_type: string;
  entity_id: string;
  data: unknown;
  previous_attributes: unknown;
}

export interface AttemptLog {
  workspaceId: string;
  webhookId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  requestHeaders: string;
  requestBody: string;
  responseStatus: number | null;
  responseHeaders: string | null;
  responseBody: string | null;
  statusText: string;
  errorMessage: string;
  durationMs: number | null;
}

/** The delivery pipeline's statements: fan-out, attempts, their logs, the failing streak, pruning. */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * Claims an event not yet fanned out (locked; a concurrent claim of the same event waits, then finds it done) and
   * creates one delivery per active webhook of its workspace that chooses it. Returns the new deliveries' ids.
   */
  async fanOut(workspaceId: string, eventId: string, db: Queryable): Promise<string[]> {
    // An UPDATE answers [rows, count] through TypeORM.
    const [claimed] = await db.query(
      `UPDATE webhook_events SET dispatched_at = clock_timestamp()
        WHERE workspace_id = $1 AND id = $2 AND dispatched_at IS NULL
        RETURNING event`,
      [workspaceId, eventId],
    );
    if (!claimed.length) return [];
    const event: string = claimed[0].event;
    const rows: Array<{ id: string }> = await db.query(
      `INSERT INTO webhook_deliveries (workspace_id, webhook_id, event_id)
       SELECT w.workspace_id, w.id, $2::uuid FROM webhooks w
        WHERE w.workspace_id = $1 AND w.is_active
          AND ('*' = ANY (w.scopes) OR $3::text = ANY (w.scopes) OR $4::text = ANY (w.scopes))
       ON CONFLICT (workspace_id, event_id, webhook_id) DO NOTHING
       RETURNING id`,
      [workspaceId, eventId, event, `${event.slice(0, event.lastIndexOf('.'))}.*`],
    );
    return rows.map((r) => r.id);
  }

  async load(workspaceId: string, deliveryId: string): Promise<DeliveryWork | null> {
    const rows = await this.ds.query(
      `SELECT d.id AS delivery_id, d.workspace_id, d.status, d.attempts, d.first_attempt_at,
              w.id AS webhook_id, w.name AS webhook_name, w.url, w.secret_key, w.is_active,
              e.id AS event_id, e.event, e.entity_type, e.entity_id, e.data, e.previous_attributes
         FROM webhook_deliveries d
         JOIN webhooks w ON w.workspace_id = d.workspace_id AND w.id = d.webhook_id
         JOIN webhook_events e ON e.workspace_id = d.workspace_id AND e.id = d.event_id
        WHERE d.workspace_id = $1 AND d.id = $2`,
      [workspaceId, deliveryId],
    );
    return rows[0] ?? null;
  }

  async insertLog(l: AttemptLog, db: Queryable): Promise<void> {
    await db.query(
      `INSERT INTO webhook_logs (workspace_id, webhook_id, delivery_id, event_id, event_type, attempt, request_headers,
         request_body, response_status, response_headers, response_body, status_text, error_message, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        l.workspaceId,
        l.webhookId,
        l.deliveryId,
        l.eventId,
        l.eventType,
        l.attempt,
        l.requestHeaders,
        l.requestBody,
        l.responseStatus,
        l.responseHeaders,
        l.responseBody,
        l.statusText,
        l.errorMessage,
        l.durationMs,
      ],
    );
  }

  /** Records an attempt on the delivery: its new status, and when the next one is due (pending only). */
  async settle(
    workspaceId: string,
    deliveryId: string,
    status: 'pending' | 'delivered' | 'failed' | 'cancelled',
    nextAttemptAt: Date | null,
    db: Queryable,
  ): Promise<void> {
    await db.query(
      `UPDATE webhook_deliveries
          SET status = $3, attempts = attempts + 1, next_attempt_at = $4,
              first_attempt_at = COALESCE(first_attempt_at, now()), updated_at = now()
        WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, deliveryId, status, nextAttemptAt],
    );
  }

  async cancel(workspaceId: string, deliveryId: string): Promise<void> {
    await this.ds.query(
      `UPDATE webhook_deliveries SET status = 'cancelled', updated_at = now() WHERE workspace_id = $1 AND id = $2 AND status = 'pending'`,
      [workspaceId, deliveryId],
    );
  }

  /** A success ends the webhook's failing streak. */
  async clearFailing(workspaceId: string, webhookId: string, db: Queryable): Promise<void> {
    await db.query(
      `UPDATE webhooks SET failing_since = NULL WHERE workspace_id = $1 AND id = $2 AND failing_since IS NOT NULL`,
      [workspaceId, webhookId],
    );
  }

  /**
   * Extends the webhook's failing streak (it starts at this failure when there is none) and disables the webhook
   * when the streak has lasted `disableAfterSeconds`. Returns the streak's start when it was disabled now, else null.
   */
  async failAndMaybeDisable(
    workspaceId: string,
    webhookId: string,
    disableAfterSeconds: number,
    db: Queryable,
  ): Promise<Date | null> {
    const [streak]: [Array<{ failing_since: Date; due: boolean }>] = await db.query(
      `UPDATE webhooks SET failing_since = COALESCE(failing_since, now())
        WHERE workspace_id = $1 AND id = $2 AND is_active
        RETURNING failing_since, failing_since <= now() - make_interval(secs => $3) AS due`,
      [workspaceId, webhookId, disableAfterSeconds],
    );
    if (!streak[0]?.due) return null;
    await db.query(
      `UPDATE webhooks SET is_active = false, disabled_at = now(), updated_at = now() WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, webhookId],
    );
    await db.query(
      `UPDATE webhook_deliveries SET status = 'cancelled', updated_at = now()
        WHERE workspace_id = $1 AND webhook_id = $2 AND status = 'pending'`,
      [workspaceId, webhookId],
    );
    return streak[0].failing_since;
  }

  /** Events whose fan-out job was never added or got lost (older than `olderThanSeconds`). */
  async undispatched(olderThanSeconds: number, limit: number): Promise<Array<{ workspace_id: string; id: string }>> {
    return this.ds.query(
      `SELECT workspace_id, id FROM webhook_events
        WHERE dispatched_at IS NULL AND created_at < now() - make_interval(secs => $1)
        ORDER BY created_at LIMIT $2`,
      [olderThanSeconds, limit],
    );
  }

  /** Deletes logs, finished deliveries and fully delivered events older than the retention. */
  async prune(retentionDays: number): Promise<{ logs: number; deliveries: number; events: number }> {
    const cutoff = `now() - make_interval(days => $1)`;
    const [, logs] = await this.ds.query(`DELETE FROM webhook_logs WHERE created_at < ${cutoff}`, [retentionDays]);
    const [, deliveries] = await this.ds.query(
      `DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < ${cutoff}`,
      [retentionDays],
    );
    const [, events] = await this.ds.query(
      `DELETE FROM webhook_events e WHERE e.created_at < ${cutoff} AND e.dispatched_at IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.workspace_id = e.workspace_id AND d.event_id = e.id)`,
      [retentionDays],
    );
    return { logs, deliveries, events };
  }

  async depth(db: Queryable = this.ds): Promise<{ pending: number; undispatched: number }> {
    const [r] = await db.query(
      `SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::int AS pending,
              (SELECT count(*) FROM webhook_events WHERE dispatched_at IS NULL)::int AS undispatched`,
    );
    return r;
  }
}
