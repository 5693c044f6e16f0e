import { Module } from '@nestjs/common';
import { CyclesModule } from '../cycles/cycles.module';
import { EstimatesModule } from '../estimates/estimates.module';
import { ModulesModule } from '../modules/modules.module';
import { WorkItemTypesModule } from '../work-item-types/work-item-types.module';
import { WorkflowsModule } from '../workflows/workflows.module';
import { WorkItemsByIdentifierController, WorkItemsController } from './work-items.controller';
import { WorkItemsRepository } from './work-items.repository';
import { WorkItemsService } from './work-items.service';
import { WorkItemsBulkController } from './work-items-bulk.controller';
import { WorkItemsBulkService } from './work-items-bulk.service';

@Module({
  imports: [EstimatesModule, WorkflowsModule, WorkItemTypesModule, CyclesModule, ModulesModule],
  controllers: [WorkItemsBulkController, WorkItemsController, WorkItemsByIdentifierController],
  providers: [WorkItemsRepository, WorkItemsService, WorkItemsBulkService],
  exports: [WorkItemsRepository, WorkItemsService],
})
export class WorkItemsModule {}
