import { Injectable, Logger } from '@nestjs/common';
import { Queryable } from '../common/pagination/sql-params';
import { changedAttributes, familyPattern, WebhookEventInput } from './webhook-events';
import { DISPATCH_QUEUE, WebhookQueue } from './webhook-queue';

/**
 * The transactional outbox: a feature's service calls `record` with the transaction of the change, so the event
 * commits or rolls back with it; nothing is sent from inside the request. The event row is written only when an
 * active webhook of the workspace chooses the event (one indexed statement otherwise), together with the job that
 * fans it out to those webhooks once it has committed. An event whose job could not be added (a process without
 * the job engine) is picked up by the maintenance sweep.
 */
@Injectable()
export class WebhookOutbox {
  private readonly logger = new Logger('Webhooks');

  constructor(private readonly queue: WebhookQueue) {}

  async record(db: Queryable, e: WebhookEventInput): Promise<void> {
    const previous = e.before ? changedAttributes(e.before, e.data) : null;
    const rows: Array<{ id: string }> = await db.query(
      `INSERT INTO webhook_events (workspace_id, event, entity_type, entity_id, project_id, actor_id, data, previous_attributes)
       SELECT $1::uuid, $2::text, $3::text, $4::uuid, $5::uuid, $6::uuid, $7::jsonb, $8::jsonb
        WHERE EXISTS (SELECT 1 FROM webhooks w
                       WHERE w.workspace_id = $1 AND w.is_active
                         AND ('*' = ANY (w.scopes) OR $2 = ANY (w.scopes) OR $9::text = ANY (w.scopes)))
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
      ],
    );
    if (!rows.length) return;
    if (!this.queue.started) {
      this.logger.debug(`event ${rows[0].id} left for the maintenance sweep (no job engine in this process)`);
      return;
    }
    await this.queue.send(DISPATCH_QUEUE, { workspace_id: e.workspaceId, event_id: rows[0].id }, {}, db);
  }
}
