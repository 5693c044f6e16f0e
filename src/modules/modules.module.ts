import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../audit/audit-core.module';
import { FeaturesCoreModule } from '../features/features-core.module';
import { ModulesBulk } from './modules-bulk';
import { WebhookOutboxModule } from '../webhooks/webhook-outbox.module';
import { WorkItemsModule } from '../work-items/work-items.module';
import { ArchivedModulesController, ModulesController } from './modules.controller';
import { ModuleWorkItemsRepository } from './module-work-items.repository';
import { ModulesRepository } from './modules.repository';
import { ModulesService } from './modules.service';

@Module({
  imports: [AuditCoreModule, FeaturesCoreModule, WebhookOutboxModule, WorkItemsModule],
  controllers: [ModulesController, ArchivedModulesController, ModulesBulk.controller],
  providers: [ModulesRepository, ModulesService, ModuleWorkItemsRepository, ModulesBulk.targets],
  exports: [ModulesService],
})
export class ModulesModule {}
