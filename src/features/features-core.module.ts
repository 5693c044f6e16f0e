import { Global, Module } from '@nestjs/common';
import { FeaturesRepository } from './features.repository';

/** Feature flags readable by every module (work item type mode, custom properties, project switches). */
@Global()
@Module({ providers: [FeaturesRepository], exports: [FeaturesRepository] })
export class FeaturesCoreModule {}
