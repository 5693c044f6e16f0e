import { Versioned } from '../common/http/conditional';
import { Body, Controller, Delete, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import { ProjectRole, WorkspaceRole } from '../common/auth/roles';
import { IgnoresExpand } from '../common/expand/expand';
import { UuidParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { WorkItemPropertyDto } from '../work-item-properties/work-item-properties.dto';
import { TYPE_PROPERTY_LIST } from '../work-item-properties/work-item-properties.queries';
import { TypePropertiesService } from './type-properties.service';
import { TypeModeGuard, TypeSurface } from './type-surface';
import { AttachedPropertiesDto, AttachPropertiesDto } from './work-item-types.dto';
import { projectOwner, workspaceOwner } from './work-item-types.service';

@ApiTags('work-item-type-properties')
@ApiSlugParam()
@ApiUuidParam('project_id')
@ApiUuidParam('type_id')
@UseGuards(TypeModeGuard)
@Controller('api/v2/workspaces/:slug/projects/:project_id/work-item-types/:type_id/properties')
export class ProjectTypePropertiesController {
  constructor(private readonly typeProperties: TypePropertiesService) {}

  @Get()
  @Authenticated({ scope: 'projects.work_item_types:read', project: ProjectRole.Guest })
  @IgnoresExpand()
  @ApiOperation({
    operationId: 'project_type_properties_list',
    summary: 'List the properties attached to a type',
    description: 'Rows are full property objects with options. Works for imported types and in either mode.',
  })
  @ApiListQuery(TYPE_PROPERTY_LIST)
  @ApiListResponse(WorkItemPropertyDto)
  list(@Ctx() ctx: ProjectContext, @UuidParam('type_id') typeId: string, @ListParams(TYPE_PROPERTY_LIST) q: ListQuery) {
    return this.typeProperties.list(projectOwner(ctx), typeId, q);
  }

  @Post()
  @Authenticated({ scope: 'projects.work_item_types:write', project: ProjectRole.Admin })
  @TypeSurface('project')
  @ApiOperation({
    operationId: 'project_type_properties_attach',
    summary: 'Attach existing properties to a type (project mode)',
    description:
      'Every id must be a property of this project, else 400 and nothing is attached. Re-attaching is harmless. A property definition in the body is 400. Returns the attached ids.',
  })
  @ApiCreatedResponse({ type: AttachedPropertiesDto })
  @ApiProblemResponses(400, 404)
  attach(@Ctx() ctx: ProjectContext, @UuidParam('type_id') typeId: string, @Body() body: AttachPropertiesDto) {
    return this.typeProperties.attach(ctx, projectOwner(ctx), typeId, body);
  }

  @Versioned('work_item_type_properties', { type_id: 'type_id', property_id: 'pk' })
  @Get(':pk')
  @Authenticated({ scope: 'projects.work_item_types:read', project: ProjectRole.Guest })
  @IgnoresExpand()
  @ApiOperation({
    operationId: 'project_type_properties_get',
    summary: 'Get a property attached to a type',
    description: '`pk` is the property id; 404 when the property is not attached to this type.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemPropertyDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @UuidParam('type_id') typeId: string, @UuidParam('pk') pk: string) {
    return this.typeProperties.get(projectOwner(ctx), typeId, pk);
  }

  @Versioned('work_item_type_properties', { type_id: 'type_id', property_id: 'pk' })
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated({ scope: 'projects.work_item_types:write', project: ProjectRole.Admin })
  @TypeSurface('project')
  @ApiOperation({
    operationId: 'project_type_properties_detach',
    summary: 'Detach a property from a type (project mode)',
    description:
      "Removes the link and the property's values on work items of this type (other types keep theirs); the definition survives. Not attached: 404.",
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Detached' })
  @ApiProblemResponses(400, 404)
  async detach(
    @Ctx() ctx: ProjectContext,
    @UuidParam('type_id') typeId: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.typeProperties.detach(ctx, projectOwner(ctx), typeId, pk);
  }
}

@ApiTags('workspace-work-item-type-properties')
@ApiSlugParam()
@ApiUuidParam('type_id')
@UseGuards(TypeModeGuard)
@Controller('api/v2/workspaces/:slug/work-item-types/:type_id/properties')
export class WorkspaceTypePropertiesController {
  constructor(private readonly typeProperties: TypePropertiesService) {}

  @Get()
  @Authenticated({ scope: 'workspaces.work_item_types:read', workspace: WorkspaceRole.Member })
  @IgnoresExpand()
  @ApiOperation({
    operationId: 'workspace_type_properties_list',
    summary: 'List the properties attached to a workspace type',
    description: 'Rows are full workspace property objects. Works in either mode.',
  })
  @ApiListQuery(TYPE_PROPERTY_LIST)
  @ApiListResponse(WorkItemPropertyDto)
  list(
    @Ctx() ctx: WorkspaceContext,
    @UuidParam('type_id') typeId: string,
    @ListParams(TYPE_PROPERTY_LIST) q: ListQuery,
  ) {
    return this.typeProperties.list(workspaceOwner(ctx), typeId, q);
  }

  @Post()
  @Authenticated({ scope: 'workspaces.work_item_types:write', workspace: WorkspaceRole.Admin })
  @TypeSurface('workspace')
  @ApiOperation({
    operationId: 'workspace_type_properties_attach',
    summary: 'Attach workspace properties to a workspace type (workspace mode)',
    description:
      'Every id must be a workspace-level property of this workspace, else 400 and nothing is attached. Returns the attached ids.',
  })
  @ApiCreatedResponse({ type: AttachedPropertiesDto })
  @ApiProblemResponses(400, 404)
  attach(@Ctx() ctx: WorkspaceContext, @UuidParam('type_id') typeId: string, @Body() body: AttachPropertiesDto) {
    return this.typeProperties.attach(ctx, workspaceOwner(ctx), typeId, body);
  }

  @Versioned('work_item_type_properties', { type_id: 'type_id', property_id: 'pk' })
  @Get(':pk')
  @Authenticated({ scope: 'workspaces.work_item_types:read', workspace: WorkspaceRole.Member })
  @IgnoresExpand()
  @ApiOperation({
    operationId: 'workspace_type_properties_get',
    summary: 'Get a property attached to a workspace type',
    description: '404 when not attached.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemPropertyDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: WorkspaceContext, @UuidParam('type_id') typeId: string, @UuidParam('pk') pk: string) {
    return this.typeProperties.get(workspaceOwner(ctx), typeId, pk);
  }

  @Versioned('work_item_type_properties', { type_id: 'type_id', property_id: 'pk' })
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated({ scope: 'workspaces.work_item_types:write', workspace: WorkspaceRole.Admin })
  @TypeSurface('workspace')
  @ApiOperation({
    operationId: 'workspace_type_properties_detach',
    summary: 'Detach a property from a workspace type (workspace mode)',
    description: 'The definition survives; values on work items of this type are removed. Not attached: 404.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Detached' })
  @ApiProblemResponses(400, 404)
  async detach(
    @Ctx() ctx: WorkspaceContext,
    @UuidParam('type_id') typeId: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.typeProperties.detach(ctx, workspaceOwner(ctx), typeId, pk);
  }
}
