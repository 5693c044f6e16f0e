import { ProjectRole } from '../common/auth/roles';
import { projectCrudBulk } from '../common/bulk/bulk-routes';
import { CreateModuleDto, ModuleDto, UpdateModuleDto } from './modules.dto';
import { ModulesService } from './modules.service';

/** The modules collection's bulk-create, bulk-update, bulk-delete and upsert: each row is the single operation. */
export const ModulesBulk = projectCrudBulk('modules', ProjectRole.Contributor, ModulesService, {
  create: CreateModuleDto,
  update: UpdateModuleDto,
  read: ModuleDto,
});
