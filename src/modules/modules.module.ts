import { Module } from '@nestjs/common';
import { FeaturesCoreModule } from '../features/features-core.module';
import { WebhookOutboxModule } from '../webhooks/webhook-outbox.module';
import { WorkItemsModule } from '../work-items/work-items.module';
import { ModulesController } from './modules.controller';
import { ModuleWorkItemsRepository } from './module-work-items.repository';
import { ModulesRepository } from './modules.repository';
import { ModulesService } from './modules.service';

@Module({
  imports: [FeaturesCoreModule, WebhookOutboxModule, WorkItemsModule],
  controllers: [ModulesController],
  providers: [ModulesRepository, ModulesService, ModuleWorkItemsRepository],
  exports: [ModulesService],
})
export class ModulesModule {}
