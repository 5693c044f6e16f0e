import { ProjectRole } from '../common/auth/roles';
import { BulkRoutes, projectCollection, projectCrudTargets } from '../common/bulk/bulk-routes';
import { CreateStateDto, StateDto, UpdateStateDto } from './states.dto';
import { StatesService } from './states.service';

/** The states collection's bulk-create, bulk-update, bulk-delete and upsert: each row is the single operation. */
export const StatesBulkTargets = projectCrudTargets(StatesService, 'states', {
  create: CreateStateDto,
  update: UpdateStateDto,
});
export const StatesBulkController = BulkRoutes(
  projectCollection('states', ProjectRole.Admin, { create: CreateStateDto, read: StateDto }),
  StatesBulkTargets,
);
