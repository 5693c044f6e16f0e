import { Module } from '@nestjs/common';
import { FeaturesCoreModule } from '../features/features-core.module';
import {
  EstimatePointsBulkController,
  EstimatePointsBulkTargets,
  EstimatesBulkController,
  EstimatesBulkTargets,
} from './estimates-bulk';
import { EstimatePointsController, EstimatesController } from './estimates.controller';
import { EstimatesRepository } from './estimates.repository';
import { EstimatesService } from './estimates.service';

/** Exports EstimatesService: work item writes call `resolvePoint`. */
@Module({
  imports: [FeaturesCoreModule],
  controllers: [EstimatesController, EstimatesBulkController, EstimatePointsController, EstimatePointsBulkController],
  providers: [EstimatesRepository, EstimatesService, EstimatesBulkTargets, EstimatePointsBulkTargets],
  exports: [EstimatesService],
})
export class EstimatesModule {}
