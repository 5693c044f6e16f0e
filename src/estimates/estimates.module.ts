import { Module } from '@nestjs/common';
import { EstimatePointsController, EstimatesController } from './estimates.controller';
import { EstimatesRepository } from './estimates.repository';
import { EstimatesService } from './estimates.service';

/** Exports EstimatesService: work item writes call `resolvePoint`. */
@Module({
  controllers: [EstimatesController, EstimatePointsController],
  providers: [EstimatesRepository, EstimatesService],
  exports: [EstimatesService, EstimatesRepository],
})
export class EstimatesModule {}
