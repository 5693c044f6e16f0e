import { DynamicModule, Module, Provider } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE, Reflector } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AdminModule } from './admin/admin.module';
import { AuditModule } from './audit/audit.module';
import { AuditSecurityModule } from './audit/audit-security.module';
import { FeaturesModule } from './features/features.module';
import { CyclesModule } from './cycles/cycles.module';
import { ModulesModule } from './modules/modules.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { InputProblemGuard } from './common/http/request-sanity';
import { AuthGuard } from './common/auth/auth.guard';
import { CommonModule } from './common/common.module';
import { AppConfig } from './common/config/config';
import { dataSourceOptions } from './common/database/data-source';
import { ScopedDataSource } from './common/database/transaction-scope';
import { ProblemFilter } from './common/errors/problem.filter';
import { ExpandInterceptor } from './common/expand/expand';
import { BodyValidationPipe } from './common/http/validation';
import { FieldsInterceptor } from './common/fields/fields';
import { openApiToRead } from './common/openapi/openapi';
import { CredentialThrottlerGuard } from './common/throttle/credential-throttler.guard';
import { MemoryThrottlerStorage } from './common/throttle/memory-throttler.storage';
import { RedisThrottlerStorage } from './common/throttle/redis-throttler.storage';
import { MembersModule } from './members/members.module';
import { OAuthModule } from './oauth/oauth.module';
import { OAuthServerModule } from './oauth/oauth-server.module';
import { ProjectsModule } from './projects/projects.module';
import { StatesModule } from './states/states.module';
import { LabelsModule } from './labels/labels.module';
import { EstimatesModule } from './estimates/estimates.module';
import { WorkflowsModule } from './workflows/workflows.module';
import { UsersModule } from './users/users.module';
import { WorkspacesModule } from './workspaces/workspaces.module';
import { WorkItemTypesModule } from './work-item-types/work-item-types.module';
import { WorkItemsModule } from './work-items/work-items.module';
import { CommentsModule } from './comments/comments.module';
import { ConditionalInterceptor } from './common/http/conditional';
import { ComposedInterceptor } from './common/http/composed-interceptor';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { WorkItemActivitiesModule } from './work-item-activities/work-item-activities.module';
import { WorkItemLinksModule } from './work-item-links/work-item-links.module';
import { WorkItemRelationsModule } from './work-item-relations/work-item-relations.module';
import { V1Module } from './v1/v1.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/**
 * One layer of Nest's interceptor chain for the four (ComposedInterceptor), in this order. Outermost: idempotency
 * (the response it stores is the one the client gets, after expand and fields). Innermost: conditional requests
 * (sees the service's own response object, withRowVersion, and wraps only the handler).
 */
function requestInterceptors(): Provider {
  return {
    provide: APP_INTERCEPTOR,
    inject: [IdempotencyInterceptor, Reflector, DataSource],
    useFactory: (idempotency: IdempotencyInterceptor, reflector: Reflector, ds: DataSource) =>
      new ComposedInterceptor([
        idempotency,
        new ExpandInterceptor(reflector),
        new FieldsInterceptor(openApiToRead as never),
        new ConditionalInterceptor(ds, reflector),
      ]),
  };
}

@Module({})
export class AppModule {
  static forRoot(cfg: AppConfig, databaseUrl: string): DynamicModule {
    return {
      module: AppModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => dataSourceOptions(databaseUrl, cfg.dbPoolSize),
          // Joins request-level transaction scopes (common/database/transaction-scope.ts).
          dataSourceFactory: async (options) => new ScopedDataSource(options!).initialize(),
        }),
        ThrottlerModule.forRoot({
          throttlers: [{ name: 'default', ttl: cfg.rateLimit.ttlMs, limit: cfg.rateLimit.limit }],
          // One budget per credential across all routes (the default key is per route). The tracker is already
          // a hash of the credential, or the client address.
          generateKey: (_ctx, tracker, name) => `${name}:${tracker}`,
          storage: cfg.redisUrl ? new RedisThrottlerStorage(cfg.redisUrl) : new MemoryThrottlerStorage(),
        }),
        CommonModule.forRoot(cfg),
        AuditSecurityModule,
        AuditModule,
        UsersModule,
        WorkspacesModule,
        MembersModule,
        ProjectsModule,
        StatesModule,
        LabelsModule,
        EstimatesModule,
        WorkflowsModule,
        ApiKeysModule,
        OAuthModule,
        OAuthServerModule,
        WorkItemTypesModule,
        AdminModule,
        FeaturesModule,
        CyclesModule,
        ModulesModule,
        WorkItemsModule,
        CommentsModule,
        IdempotencyModule,
        WorkItemLinksModule,
        WorkItemRelationsModule,
        WorkItemActivitiesModule,
        WebhooksModule,
        // API v1 beside v2 (src/v1/); switched off, /api/v1/... is a 404 like any unknown path.
        ...(cfg.v1.enabled ? [V1Module] : []),
      ],
      providers: [
        { provide: APP_GUARD, useClass: CredentialThrottlerGuard },
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_GUARD, useClass: InputProblemGuard },
        requestInterceptors(),
        { provide: APP_PIPE, useClass: BodyValidationPipe },
        { provide: APP_FILTER, useFactory: () => new ProblemFilter(cfg.publicBaseUrl) },
      ],
    };
  }
}
