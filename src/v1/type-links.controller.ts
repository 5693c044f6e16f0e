import { Body, Controller, Delete, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import { ProjectRole, WorkspaceRole } from '../common/auth/roles';
import { UuidParam } from '../common/http/params';
import { TYPE_PROPERTY_LIST } from '../work-item-properties/work-item-properties.queries';
import { TypePropertiesService } from '../work-item-types/type-properties.service';
import { TypeModeGuard, TypeSurface } from '../work-item-types/type-surface';
import { AttachPropertiesDto, ImportWorkItemTypesDto } from '../work-item-types/work-item-types.dto';
import { projectOwner, workspaceOwner, WorkItemTypesService } from '../work-item-types/work-item-types.service';
import { everyRow } from './v1-list';
import { asV2Body } from './v1-shape';
import { V1Shaper } from './v1-shaper';
import { V1Transaction } from './v1-transaction';
import { V1_RECORDS, V1Returns } from './v1-responses';

const TYPE_WRITE = { scope: 'projects.work_item_types:write', project: ProjectRole.Admin } as const;
const WS_TYPE_READ = { scope: 'workspaces.work_item_types:read', workspace: WorkspaceRole.Member } as const;
const WS_TYPE_WRITE = { scope: 'workspaces.work_item_types:write', workspace: WorkspaceRole.Admin } as const;

/** v1's link of one workspace property to a workspace type (SDK `WorkspaceWorkItemTypePropertyLink`). */
export class V1TypePropertyLinkDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all')
  property_id!: string;
}

/** Attaching project properties to a project type, and importing workspace types, through v1. */
@ApiTags('v1 work item types')
@UseGuards(TypeModeGuard)
@Controller('api/v1/workspaces/:slug/projects/:project_id')
export class V1ProjectTypeLinksController {
  constructor(
    private readonly attached: TypePropertiesService,
    private readonly types: WorkItemTypesService,
    private readonly shape: V1Shaper,
    private readonly tx: V1Transaction,
  ) {}

  @Post('work-item-types/:type_id/properties')
  @Authenticated(TYPE_WRITE)
  @TypeSurface('project')
  @V1Returns({ schema: { $ref: '#/components/schemas/AttachedPropertiesDto' } })
  @ApiOperation({ operationId: 'v1_type_properties_attach', description: '`{properties: [ids]}`; answers it back.' })
  async attach(@Ctx() ctx: ProjectContext, @UuidParam('type_id') type: string, @Body() body: unknown) {
    return this.attached.attach(ctx, projectOwner(ctx), type, await asV2Body(AttachPropertiesDto, body));
  }

  @Delete('work-item-types/:type_id/properties/:pk')
  @HttpCode(204)
  @Authenticated(TYPE_WRITE)
  @TypeSurface('project')
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_type_properties_detach' })
  async detach(@Ctx() ctx: ProjectContext, @UuidParam('type_id') type: string, @UuidParam('pk') pk: string) {
    await this.attached.detach(ctx, projectOwner(ctx), type, pk);
  }

  /** v1 answers the imported types (v2: an empty 200). */
  @Post('import-work-item-types')
  @HttpCode(200)
  @Authenticated(TYPE_WRITE)
  @TypeSurface('workspace')
  @V1Returns({ record: V1_RECORDS.workItemType, list: 'array', status: 200 })
  @ApiOperation({ operationId: 'v1_work_item_types_import', description: '`{work_item_types: [ids]}`.' })
  async import(@Ctx() ctx: ProjectContext, @Body() body: unknown) {
    const dto = await asV2Body(ImportWorkItemTypesDto, body);
    const types = await this.tx.run(async () => {
      await this.types.importTypes(ctx, dto);
      return Promise.all(dto.work_item_types.map((id) => this.types.get(workspaceOwner(ctx), id)));
    });
    return this.shape.many('work_item_types', ctx, types);
  }
}

/** A workspace type's properties through v1: the list is an array; a link is one property id at a time. */
@ApiTags('v1 work item types')
@UseGuards(TypeModeGuard)
@Controller('api/v1/workspaces/:slug/work-item-types/:type_id/properties')
export class V1WorkspaceTypePropertiesController {
  constructor(
    private readonly attached: TypePropertiesService,
    private readonly shape: V1Shaper,
  ) {}

  @Get()
  @Authenticated(WS_TYPE_READ)
  @V1Returns({ record: V1_RECORDS.workItemProperty, list: 'array' })
  @ApiOperation({ operationId: 'v1_workspace_type_properties_list' })
  async list(@Ctx() ctx: WorkspaceContext, @UuidParam('type_id') type: string) {
    const rows = await everyRow(TYPE_PROPERTY_LIST, (q) => this.attached.list(workspaceOwner(ctx), type, q));
    return this.shape.many('work_item_properties', ctx, rows);
  }

  @Post()
  @Authenticated(WS_TYPE_WRITE)
  @TypeSurface('workspace')
  @V1Returns({ record: V1_RECORDS.workItemProperty })
  @ApiOperation({ operationId: 'v1_workspace_type_properties_create', description: '`{property_id}`: attaches it.' })
  async create(@Ctx() ctx: WorkspaceContext, @UuidParam('type_id') type: string, @Body() body: unknown) {
    const { property_id: id } = await asV2Body(V1TypePropertyLinkDto, body);
    await this.attached.attach(ctx, workspaceOwner(ctx), type, { properties: [id] });
    return this.shape.one('work_item_properties', ctx, await this.attached.get(workspaceOwner(ctx), type, id));
  }

  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WS_TYPE_WRITE)
  @TypeSurface('workspace')
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_workspace_type_properties_delete' })
  async remove(@Ctx() ctx: WorkspaceContext, @UuidParam('type_id') type: string, @UuidParam('pk') pk: string) {
    await this.attached.detach(ctx, workspaceOwner(ctx), type, pk);
  }
}
