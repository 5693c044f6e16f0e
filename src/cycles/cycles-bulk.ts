import { ProjectRole } from '../common/auth/roles';
import { projectCrudBulk } from '../common/bulk/bulk-routes';
import { CreateCycleDto, CycleDto, UpdateCycleDto } from './cycles.dto';
import { CyclesService } from './cycles.service';

/** The cycles collection's bulk-create, bulk-update, bulk-delete and upsert: each row is the single operation. */
export const CyclesBulk = projectCrudBulk('cycles', ProjectRole.Contributor, CyclesService, {
  create: CreateCycleDto,
  update: UpdateCycleDto,
  read: CycleDto,
});
