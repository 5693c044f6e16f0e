import { ProjectRole } from '../common/auth/roles';
import { BulkRoutes, projectCollection, projectCrudTargets } from '../common/bulk/bulk-routes';
import { CreateCycleDto, CycleDto, UpdateCycleDto } from './cycles.dto';
import { CyclesService } from './cycles.service';

/** The cycles collection's bulk-create, bulk-update, bulk-delete and upsert: each row is the single operation. */
export const CyclesBulkTargets = projectCrudTargets(CyclesService, 'cycles', {
  create: CreateCycleDto,
  update: UpdateCycleDto,
});
export const CyclesBulkController = BulkRoutes(
  projectCollection('cycles', ProjectRole.Contributor, { create: CreateCycleDto, read: CycleDto }),
  CyclesBulkTargets,
);
