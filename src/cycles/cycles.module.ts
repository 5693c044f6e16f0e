import { Module } from '@nestjs/common';
import { FeaturesCoreModule } from '../features/features-core.module';
import { WebhookOutboxModule } from '../webhooks/webhook-outbox.module';
import { WorkItemsModule } from '../work-items/work-items.module';
import { CyclesController } from './cycles.controller';
import { CycleWorkItemsRepository } from './cycle-work-items.repository';
import { CyclesRepository } from './cycles.repository';
import { CyclesService } from './cycles.service';

@Module({
  imports: [FeaturesCoreModule, WebhookOutboxModule, WorkItemsModule],
  controllers: [CyclesController],
  providers: [CyclesRepository, CyclesService, CycleWorkItemsRepository],
  exports: [CyclesService],
})
export class CyclesModule {}
