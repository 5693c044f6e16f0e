import { Module } from '@nestjs/common';
import { FeaturesCoreModule } from '../features/features-core.module';
import { EstimatePointsController, EstimatesController } from './estimates.controller';
import { EstimatesRepository } from './estimates.repository';
import { EstimatesService } from './estimates.service';

/** Exports EstimatesService: work item writes call `resolvePoint`. */
@Module({
  imports: [FeaturesCoreModule],
  controllers: [EstimatesController, EstimatePointsController],
  providers: [EstimatesRepository, EstimatesService],
  exports: [EstimatesService],
})
export class EstimatesModule {}
