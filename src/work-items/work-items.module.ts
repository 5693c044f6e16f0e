import { Module } from '@nestjs/common';
import { WebhookOutboxModule } from '../webhooks/webhook-outbox.module';
import { EstimatesModule } from '../estimates/estimates.module';
import { FeaturesCoreModule } from '../features/features-core.module';
import { WorkItemTypesModule } from '../work-item-types/work-item-types.module';
import { WorkflowsModule } from '../workflows/workflows.module';
import { WorkItemsByIdentifierController, WorkItemsController } from './work-items.controller';
import { WorkItemsRepository } from './work-items.repository';
import { WorkItemsService } from './work-items.service';
import { WorkItemMembership } from './work-item-membership';
import { WorkItemsBulkController } from './work-items-bulk.controller';
import { WorkItemsBulkService } from './work-items-bulk.service';

@Module({
  imports: [WebhookOutboxModule, EstimatesModule, FeaturesCoreModule, WorkflowsModule, WorkItemTypesModule],
  controllers: [WorkItemsBulkController, WorkItemsController, WorkItemsByIdentifierController],
  providers: [WorkItemsRepository, WorkItemsService, WorkItemsBulkService, WorkItemMembership],
  exports: [WorkItemsService],
})
export class WorkItemsModule {}
