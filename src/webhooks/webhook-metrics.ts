import { Injectable, Optional } from '@nestjs/common';
import type { Counter, Histogram } from 'prom-client';
import { Metrics } from '../common/metrics/metrics';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookQueue } from './webhook-queue';

/**
 * Webhook delivery metrics (docs/operations.md): attempts by outcome and their duration, webhooks disabled, and the
 * queue depth (deliveries waiting for an attempt, events not yet fanned out), read from the database at scrape time
 * on the job engine's pool, so a scrape takes no connection of the API's pool it reports on (db_pool_*).
 */
@Injectable()
export class WebhookMetrics {
  private readonly attempts?: Counter<'outcome'>;
  private readonly duration?: Histogram<'outcome'>;
  private readonly disables?: Counter<string>;

  constructor(repo: WebhookDeliveriesRepository, queue: WebhookQueue, @Optional() metrics?: Metrics) {
    if (!metrics) return;
    this.attempts = metrics.counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts by outcome: delivered, retry (a retry is scheduled), failed (final), refused (address policy).',
      labelNames: ['outcome'] as const,
    });
    this.duration = metrics.histogram({
      name: 'webhook_delivery_duration_seconds',
      help: 'Duration of webhook delivery attempts (connect to the end of the answer, or the error), by outcome.',
      labelNames: ['outcome'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    });
    this.disables = metrics.counter({
      name: 'webhooks_disabled_total',
      help: 'Webhooks disabled by the service after failing for WEBHOOK_DISABLE_AFTER_SECONDS.',
    });
    metrics.gauge({
      name: 'webhook_queue_depth',
      help: 'Webhook work waiting: deliveries pending an attempt (state=pending) and committed events not yet fanned out (state=undispatched).',
      labelNames: ['state'] as const,
      async collect() {
        const d = await repo.depth(queue.ownPool() ?? undefined).catch(() => null);
        if (!d) return;
        this.set({ state: 'pending' }, d.pending);
        this.set({ state: 'undispatched' }, d.undispatched);
      },
    });
  }

  attempt(outcome: string, durationMs: number): void {
    this.attempts?.inc({ outcome });
    this.duration?.observe({ outcome }, durationMs / 1000);
  }

  disabled(): void {
    this.disables?.inc();
  }
}
