import { Module } from '@nestjs/common';
import { CyclesBulkController, CyclesBulkTargets } from './cycles-bulk';
import { CyclesController } from './cycles.controller';
import { CycleWorkItemsRepository } from './cycle-work-items.repository';
import { CyclesRepository } from './cycles.repository';
import { CyclesService } from './cycles.service';

@Module({
  controllers: [CyclesController, CyclesBulkController],
  providers: [CyclesRepository, CyclesService, CycleWorkItemsRepository, CyclesBulkTargets],
  exports: [CyclesRepository, CyclesService],
})
export class CyclesModule {}
