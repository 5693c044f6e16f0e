import { ProjectRole } from '../common/auth/roles';
import { projectCrudBulk } from '../common/bulk/bulk-routes';
import { CreateStateDto, StateDto, UpdateStateDto } from './states.dto';
import { StatesService } from './states.service';

/** The states collection's bulk-create, bulk-update, bulk-delete and upsert: each row is the single operation. */
export const StatesBulk = projectCrudBulk('states', ProjectRole.Admin, StatesService, {
  create: CreateStateDto,
  update: UpdateStateDto,
  read: StateDto,
});
