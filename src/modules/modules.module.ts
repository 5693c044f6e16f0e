import { Module } from '@nestjs/common';
import { ModulesBulkController, ModulesBulkTargets } from './modules-bulk';
import { ModulesController } from './modules.controller';
import { ModuleWorkItemsRepository } from './module-work-items.repository';
import { ModulesRepository } from './modules.repository';
import { ModulesService } from './modules.service';

@Module({
  controllers: [ModulesController, ModulesBulkController],
  providers: [ModulesRepository, ModulesService, ModuleWorkItemsRepository, ModulesBulkTargets],
  exports: [ModulesRepository, ModulesService],
})
export class ModulesModule {}
