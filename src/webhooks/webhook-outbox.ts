import { Injectable } from '@nestjs/common';
import { Queryable } from '../common/pagination/sql-params';
import {
  changedAttributes,
  familyPattern,
  WEBHOOK_EVENTS,
  WebhookEventInput,
  WebhookEventName,
} from './webhook-events';
import { DELIVER_QUEUE, WebhookQueue } from './webhook-queue';

/**
 * An SQL boolean: whether an active webhook of the workspace `workspace` (an SQL reference, e.g. `$1`) chooses
 * `event`, the test `recordMany` writes an event under. For a write statement that does its own change only when
 * nobody listens (one statement, no transaction: the service then makes no outbox round trip) and reports whether
 * someone does, so the service can redo the write in a transaction with its event. A webhook registered while
 * the statement runs is seen from the next change on, as with the outbox's own statement.
 */
export function webhookChosenSql(workspace: string, event: WebhookEventName): string {
  // Interpolated: an event name of the closed list, never input.
  if (!WEBHOOK_EVENTS.includes(event)) throw new Error(`webhooks: unknown event ${event}`);
  return `EXISTS (SELECT 1 FROM webhooks wh WHERE wh.workspace_id = ${workspace} AND wh.is_active
            AND ('*' = ANY (wh.scopes) OR '${event}' = ANY (wh.scopes) OR '${familyPattern(event)}' = ANY (wh.scopes)))`;
}

/**
 * The transactional outbox: a feature's service calls `record` with the transaction of the change, so the event
 * commits or rolls back with it; nothing is sent from inside the request. Inside a request's transaction scope
 * (common/database/transaction-scope.ts: an idempotent POST, a conditional PATCH or DELETE) the service's
 * transaction is a savepoint of the scope, so the event commits with the change and its idempotency record.
 * The event row is written only when an active webhook of the workspace chooses the event (one indexed statement
 * otherwise), together with one delivery per such webhook and its job, so a worker starts the first attempt as
 * soon as the change commits. An event written where no job engine runs (dispatched_at null) is fanned out by
 * the maintenance sweep.
 */
@Injectable()
export class WebhookOutbox {
  constructor(private readonly queue: WebhookQueue) {}

  /** One change's event: see recordMany. */
  async record(db: Queryable, e: WebhookEventInput): Promise<void> {
    await this.recordMany(db, [e]);
  }

  /**
   * The events of one workspace's changes (a bulk write reports one per changed work item), in one statement:
   * each event is written only when an active webhook of the workspace chooses it, and, when this process can
   * add jobs, one delivery per choosing webhook; then their jobs, in one more statement of the same transaction.
   */
  async recordMany(db: Queryable, events: WebhookEventInput[]): Promise<void> {
    if (!events.length) return;
    const workspaceId = events[0].workspaceId;
    if (events.some((e) => e.workspaceId !== workspaceId)) throw new Error('webhooks: events of several workspaces');
    const fanOut = this.queue.started;
    const rows = events.map((e, ord) => ({
      ord,
      event: e.event,
      family: familyPattern(e.event),
      entity_type: e.entityType,
      entity_id: e.entityId,
      project_id: e.projectId ?? null,
      actor_id: e.actorId ?? null,
      data: e.data,
      previous_attributes: e.before ? changedAttributes(e.before, e.data) : null,
    }));
    // Without the job engine an event waits for the maintenance sweep (dispatched_at null).
    const deliveries: Array<{ id: string | null }> = await db.query(
      `WITH e AS (
         SELECT * FROM jsonb_to_recordset($2::jsonb) AS e(ord int, event text, family text, entity_type text,
                  entity_id uuid, project_id uuid, actor_id uuid, data jsonb, previous_attributes jsonb)),
       ev AS (
         INSERT INTO webhook_events (workspace_id, event, entity_type, entity_id, project_id, actor_id, data,
                                     previous_attributes, dispatched_at)
         SELECT $1::uuid, e.event, e.entity_type, e.entity_id, e.project_id, e.actor_id, e.data,
                e.previous_attributes, CASE WHEN $3::boolean THEN clock_timestamp() END
           FROM e
          WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.workspace_id = $1 AND w.is_active
                           AND ('*' = ANY (w.scopes) OR e.event = ANY (w.scopes) OR e.family = ANY (w.scopes)))
          ORDER BY e.ord
         RETURNING workspace_id, id, event),
       d AS (
         INSERT INTO webhook_deliveries (workspace_id, webhook_id, event_id)
         SELECT w.workspace_id, w.id, ev.id
           FROM ev JOIN webhooks w ON w.workspace_id = ev.workspace_id
          WHERE w.workspace_id = $1 AND $3::boolean AND w.is_active
            AND ('*' = ANY (w.scopes) OR ev.event = ANY (w.scopes)
                 OR regexp_replace(ev.event, '[^.]+$', '*') = ANY (w.scopes))
         RETURNING id)
       SELECT id FROM d
       UNION ALL
       SELECT NULL FROM ev WHERE NOT $3::boolean`,
      [workspaceId, JSON.stringify(rows), fanOut],
    );
    // Events written without the engine (a row each, id null): the sweep of the engine they start fans them out.
    if (!fanOut && deliveries.length) this.queue.startInBackground();
    if (!fanOut || !deliveries.length) return;
    const jobs = deliveries.map((r) => ({ workspace_id: workspaceId, delivery_id: r.id }));
    await this.queue.insert(DELIVER_QUEUE, jobs, db);
  }
}
