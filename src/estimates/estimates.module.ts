import { Module } from '@nestjs/common';
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
  controllers: [EstimatesController, EstimatesBulkController, EstimatePointsController, EstimatePointsBulkController],
  providers: [EstimatesRepository, EstimatesService, EstimatesBulkTargets, EstimatePointsBulkTargets],
  exports: [EstimatesService, EstimatesRepository],
})
export class EstimatesModule {}
