import { ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { CreateCycleDto, UpdateCycleDto } from '../cycles/cycles.dto';
import { CYCLE_LIST } from '../cycles/cycles.queries';
import { CyclesService } from '../cycles/cycles.service';
import { CreateLabelDto, UpdateLabelDto } from '../labels/labels.dto';
import { LABEL_LIST } from '../labels/labels.queries';
import { LabelsService } from '../labels/labels.service';
import { CreateModuleDto, UpdateModuleDto } from '../modules/modules.dto';
import { MODULE_LIST } from '../modules/modules.queries';
import { ModulesService } from '../modules/modules.service';
import { CreateStateDto, UpdateStateDto } from '../states/states.dto';
import { STATE_LIST } from '../states/states.queries';
import { StatesService } from '../states/states.service';
import { UseGuards } from '@nestjs/common';
import { CreateWorkItemPropertyDto, UpdateWorkItemPropertyDto } from '../work-item-properties/work-item-properties.dto';
import { PROPERTY_LIST } from '../work-item-properties/work-item-properties.queries';
import { WorkItemPropertiesService } from '../work-item-properties/work-item-properties.service';
import { TypeModeGuard, TypeSurface } from '../work-item-types/type-surface';
import { CreateWorkItemTypeDto, UpdateWorkItemTypeDto } from '../work-item-types/work-item-types.dto';
import { TYPE_LIST } from '../work-item-types/work-item-types.queries';
import { projectOwner, WorkItemTypesService } from '../work-item-types/work-item-types.service';
import { v1CrudController } from './v1-crud';
import { V1_RECORDS } from './v1-responses';

/** The label scope of a project route, as the v2 labels controller builds it. */
const projectScope = (ctx: ProjectContext) => ({ workspaceId: ctx.workspace.id, projectId: ctx.project.id });

/** The project resources whose v1 routes are plain CRUD over their v2 service (v1-crud.ts). */
export const V1StatesController = v1CrudController({
  name: 'V1StatesController',
  record: V1_RECORDS.state,
  path: 'states',
  table: 'states',
  service: StatesService,
  ops: (s) => s,
  list: STATE_LIST,
  createDto: CreateStateDto,
  updateDto: UpdateStateDto,
  read: { scope: 'projects.states:read', project: ProjectRole.Guest },
  write: { scope: 'projects.states:write', project: ProjectRole.Admin },
  // v1 spells a state's is_default as `default` (gap-reference 8).
  bodyIn: { default: 'is_default' },
  shapeOut: { is_default: 'default' },
});

export const V1LabelsController = v1CrudController({
  name: 'V1LabelsController',
  record: V1_RECORDS.label,
  path: 'labels',
  table: 'labels',
  service: LabelsService,
  ops: (s) => ({
    list: (ctx, q) => s.list(projectScope(ctx), q),
    create: (ctx, dto) => s.create(projectScope(ctx), ctx.principal.userId, dto),
    get: (ctx, id) => s.get(projectScope(ctx), id),
    update: (ctx, id, dto) => s.update(projectScope(ctx), id, dto),
    remove: (ctx, id) => s.remove(projectScope(ctx), id),
  }),
  list: LABEL_LIST,
  createDto: CreateLabelDto,
  updateDto: UpdateLabelDto,
  read: { scope: 'projects.labels:read', project: ProjectRole.Guest },
  write: { scope: 'projects.labels:write', project: ProjectRole.Admin },
  bodyIn: { parent: 'parent_id' },
});

export const V1CyclesController = v1CrudController({
  name: 'V1CyclesController',
  record: V1_RECORDS.cycle,
  path: 'cycles',
  table: 'cycles',
  service: CyclesService,
  ops: (s) => s,
  list: CYCLE_LIST,
  createDto: CreateCycleDto,
  updateDto: UpdateCycleDto,
  read: { scope: 'projects.cycles:read', project: ProjectRole.Guest },
  write: { scope: 'projects.cycles:write', project: ProjectRole.Contributor },
  // v1's owned_by is the creator here as in v2 (not writable); project_id is the path's.
  bodyIn: {},
});

export const V1ModulesController = v1CrudController({
  name: 'V1ModulesController',
  record: V1_RECORDS.module,
  path: 'modules',
  table: 'modules',
  service: ModulesService,
  ops: (s) => s,
  list: MODULE_LIST,
  createDto: CreateModuleDto,
  updateDto: UpdateModuleDto,
  read: { scope: 'projects.modules:read', project: ProjectRole.Guest },
  write: { scope: 'projects.modules:write', project: ProjectRole.Contributor },
  // v1's `members` are the assignees of the module's work items here, as v2's member_ids (not writable).
  bodyIn: { lead: 'lead_id' },
});

/** Types and properties keep v2's work item type mode gate: a write on the surface the mode disables is 409. */
const typeModeGate = {
  classGuards: [UseGuards(TypeModeGuard)],
  writeGate: () => TypeSurface('project'),
  wholeList: true,
};

export const V1WorkItemTypesController = v1CrudController({
  name: 'V1WorkItemTypesController',
  record: V1_RECORDS.workItemType,
  path: 'work-item-types',
  table: 'work_item_types',
  service: WorkItemTypesService,
  ops: (s) => ({
    list: (ctx, q) => s.list(projectOwner(ctx), q),
    create: (ctx, dto) => s.create(ctx, projectOwner(ctx), dto),
    get: (ctx, id) => s.get(projectOwner(ctx), id),
    update: (ctx, id, dto) => s.update(ctx, projectOwner(ctx), id, dto),
    remove: (ctx, id) => s.remove(ctx, projectOwner(ctx), id),
  }),
  list: TYPE_LIST,
  createDto: CreateWorkItemTypeDto,
  updateDto: UpdateWorkItemTypeDto,
  read: { scope: 'projects.work_item_types:read', project: ProjectRole.Guest },
  write: { scope: 'projects.work_item_types:write', project: ProjectRole.Admin },
  bodyIn: {},
  ...typeModeGate,
});

export const V1WorkItemPropertiesController = v1CrudController({
  name: 'V1WorkItemPropertiesController',
  record: V1_RECORDS.workItemProperty,
  path: 'work-item-properties',
  table: 'work_item_properties',
  service: WorkItemPropertiesService,
  ops: (s) => ({
    list: (ctx, q) => s.list(projectOwner(ctx), q),
    create: (ctx, dto) => s.create(ctx, projectOwner(ctx), dto),
    get: (ctx, id) => s.get(projectOwner(ctx), id),
    update: (ctx, id, dto) => s.update(ctx, projectOwner(ctx), id, dto),
    remove: (ctx, id) => s.remove(ctx, projectOwner(ctx), id),
  }),
  list: PROPERTY_LIST,
  createDto: CreateWorkItemPropertyDto,
  updateDto: UpdateWorkItemPropertyDto,
  read: { scope: 'projects.work_item_properties:read', project: ProjectRole.Guest },
  write: { scope: 'projects.work_item_properties:write', project: ProjectRole.Admin },
  bodyIn: {},
  ...typeModeGate,
});
