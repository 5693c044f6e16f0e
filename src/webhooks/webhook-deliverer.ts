import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService, SYSTEM_ACTOR } from '../audit/audit.service';
import { Queryable } from '../common/pagination/sql-params';
import { DeliveryWork, WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { postOnce, PostResult, signatureHeaders } from './webhook-http';
import { WebhookMetrics } from './webhook-metrics';
import { DELIVER_QUEUE, DISPATCH_QUEUE, MAINTAIN_QUEUE, WebhookQueue } from './webhook-queue';
import { retryDelayMs, WebhookSettings } from './webhook-settings';
import { WEBHOOK_SETTINGS } from './webhook-tokens';

interface EventJob {
  workspace_id: string;
  event_id: string;
}
interface DeliveryJob {
  workspace_id: string;
  delivery_id: string;
}

/** What an attempt's answer means for the delivery. */
type Verdict = 'delivered' | 'retry' | 'final';

/** 2xx succeeds; network errors, timeouts, 408, 429 and 5xx are retried; anything else (3xx, 4xx) is final. */
export function verdictOf(r: PostResult): Verdict {
  if (r.refused) return 'final';
  if (r.status === undefined) return 'retry';
  if (r.status >= 200 && r.status < 300) return 'delivered';
  if (r.status === 408 || r.status === 429 || r.status >= 500) return 'retry';
  return 'final';
}

/**
 * The delivery pipeline, run by pg-boss workers of any instance: fan-out of a committed event to the webhooks
 * that choose it (one delivery each, created once), the attempts (signed POST, one log row each), retries with
 * backoff as new jobs due later, disabling of a webhook failing for too long, and the minute's maintenance.
 */
@Injectable()
export class WebhookDeliverer implements OnApplicationBootstrap {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly ds: DataSource,
    private readonly queue: WebhookQueue,
    private readonly repo: WebhookDeliveriesRepository,
    private readonly audit: AuditService,
    private readonly metrics: WebhookMetrics,
    @Inject(WEBHOOK_SETTINGS) private readonly settings: WebhookSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // The engine may start later (first webhook work in this instance: WebhookQueue); the workers start with it.
    if (this.settings.workers) await this.queue.whenStarted(() => this.startWorkers());
  }

  private async startWorkers(): Promise<void> {
    await this.queue.work<EventJob>(DISPATCH_QUEUE, (job) => this.dispatch(job.data));
    await this.queue.work<DeliveryJob>(DELIVER_QUEUE, (job) => this.deliver(job.data), this.settings.concurrency);
    await this.queue.work<object>(MAINTAIN_QUEUE, () => this.maintain());
    await this.queue.schedule(MAINTAIN_QUEUE, '* * * * *');
  }

  /**
   * Fans out an event the outbox could not (written where no job engine ran, found by the sweep): a delivery per
   * choosing webhook and its job, in one transaction.
   */
  async dispatch(job: EventJob): Promise<void> {
    await this.ds.transaction(async (tx) => {
      const ids = await this.repo.fanOut(job.workspace_id, job.event_id, tx);
      for (const id of ids) {
        await this.queue.send(DELIVER_QUEUE, { workspace_id: job.workspace_id, delivery_id: id }, {}, tx);
      }
    });
  }

  /** One attempt of one delivery. */
  async deliver(job: DeliveryJob): Promise<void> {
    const d = await this.repo.load(job.workspace_id, job.delivery_id);
    if (!d || d.status !== 'pending') return;
    if (!d.is_active) {
      await this.repo.cancel(d.workspace_id, d.delivery_id);
      return;
    }
    const body = JSON.stringify(payloadOf(d));
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': 'Autopilot',
      'X-Plane-Delivery': d.delivery_id,
      'X-Plane-Event': d.event,
      ...signatureHeaders(d.secret_key, body, Math.floor(Date.now() / 1000)),
    };
    const result = await postOnce(d.url, headers, body, this.settings.allowedHosts, this.settings.timeoutMs);
    await this.settleAttempt(d, headers, body, result);
  }

  /** Writes the attempt's log row and its consequences together. */
  private async settleAttempt(
    d: DeliveryWork,
    headers: Record<string, string>,
    body: string,
    r: PostResult,
  ): Promise<void> {
    const verdict = verdictOf(r);
    const attempt = d.attempts + 1;
    const retryAt = verdict === 'retry' ? this.nextAttemptAt(d, attempt) : null;
    const outcome = verdict === 'delivered' ? 'delivered' : retryAt ? 'retry' : r.refused ? 'refused' : 'failed';
    await this.ds.transaction(async (tx) => {
      await this.repo.insertLog(
        {
          workspaceId: d.workspace_id,
          webhookId: d.webhook_id,
          deliveryId: d.delivery_id,
          eventId: d.event_id,
          eventType: d.event,
          attempt,
          requestHeaders: JSON.stringify(headers),
          requestBody: body,
          responseStatus: r.status ?? null,
          responseHeaders: r.responseHeaders ?? null,
          responseBody: r.responseBody ?? null,
          statusText: outcome,
          errorMessage: r.error ?? (verdict === 'delivered' ? '' : `receiver answered ${r.status}`),
          durationMs: r.durationMs,
        },
        tx,
      );
      const status = verdict === 'delivered' ? 'delivered' : retryAt ? 'pending' : 'failed';
      await this.repo.settle(d.workspace_id, d.delivery_id, status, retryAt, tx);
      if (verdict === 'delivered') await this.repo.clearFailing(d.workspace_id, d.webhook_id, tx);
      else await this.recordFailure(d, r, tx);
      if (retryAt) {
        const next = { workspace_id: d.workspace_id, delivery_id: d.delivery_id };
        await this.queue.send(DELIVER_QUEUE, next, { startAfter: retryAt }, tx);
      }
    });
    this.report(d, attempt, outcome, r, retryAt);
  }

  /** When the next attempt is due, or null when the delivery has been retried for the whole window. */
  private nextAttemptAt(d: DeliveryWork, attempt: number): Date | null {
    const first = d.first_attempt_at ? new Date(d.first_attempt_at).getTime() : Date.now();
    const due = Date.now() + retryDelayMs(this.settings, attempt);
    return due - first <= this.settings.retryWindowSeconds * 1000 ? new Date(due) : null;
  }

  /** Extends the failing streak; a webhook failing for `disableAfterSeconds` is disabled, with an audit entry. */
  private async recordFailure(d: DeliveryWork, r: PostResult, tx: Queryable): Promise<void> {
    const since = await this.repo.failAndMaybeDisable(
      d.workspace_id,
      d.webhook_id,
      this.settings.disableAfterSeconds,
      tx,
    );
    if (!since) return;
    this.logger.warn(`webhook ${d.webhook_id} disabled: failing since ${new Date(since).toISOString()}`);
    this.metrics.disabled();
    await this.audit.record(tx, SYSTEM_ACTOR, {
      event_name: 'webhook.disabled',
      category: 'webhook',
      workspace_id: d.workspace_id,
      target_type: 'webhook',
      target_id: d.webhook_id,
      target_display_name: d.webhook_name ?? hostOf(d.url),
      old_value: { is_active: true },
      new_value: { is_active: false },
      reason: `Deliveries have failed without a success since ${new Date(since).toISOString()}.`,
      metadata: { failing_since: new Date(since).toISOString(), last_error: r.error ?? `HTTP ${r.status}` },
    });
  }

  /** A log line per attempt (never the secret, nor the URL's path or query, which may carry a token). */
  private report(d: DeliveryWork, attempt: number, outcome: string, r: PostResult, retryAt: Date | null): void {
    this.metrics.attempt(outcome, r.durationMs);
    const line = JSON.stringify({
      webhook_id: d.webhook_id,
      delivery_id: d.delivery_id,
      event: d.event,
      host: hostOf(d.url),
      attempt,
      outcome,
      status: r.status ?? null,
      error: r.error ?? null,
      duration_ms: r.durationMs,
      next_attempt_at: retryAt?.toISOString() ?? null,
    });
    if (outcome === 'delivered') this.logger.log(`delivery ${line}`);
    else this.logger.warn(`delivery ${line}`);
  }

  /** Every minute: fan out events whose job went missing, and prune past the retention. */
  async maintain(): Promise<void> {
    for (const e of await this.repo.undispatched(10, 500)) {
      await this.queue.send(DISPATCH_QUEUE, { workspace_id: e.workspace_id, event_id: e.id });
    }
    const pruned = await this.repo.prune(this.settings.logRetentionDays);
    if (pruned.logs || pruned.deliveries || pruned.events) this.logger.log(`pruned ${JSON.stringify(pruned)}`);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** Plane's v2 payload. `delivery_id` is stable across the retries of one delivery, `event_id` across webhooks. */
export function payloadOf(d: DeliveryWork): Record<string, unknown> {
  return {
    version: 'v2',
    delivery_id: d.delivery_id,
    event_id: d.event_id,
    entity_id: d.entity_id,
    entity_type: d.entity_type,
    event: d.event,
    webhook_id: d.webhook_id,
    workspace_id: d.workspace_id,
    data: d.data,
    previous_attributes: d.previous_attributes ?? {},
  };
}
