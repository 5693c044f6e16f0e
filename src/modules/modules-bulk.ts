import { ProjectRole } from '../common/auth/roles';
import { BulkRoutes, projectCollection, projectCrudTargets } from '../common/bulk/bulk-routes';
import { CreateModuleDto, ModuleDto, UpdateModuleDto } from './modules.dto';
import { ModulesService } from './modules.service';

/** The modules collection's bulk-create, bulk-update, bulk-delete and upsert: each row is the single operation. */
export const ModulesBulkTargets = projectCrudTargets(ModulesService, 'modules', {
  create: CreateModuleDto,
  update: UpdateModuleDto,
});
export const ModulesBulkController = BulkRoutes(
  projectCollection('modules', ProjectRole.Contributor, { create: CreateModuleDto, read: ModuleDto }),
  ModulesBulkTargets,
);
