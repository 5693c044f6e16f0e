import { Module } from '@nestjs/common';
import { WebhookOutboxModule } from '../webhooks/webhook-outbox.module';
import { WorkItemLinksController } from './work-item-links.controller';
import { WorkItemLinksRepository } from './work-item-links.repository';
import { WorkItemLinksService } from './work-item-links.service';

@Module({
  imports: [WebhookOutboxModule],
  controllers: [WorkItemLinksController],
  providers: [WorkItemLinksRepository, WorkItemLinksService],
  exports: [WorkItemLinksService],
})
export class WorkItemLinksModule {}
