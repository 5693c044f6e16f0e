import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { FeaturesCoreModule } from './features-core.module';
import { ProjectFeaturesController, WorkspaceFeaturesController } from './features.controller';
import { FeaturesWriteRepository } from './features.repository';
import { FeaturesService } from './features.service';

/** The features endpoints. Reads of flags by other modules go through the global FeaturesCoreModule. */
@Module({
  imports: [AuditCoreModule, FeaturesCoreModule],
  controllers: [WorkspaceFeaturesController, ProjectFeaturesController],
  providers: [FeaturesService, FeaturesWriteRepository],
  exports: [FeaturesService],
})
export class FeaturesModule {}
