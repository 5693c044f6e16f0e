import { Injectable } from '@nestjs/common';
import { Queryable } from '../common/pagination/sql-params';
import { changedAttributes, familyPattern, WebhookEventInput } from './webhook-events';
import { DELIVER_QUEUE, WebhookQueue } from './webhook-queue';

/**
 * The transactional outbox: a feature's service calls `record` with the transaction of the change, so the event
 * commits or rolls back with it; nothing is sent from inside the request. The event row is written only when an
 * active webhook of the workspace chooses the event (one indexed statement otherwise), together with one delivery
 * per such webhook and its job, so a worker starts the first attempt as soon as the change commits. An event
 * written where no job engine runs (dispatched_at null) is fanned out by the maintenance sweep.
 */
@Injectable()
export class WebhookOutbox {
  constructor(private readonly queue: WebhookQueue) {}

  async record(db: Queryable, e: WebhookEventInput): Promise<void> {
    const previous = e.before ? changedAttributes(e.before, e.data) : null;
    const fanOut = this.queue.started;
    // One statement: the event (only when an active webhook chooses it) and, when this process can add their jobs,
    // one delivery per choosing webhook; without the job engine the event waits for the maintenance sweep.
    const rows: Array<{ id: string }> = await db.query(
      `WITH ev AS (
         INSERT INTO webhook_events (workspace_id, event, entity_type, entity_id, project_id, actor_id, data,
                                     previous_attributes, dispatched_at)
         SELECT $1::uuid, $2::text, $3::text, $4::uuid, $5::uuid, $6::uuid, $7::jsonb, $8::jsonb,
                CASE WHEN $10::boolean THEN clock_timestamp() END
          WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.workspace_id = $1 AND w.is_active
                           AND ('*' = ANY (w.scopes) OR $2 = ANY (w.scopes) OR $9::text = ANY (w.scopes)))
         RETURNING workspace_id, id)
       INSERT INTO webhook_deliveries (workspace_id, webhook_id, event_id)
       SELECT w.workspace_id, w.id, ev.id
         FROM ev JOIN webhooks w ON w.workspace_id = ev.workspace_id
        WHERE $10::boolean AND w.is_active
          AND ('*' = ANY (w.scopes) OR $2 = ANY (w.scopes) OR $9::text = ANY (w.scopes))
       RETURNING id`,
      [
        e.workspaceId,
        e.event,
        e.entityType,
        e.entityId,
        e.projectId ?? null,
        e.actorId ?? null,
        JSON.stringify(e.data),
        previous === null ? null : JSON.stringify(previous),
        familyPattern(e.event),
        fanOut,
      ],
    );
    if (!rows.length) return;
    const jobs = rows.map((r) => ({ workspace_id: e.workspaceId, delivery_id: r.id }));
    await this.queue.insert(DELIVER_QUEUE, jobs, db);
  }
}
