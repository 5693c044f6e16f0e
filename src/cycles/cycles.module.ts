import { Module } from '@nestjs/common';
import { FeaturesCoreModule } from '../features/features-core.module';
import { CyclesController } from './cycles.controller';
import { CycleWorkItemsRepository } from './cycle-work-items.repository';
import { CyclesRepository } from './cycles.repository';
import { CyclesService } from './cycles.service';

@Module({
  imports: [FeaturesCoreModule],
  controllers: [CyclesController],
  providers: [CyclesRepository, CyclesService, CycleWorkItemsRepository],
  exports: [CyclesService],
})
export class CyclesModule {}
