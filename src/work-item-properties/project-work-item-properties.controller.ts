import { Body, Controller, Delete, Get, HttpCode, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { IgnoresExpand } from '../common/expand/expand';
import { UuidParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { TypeModeGuard, TypeSurface } from '../work-item-types/type-surface';
import { projectOwner } from '../work-item-types/work-item-types.service';
import { CreatePropertyOptionDto, PropertyOptionDto, UpdatePropertyOptionDto } from './property-options.dto';
import { OPTION_LIST } from './property-options.queries';
import { PropertyOptionsService } from './property-options.service';
import { CreateWorkItemPropertyDto, UpdateWorkItemPropertyDto, WorkItemPropertyDto } from './work-item-properties.dto';
import { PROPERTY_LIST } from './work-item-properties.queries';
import { WorkItemPropertiesService } from './work-item-properties.service';
import { Versioned } from '../common/http/conditional';

const READ = { scope: 'projects.work_item_properties:read', project: ProjectRole.Guest } as const;
const WRITE = { scope: 'projects.work_item_properties:write', project: ProjectRole.Admin } as const;

@ApiTags('work-item-properties')
@ApiSlugParam()
@ApiUuidParam('project_id')
@UseGuards(TypeModeGuard)
@Controller('api/v2/workspaces/:slug/projects/:project_id/work-item-properties')
export class ProjectWorkItemPropertiesController {
  constructor(private readonly properties: WorkItemPropertiesService) {}

  @Get()
  @Authenticated(READ)
  @IgnoresExpand()
  @ApiOperation({
    operationId: 'project_work_item_properties_list',
    summary: "List the project's properties",
    description: 'Full catalogue, inactive and unattached properties included, options inline. Works in either mode.',
  })
  @ApiListQuery(PROPERTY_LIST)
  @ApiListResponse(WorkItemPropertyDto)
  list(@Ctx() ctx: ProjectContext, @ListParams(PROPERTY_LIST) q: ListQuery) {
    return this.properties.list(projectOwner(ctx), q);
  }

  @Post()
  @Authenticated(WRITE)
  @IgnoresExpand()
  @TypeSurface('project')
  @ApiOperation({
    operationId: 'project_work_item_properties_create',
    summary: 'Create a property (project mode)',
    description: 'display_name and property_type required; `name` is derived. Creating does not attach it to any type.',
  })
  @ApiCreatedResponse({ type: WorkItemPropertyDto })
  @ApiProblemResponses(400, 404)
  create(@Ctx() ctx: ProjectContext, @Body() body: CreateWorkItemPropertyDto) {
    return this.properties.create(ctx, projectOwner(ctx), body);
  }

  @Versioned('work_item_properties')
  @Get(':pk')
  @Authenticated(READ)
  @IgnoresExpand()
  @ApiOperation({
    operationId: 'project_work_item_properties_get',
    summary: 'Get a property with its options',
    description: 'A property of another project is 404. Works in either mode.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemPropertyDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string) {
    return this.properties.get(projectOwner(ctx), pk);
  }

  @Versioned('work_item_properties')
  @Patch(':pk')
  @Authenticated(WRITE)
  @IgnoresExpand()
  @TypeSurface('project')
  @ApiOperation({
    operationId: 'project_work_item_properties_update',
    summary: 'Update a property (project mode)',
    description: 'Partial; settings and validation_rules are replaced whole; name is not writable.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemPropertyDto })
  @ApiProblemResponses(400, 404)
  update(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: UpdateWorkItemPropertyDto) {
    return this.properties.update(ctx, projectOwner(ctx), pk, body);
  }

  @Versioned('work_item_properties')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @IgnoresExpand()
  @TypeSurface('project')
  @ApiOperation({
    operationId: 'project_work_item_properties_delete',
    summary: 'Delete a property (project mode, permanent)',
    description:
      'Removes the definition, its options, its type attachments and its values on work items. is_active false is the reversible alternative.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.properties.remove(ctx, projectOwner(ctx), pk);
  }
}

@ApiTags('work-item-property-options')
@ApiSlugParam()
@ApiUuidParam('project_id')
@ApiUuidParam('property_id')
@UseGuards(TypeModeGuard)
@Controller('api/v2/workspaces/:slug/projects/:project_id/work-item-properties/:property_id/options')
export class ProjectPropertyOptionsController {
  constructor(private readonly options: PropertyOptionsService) {}

  @Get()
  @Authenticated(READ)
  @IgnoresExpand()
  @ApiOperation({
    operationId: 'project_property_options_list',
    summary: 'List the options of a property',
    description: 'A property of another project is 404. Works in either mode.',
  })
  @ApiListQuery(OPTION_LIST)
  @ApiListResponse(PropertyOptionDto)
  list(
    @Ctx() ctx: ProjectContext,
    @UuidParam('property_id') propertyId: string,
    @ListParams(OPTION_LIST) q: ListQuery,
  ) {
    return this.options.list(projectOwner(ctx), propertyId, q);
  }

  @Post()
  @Authenticated(WRITE)
  @IgnoresExpand()
  @TypeSurface('project')
  @ApiOperation({
    operationId: 'project_property_options_create',
    summary: 'Add an option (project mode)',
    description: 'Appended last. OPTION properties only (400). is_default true moves the default to the new option.',
  })
  @ApiCreatedResponse({ type: PropertyOptionDto })
  @ApiProblemResponses(400, 404)
  create(
    @Ctx() ctx: ProjectContext,
    @UuidParam('property_id') propertyId: string,
    @Body() body: CreatePropertyOptionDto,
  ) {
    return this.options.create(ctx, projectOwner(ctx), propertyId, body);
  }

  @Versioned('work_item_property_options')
  @Get(':pk')
  @Authenticated(READ)
  @IgnoresExpand()
  @ApiOperation({
    operationId: 'project_property_options_get',
    summary: 'Get an option',
    description: 'An option of another property is 404.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: PropertyOptionDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @UuidParam('property_id') propertyId: string, @UuidParam('pk') pk: string) {
    return this.options.get(projectOwner(ctx), propertyId, pk);
  }

  @Versioned('work_item_property_options')
  @Patch(':pk')
  @Authenticated(WRITE)
  @IgnoresExpand()
  @TypeSurface('project')
  @ApiOperation({
    operationId: 'project_property_options_update',
    summary: 'Update an option (project mode)',
    description:
      'name, description, is_default (moves the default; affects work items created afterwards), external_id, external_source. sort_order is not writable.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: PropertyOptionDto })
  @ApiProblemResponses(400, 404)
  update(
    @Ctx() ctx: ProjectContext,
    @UuidParam('property_id') propertyId: string,
    @UuidParam('pk') pk: string,
    @Body() body: UpdatePropertyOptionDto,
  ) {
    return this.options.update(ctx, projectOwner(ctx), propertyId, pk, body);
  }

  @Versioned('work_item_property_options')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @IgnoresExpand()
  @TypeSurface('project')
  @ApiOperation({
    operationId: 'project_property_options_delete',
    summary: 'Delete an option (project mode)',
    description: 'Work items holding it lose that value. A repeat is 404.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(
    @Ctx() ctx: ProjectContext,
    @UuidParam('property_id') propertyId: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.options.remove(ctx, projectOwner(ctx), propertyId, pk);
  }
}
