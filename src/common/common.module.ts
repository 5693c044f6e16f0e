import { DynamicModule, Global, Module } from '@nestjs/common';
import { AuthCache, AuthCacheInvalidator } from './auth/auth-cache';
import { AuthRepository } from './auth/auth.repository';
import { CredentialUsage } from './auth/credential-usage';
import { BulkWrites } from './bulk/bulk-writes';
import { APP_CONFIG, AppConfig } from './config/config';
import { ErrorCatalogueController } from './errors/error-catalogue.controller';
import { HealthController } from './health/health.controller';
import { MetricsModule } from './metrics/metrics.module';
import { SchemaController } from './openapi/schema.controller';

/**
 * Shared mechanisms available to every module, and the settings (APP_CONFIG). The only global module: it
 * imports no feature. Ports it declares (SecurityEvents) are bound by the feature that implements them.
 */
@Global()
@Module({})
export class CommonModule {
  static forRoot(cfg: AppConfig): DynamicModule {
    return {
      module: CommonModule,
      imports: [MetricsModule.forRoot(cfg)],
      controllers: [HealthController, SchemaController, ErrorCatalogueController],
      providers: [
        { provide: APP_CONFIG, useValue: cfg },
        AuthRepository,
        BulkWrites,
        AuthCache,
        AuthCacheInvalidator,
        CredentialUsage,
      ],
      exports: [
        APP_CONFIG,
        AuthRepository,
        BulkWrites,
        AuthCache,
        AuthCacheInvalidator,
        CredentialUsage,
        MetricsModule,
      ],
    };
  }
}
