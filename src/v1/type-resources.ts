import { Injectable, UseGuards } from '@nestjs/common';
import { ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import { ProjectRole, WorkspaceRole } from '../common/auth/roles';
import { CreatePropertyOptionDto, UpdatePropertyOptionDto } from '../work-item-properties/property-options.dto';
import { OPTION_LIST } from '../work-item-properties/property-options.queries';
import { PropertyOptionsService } from '../work-item-properties/property-options.service';
import {
  CreateWorkItemPropertyDto,
  UpdateWorkItemPropertyDto,
  WorkItemPropertyDto,
} from '../work-item-properties/work-item-properties.dto';
import { PROPERTY_LIST, TYPE_PROPERTY_LIST } from '../work-item-properties/work-item-properties.queries';
import { WorkItemPropertiesService } from '../work-item-properties/work-item-properties.service';
import { TypePropertiesService } from '../work-item-types/type-properties.service';
import { TypeModeGuard, TypeSurface, TypeSurfaceKind } from '../work-item-types/type-surface';
import { CreateWorkItemTypeDto, UpdateWorkItemTypeDto } from '../work-item-types/work-item-types.dto';
import { TYPE_LIST } from '../work-item-types/work-item-types.queries';
import { projectOwner, workspaceOwner, WorkItemTypesService } from '../work-item-types/work-item-types.service';
import { v1CrudController } from './v1-crud';
import { V1_RECORDS } from './v1-responses';
import { V1Transaction } from './v1-transaction';

/** v2's type mode gate on a surface: a write the mode disables is 409; lists are arrays, as the SDK reads them. */
const gate = (surface: TypeSurfaceKind) => ({
  classGuards: [UseGuards(TypeModeGuard)],
  writeGate: () => TypeSurface(surface),
  wholeList: true,
});

const PROPERTY_READ = { scope: 'projects.work_item_properties:read', project: ProjectRole.Guest } as const;
const PROPERTY_WRITE = { scope: 'projects.work_item_properties:write', project: ProjectRole.Admin } as const;
const WS_PROPERTY_READ = { scope: 'workspaces.work_item_properties:read', workspace: WorkspaceRole.Member } as const;
const WS_PROPERTY_WRITE = { scope: 'workspaces.work_item_properties:write', workspace: WorkspaceRole.Admin } as const;

/**
 * v1's properties of a type (`work-item-types/{type}/work-item-properties/`): in v1 a property belongs to one
 * type; in v2 a project property is attached to types. So a create is v2's create and attach (one transaction),
 * and the other calls first check, through v2's read, that the property is attached to the type.
 */
@Injectable()
export class V1TypeProperties {
  constructor(
    readonly properties: WorkItemPropertiesService,
    readonly attached: TypePropertiesService,
    private readonly tx: V1Transaction,
  ) {}

  create(ctx: ProjectContext, typeId: string, dto: CreateWorkItemPropertyDto): Promise<WorkItemPropertyDto> {
    const owner = projectOwner(ctx);
    return this.tx.run(async () => {
      const property = await this.properties.create(ctx, owner, dto);
      await this.attached.attach(ctx, owner, typeId, { properties: [property.id] });
      return this.attached.get(owner, typeId, property.id);
    });
  }

  async update(ctx: ProjectContext, typeId: string, id: string, dto: UpdateWorkItemPropertyDto) {
    await this.attached.get(projectOwner(ctx), typeId, id);
    return this.properties.update(ctx, projectOwner(ctx), id, dto);
  }

  async remove(ctx: ProjectContext, typeId: string, id: string): Promise<void> {
    await this.attached.get(projectOwner(ctx), typeId, id);
    await this.properties.remove(ctx, projectOwner(ctx), id);
  }
}

export const V1TypePropertiesController = v1CrudController({
  name: 'V1TypePropertiesController',
  record: V1_RECORDS.workItemProperty,
  path: 'work-item-types/:type_id/work-item-properties',
  table: 'work_item_properties',
  service: V1TypeProperties,
  ops: (s, { type_id }) => ({
    list: (ctx, q) => s.attached.list(projectOwner(ctx), type_id, q),
    create: (ctx, dto) => s.create(ctx, type_id, dto),
    get: (ctx, id) => s.attached.get(projectOwner(ctx), type_id, id),
    update: (ctx, id, dto) => s.update(ctx, type_id, id, dto),
    remove: (ctx, id) => s.remove(ctx, type_id, id),
  }),
  list: TYPE_PROPERTY_LIST,
  createDto: CreateWorkItemPropertyDto,
  updateDto: UpdateWorkItemPropertyDto,
  read: PROPERTY_READ,
  write: PROPERTY_WRITE,
  bodyIn: {},
  ...gate('project'),
});

export const V1PropertyOptionsController = v1CrudController({
  name: 'V1PropertyOptionsController',
  record: V1_RECORDS.propertyOption,
  path: 'work-item-properties/:property_id/options',
  table: 'work_item_property_options',
  service: PropertyOptionsService,
  ops: (s, { property_id: property }) => ({
    list: (ctx, q) => s.list(projectOwner(ctx), property, q),
    create: (ctx, dto) => s.create(ctx, projectOwner(ctx), property, dto),
    get: (ctx, id) => s.get(projectOwner(ctx), property, id),
    update: (ctx, id, dto) => s.update(ctx, projectOwner(ctx), property, id, dto),
    remove: (ctx, id) => s.remove(ctx, projectOwner(ctx), property, id),
  }),
  list: OPTION_LIST,
  createDto: CreatePropertyOptionDto,
  updateDto: UpdatePropertyOptionDto,
  read: PROPERTY_READ,
  write: PROPERTY_WRITE,
  bodyIn: {},
  ...gate('project'),
});

export const V1WorkspaceWorkItemTypesController = v1CrudController<
  WorkItemTypesService,
  CreateWorkItemTypeDto,
  UpdateWorkItemTypeDto,
  WorkspaceContext
>({
  name: 'V1WorkspaceWorkItemTypesController',
  record: V1_RECORDS.workItemType,
  level: 'workspace',
  path: 'work-item-types',
  table: 'work_item_types',
  service: WorkItemTypesService,
  ops: (s) => ({
    list: (ctx, q) => s.list(workspaceOwner(ctx), q),
    create: (ctx, dto) => s.create(ctx, workspaceOwner(ctx), dto),
    get: (ctx, id) => s.get(workspaceOwner(ctx), id),
    update: (ctx, id, dto) => s.update(ctx, workspaceOwner(ctx), id, dto),
    remove: (ctx, id) => s.remove(ctx, workspaceOwner(ctx), id),
  }),
  list: TYPE_LIST,
  createDto: CreateWorkItemTypeDto,
  updateDto: UpdateWorkItemTypeDto,
  read: { scope: 'workspaces.work_item_types:read', workspace: WorkspaceRole.Member },
  write: { scope: 'workspaces.work_item_types:write', workspace: WorkspaceRole.Admin },
  bodyIn: {},
  ...gate('workspace'),
});

export const V1WorkspaceWorkItemPropertiesController = v1CrudController<
  WorkItemPropertiesService,
  CreateWorkItemPropertyDto,
  UpdateWorkItemPropertyDto,
  WorkspaceContext
>({
  name: 'V1WorkspaceWorkItemPropertiesController',
  record: V1_RECORDS.workItemProperty,
  level: 'workspace',
  path: 'work-item-properties',
  table: 'work_item_properties',
  service: WorkItemPropertiesService,
  ops: (s) => ({
    list: (ctx, q) => s.list(workspaceOwner(ctx), q),
    create: (ctx, dto) => s.create(ctx, workspaceOwner(ctx), dto),
    get: (ctx, id) => s.get(workspaceOwner(ctx), id),
    update: (ctx, id, dto) => s.update(ctx, workspaceOwner(ctx), id, dto),
    remove: (ctx, id) => s.remove(ctx, workspaceOwner(ctx), id),
  }),
  list: PROPERTY_LIST,
  createDto: CreateWorkItemPropertyDto,
  updateDto: UpdateWorkItemPropertyDto,
  read: WS_PROPERTY_READ,
  write: WS_PROPERTY_WRITE,
  bodyIn: {},
  ...gate('workspace'),
});

export const V1WorkspacePropertyOptionsController = v1CrudController<
  PropertyOptionsService,
  CreatePropertyOptionDto,
  UpdatePropertyOptionDto,
  WorkspaceContext
>({
  name: 'V1WorkspacePropertyOptionsController',
  record: V1_RECORDS.propertyOption,
  level: 'workspace',
  path: 'work-item-properties/:property_id/options',
  table: 'work_item_property_options',
  service: PropertyOptionsService,
  ops: (s, { property_id: property }) => ({
    list: (ctx, q) => s.list(workspaceOwner(ctx), property, q),
    create: (ctx, dto) => s.create(ctx, workspaceOwner(ctx), property, dto),
    get: (ctx, id) => s.get(workspaceOwner(ctx), property, id),
    update: (ctx, id, dto) => s.update(ctx, workspaceOwner(ctx), property, id, dto),
    remove: (ctx, id) => s.remove(ctx, workspaceOwner(ctx), property, id),
  }),
  list: OPTION_LIST,
  createDto: CreatePropertyOptionDto,
  updateDto: UpdatePropertyOptionDto,
  read: WS_PROPERTY_READ,
  write: WS_PROPERTY_WRITE,
  bodyIn: {},
  ...gate('workspace'),
});
