import { Module } from '@nestjs/common';
import { WebhookOutbox } from './webhook-outbox';
import { WebhookQueue } from './webhook-queue';
import { loadWebhookSettings } from './webhook-settings';
import { WEBHOOK_SETTINGS } from './webhook-tokens';

/**
 * What other features need to report their changes: the outbox (`WebhookOutbox.record` inside their transaction)
 * and the job engine it enqueues on. Imported by projects, cycles, modules, work items and comments, and by
 * WebhooksModule (API and delivery); Nest builds it once, so one job engine runs per instance.
 */
@Module({
  providers: [{ provide: WEBHOOK_SETTINGS, useFactory: loadWebhookSettings }, WebhookQueue, WebhookOutbox],
  exports: [WEBHOOK_SETTINGS, WebhookQueue, WebhookOutbox],
})
export class WebhookOutboxModule {}
