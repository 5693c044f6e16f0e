import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { FeaturesCoreModule } from '../features/features-core.module';
import { CyclesBulk } from './cycles-bulk';
import { WebhookOutboxModule } from '../webhooks/webhook-outbox.module';
import { WorkItemsModule } from '../work-items/work-items.module';
import { ArchivedCyclesController, CyclesController } from './cycles.controller';
import { CycleWorkItemsRepository } from './cycle-work-items.repository';
import { CyclesRepository } from './cycles.repository';
import { CyclesService } from './cycles.service';

@Module({
  imports: [AuditCoreModule, FeaturesCoreModule, WebhookOutboxModule, WorkItemsModule],
  controllers: [CyclesController, ArchivedCyclesController, CyclesBulk.controller],
  providers: [CyclesRepository, CyclesService, CycleWorkItemsRepository, CyclesBulk.targets],
  exports: [CyclesService],
})
export class CyclesModule {}
