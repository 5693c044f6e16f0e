import { Module } from '@nestjs/common';
import { WebhookOutboxModule } from '../webhooks/webhook-outbox.module';
import { WorkItemsModule } from '../work-items/work-items.module';
import { CyclesController } from './cycles.controller';
import { CycleWorkItemsRepository } from './cycle-work-items.repository';
import { CyclesRepository } from './cycles.repository';
import { CyclesService } from './cycles.service';

@Module({
  imports: [WebhookOutboxModule, WorkItemsModule],
  controllers: [CyclesController],
  providers: [CyclesRepository, CyclesService, CycleWorkItemsRepository],
  exports: [CyclesRepository, CyclesService],
})
export class CyclesModule {}
