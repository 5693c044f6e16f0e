import { Module } from '@nestjs/common';
import { ProjectFeaturesController, WorkspaceFeaturesController } from './features.controller';
import { FeaturesWriteRepository } from './features.repository';
import { FeaturesService } from './features.service';

/** The features endpoints. Reads of flags by other modules go through the global FeaturesCoreModule. */
@Module({
  controllers: [WorkspaceFeaturesController, ProjectFeaturesController],
  providers: [FeaturesService, FeaturesWriteRepository],
  exports: [FeaturesService],
})
export class FeaturesModule {}
