import { Module } from '@nestjs/common';
import { FeaturesCoreModule } from '../features/features-core.module';
import { ModulesBulk } from './modules-bulk';
import { WebhookOutboxModule } from '../webhooks/webhook-outbox.module';
import { WorkItemsModule } from '../work-items/work-items.module';
import { ModulesController } from './modules.controller';
import { ModuleWorkItemsRepository } from './module-work-items.repository';
import { ModulesRepository } from './modules.repository';
import { ModulesService } from './modules.service';

@Module({
  imports: [FeaturesCoreModule, WebhookOutboxModule, WorkItemsModule],
  controllers: [ModulesController, ModulesBulk.controller],
  providers: [ModulesRepository, ModulesService, ModuleWorkItemsRepository, ModulesBulk.targets],
  exports: [ModulesService],
})
export class ModulesModule {}
