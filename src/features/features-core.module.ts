import { Module } from '@nestjs/common';
import { FeatureFlags } from './feature-flags.queries';

/** Feature flags read by other modules (work item type mode, custom properties, project switches). */
@Module({ providers: [FeatureFlags], exports: [FeatureFlags] })
export class FeaturesCoreModule {}
