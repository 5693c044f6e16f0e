import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { WebhookDeliverer } from './webhook-deliverer';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookMetrics } from './webhook-metrics';
import { WebhookOutboxModule } from './webhook-outbox.module';
import { WebhookLogsController, WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Webhooks: the registration API, the delivery logs and the delivery workers (docs/webhooks.md). */
@Module({
  imports: [AuditCoreModule, WebhookOutboxModule],
  controllers: [WebhooksController, WebhookLogsController],
  providers: [WebhooksRepository, WebhooksService, WebhookDeliveriesRepository, WebhookDeliverer, WebhookMetrics],
})
export class WebhooksModule {}
