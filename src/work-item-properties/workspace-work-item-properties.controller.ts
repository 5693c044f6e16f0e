import { Body, Controller, Delete, Get, HttpCode, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, WorkspaceContext } from '../common/auth/request-context';
import { WorkspaceRole } from '../common/auth/roles';
import { IgnoresExpand } from '../common/expand/expand';
import { UuidParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { TypeModeGuard, TypeSurface } from '../work-item-types/type-surface';
import { workspaceOwner } from '../work-item-types/work-item-types.service';
import { CreatePropertyOptionDto, PropertyOptionDto, UpdatePropertyOptionDto } from './property-options.dto';
import { OPTION_LIST } from './property-options.queries';
import { PropertyOptionsService } from './property-options.service';
import { CreateWorkItemPropertyDto, UpdateWorkItemPropertyDto, WorkItemPropertyDto } from './work-item-properties.dto';
import { PROPERTY_LIST } from './work-item-properties.queries';
import { WorkItemPropertiesService } from './work-item-properties.service';
import { Versioned } from '../common/http/conditional';

const READ = { scope: 'workspaces.work_item_properties:read', workspace: WorkspaceRole.Member } as const;
const WRITE = { scope: 'workspaces.work_item_properties:write', workspace: WorkspaceRole.Admin } as const;

@ApiTags('workspace-work-item-properties')
@ApiSlugParam()
@UseGuards(TypeModeGuard)
@Controller('api/v2/workspaces/:slug/work-item-properties')
export class WorkspaceWorkItemPropertiesController {
  constructor(private readonly properties: WorkItemPropertiesService) {}

  @Get()
  @Authenticated(READ)
  @IgnoresExpand()
  @ApiOperation({
    operationId: 'workspace_work_item_properties_list',
    summary: 'List workspace-level properties',
    description: 'Full catalogue, inactive and unattached properties included, options inline. Works in either mode.',
  })
  @ApiListQuery(PROPERTY_LIST)
  @ApiListResponse(WorkItemPropertyDto)
  list(@Ctx() ctx: WorkspaceContext, @ListParams(PROPERTY_LIST) q: ListQuery) {
    return this.properties.list(workspaceOwner(ctx), q);
  }

  @Post()
  @Authenticated(WRITE)
  @IgnoresExpand()
  @TypeSurface('workspace')
  @ApiOperation({
    operationId: 'workspace_work_item_properties_create',
    summary: 'Create a property (workspace mode)',
    description:
      'display_name and property_type required; `name` is derived. A context named Default covering all projects and all types is seeded with it. Creating does not attach it to any type.',
  })
  @ApiCreatedResponse({ type: WorkItemPropertyDto })
  @ApiProblemResponses(400, 404)
  create(@Ctx() ctx: WorkspaceContext, @Body() body: CreateWorkItemPropertyDto) {
    return this.properties.create(ctx, workspaceOwner(ctx), body);
  }

  @Versioned('work_item_properties')
  @Get(':pk')
  @Authenticated(READ)
  @IgnoresExpand()
  @ApiOperation({
    operationId: 'workspace_work_item_properties_get',
    summary: 'Get a workspace-level property with its options',
    description: 'A project-level property id is 404. Works in either mode.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemPropertyDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string) {
    return this.properties.get(workspaceOwner(ctx), pk);
  }

  @Versioned('work_item_properties')
  @Patch(':pk')
  @Authenticated(WRITE)
  @IgnoresExpand()
  @TypeSurface('workspace')
  @ApiOperation({
    operationId: 'workspace_work_item_properties_update',
    summary: 'Update a property (workspace mode)',
    description:
      'Partial; settings and validation_rules are replaced whole; name is not writable. is_required, is_multi, default_value, settings and new options also apply to the seeded Default context.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemPropertyDto })
  @ApiProblemResponses(400, 404)
  update(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string, @Body() body: UpdateWorkItemPropertyDto) {
    return this.properties.update(ctx, workspaceOwner(ctx), pk, body);
  }

  @Versioned('work_item_properties')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @IgnoresExpand()
  @TypeSurface('workspace')
  @ApiOperation({
    operationId: 'workspace_work_item_properties_delete',
    summary: 'Delete a property (workspace mode, permanent)',
    description:
      'Removes the definition, its options, contexts and type attachments (all then 404) and its values on work items. is_active false is the reversible alternative.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.properties.remove(ctx, workspaceOwner(ctx), pk);
  }
}

@ApiTags('workspace-work-item-property-options')
@ApiSlugParam()
@ApiUuidParam('property_id')
@UseGuards(TypeModeGuard)
@Controller('api/v2/workspaces/:slug/work-item-properties/:property_id/options')
export class WorkspacePropertyOptionsController {
  constructor(private readonly options: PropertyOptionsService) {}

  @Get()
  @Authenticated(READ)
  @IgnoresExpand()
  @ApiOperation({
    operationId: 'workspace_property_options_list',
    summary: 'List the options of a workspace-level property',
    description:
      'Any id that is not a workspace-level OPTION property of the workspace (a project-level property included) gives 200 with empty data, not 404. The default sort_order ordering is not cursor-eligible. Works in either mode.',
  })
  @ApiListQuery(OPTION_LIST)
  @ApiListResponse(PropertyOptionDto)
  list(
    @Ctx() ctx: WorkspaceContext,
    @UuidParam('property_id') propertyId: string,
    @ListParams(OPTION_LIST) q: ListQuery,
  ) {
    return this.options.list(workspaceOwner(ctx), propertyId, q);
  }

  @Post()
  @Authenticated(WRITE)
  @IgnoresExpand()
  @TypeSurface('workspace')
  @ApiOperation({
    operationId: 'workspace_property_options_create',
    summary: 'Add an option (workspace mode)',
    description:
      "Appended last and offered in the property's all-projects/all-types context. Workspace-level OPTION properties only (project-level id 404, other type 400). is_default true while another option is the default is 400 (no hand-off).",
  })
  @ApiCreatedResponse({ type: PropertyOptionDto })
  @ApiProblemResponses(400, 404)
  create(
    @Ctx() ctx: WorkspaceContext,
    @UuidParam('property_id') propertyId: string,
    @Body() body: CreatePropertyOptionDto,
  ) {
    return this.options.create(ctx, workspaceOwner(ctx), propertyId, body);
  }

  @Versioned('work_item_property_options')
  @Get(':pk')
  @Authenticated(READ)
  @IgnoresExpand()
  @ApiOperation({
    operationId: 'workspace_property_options_get',
    summary: 'Get an option of a workspace-level property',
    description: 'An option of another property, or a project-level property, is 404.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: PropertyOptionDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: WorkspaceContext, @UuidParam('property_id') propertyId: string, @UuidParam('pk') pk: string) {
    return this.options.get(workspaceOwner(ctx), propertyId, pk);
  }

  @Versioned('work_item_property_options')
  @Patch(':pk')
  @Authenticated(WRITE)
  @IgnoresExpand()
  @TypeSurface('workspace')
  @ApiOperation({
    operationId: 'workspace_property_options_update',
    summary: 'Update an option (workspace mode)',
    description:
      'name, description, is_default (a second default is 400; clear the old one first), external_id, external_source. sort_order is not writable.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: PropertyOptionDto })
  @ApiProblemResponses(400, 404)
  update(
    @Ctx() ctx: WorkspaceContext,
    @UuidParam('property_id') propertyId: string,
    @UuidParam('pk') pk: string,
    @Body() body: UpdatePropertyOptionDto,
  ) {
    return this.options.update(ctx, workspaceOwner(ctx), propertyId, pk, body);
  }

  @Versioned('work_item_property_options')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @IgnoresExpand()
  @TypeSurface('workspace')
  @ApiOperation({
    operationId: 'workspace_property_options_delete',
    summary: 'Delete an option (workspace mode)',
    description: 'Work items holding it lose that value. A repeat is 404.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(
    @Ctx() ctx: WorkspaceContext,
    @UuidParam('property_id') propertyId: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.options.remove(ctx, workspaceOwner(ctx), propertyId, pk);
  }
}
