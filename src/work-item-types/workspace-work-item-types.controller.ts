import { Bodyless } from '../common/http/bodyless';
import { Body, Controller, Delete, Get, HttpCode, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, WorkspaceContext } from '../common/auth/request-context';
import { WorkspaceRole } from '../common/auth/roles';
import { UuidParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { TypeModeGuard, TypeSurface } from './type-surface';
import { CreateWorkItemTypeDto, UpdateWorkItemTypeDto, WorkItemTypeDto } from './work-item-types.dto';
import { TYPE_LIST } from './work-item-types.queries';
import { WorkItemTypesService, workspaceOwner } from './work-item-types.service';
import { Versioned } from '../common/http/conditional';

@ApiTags('workspace-work-item-types')
@ApiSlugParam()
@UseGuards(TypeModeGuard)
@Controller('api/v2/workspaces/:slug/work-item-types')
export class WorkspaceWorkItemTypesController {
  constructor(private readonly types: WorkItemTypesService) {}

  @Get()
  @Authenticated({ scope: 'workspaces.work_item_types:read', workspace: WorkspaceRole.Member })
  @ApiOperation({
    operationId: 'workspace_work_item_types_list',
    summary: 'List workspace-level work item types',
    description: 'Inactive types included. Works in either mode.',
  })
  @ApiListQuery(TYPE_LIST)
  @ApiListResponse(WorkItemTypeDto)
  list(@Ctx() ctx: WorkspaceContext, @ListParams(TYPE_LIST) q: ListQuery) {
    return this.types.list(workspaceOwner(ctx), q);
  }

  @Post()
  @Authenticated({ scope: 'workspaces.work_item_types:write', workspace: WorkspaceRole.Admin })
  @TypeSurface('workspace', 'name or external pair already used in the workspace')
  @ApiOperation({
    operationId: 'workspace_work_item_types_create',
    summary: 'Create a workspace-level work item type (workspace mode)',
    description: 'New types have no properties. The first workspace type becomes the workspace default.',
  })
  @ApiCreatedResponse({ type: WorkItemTypeDto })
  @ApiProblemResponses(400, 404)
  create(@Ctx() ctx: WorkspaceContext, @Body() body: CreateWorkItemTypeDto) {
    return this.types.create(ctx, workspaceOwner(ctx), body);
  }

  @Versioned('work_item_types')
  @Get(':pk')
  @Authenticated({ scope: 'workspaces.work_item_types:read', workspace: WorkspaceRole.Member })
  @ApiOperation({
    operationId: 'workspace_work_item_types_get',
    summary: 'Get a workspace-level work item type',
    description: 'A project-level type id is 404.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemTypeDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string) {
    return this.types.get(workspaceOwner(ctx), pk);
  }

  @Versioned('work_item_types')
  @Patch(':pk')
  @Authenticated({ scope: 'workspaces.work_item_types:write', workspace: WorkspaceRole.Admin })
  @TypeSurface('workspace', 'name already used')
  @ApiOperation({
    operationId: 'workspace_work_item_types_update',
    summary: 'Update a workspace-level work item type (workspace mode)',
    description:
      'name, description, is_active, external_id, external_source. is_default, is_epic, level and logo_props are read-only and ignored. Deactivating the default is 400; inactive types stay on work items but leave pickers.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemTypeDto })
  @ApiProblemResponses(400, 404)
  update(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string, @Body() body: UpdateWorkItemTypeDto) {
    return this.types.update(ctx, workspaceOwner(ctx), pk, body);
  }

  @Versioned('work_item_types')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated({ scope: 'workspaces.work_item_types:write', workspace: WorkspaceRole.Admin })
  @TypeSurface(
    'workspace',
    'cannot be deleted in its current state: the default type, or used by work items (reason in detail)',
  )
  @ApiOperation({
    operationId: 'workspace_work_item_types_delete',
    summary: 'Delete a workspace-level work item type (workspace mode, soft)',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.types.remove(ctx, workspaceOwner(ctx), pk);
  }

  @Post(':pk/mark-default')
  @Bodyless()
  @HttpCode(200)
  @Authenticated({ scope: 'workspaces.work_item_types:write', workspace: WorkspaceRole.Admin })
  @TypeSurface('workspace')
  @ApiOperation({
    operationId: 'workspace_work_item_types_mark_default',
    summary: 'Make a type the workspace default (workspace mode)',
    description: 'No body; returns the promoted type and clears the previous holder.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemTypeDto })
  @ApiProblemResponses(400, 404)
  markDefault(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string) {
    return this.types.markDefault(ctx, workspaceOwner(ctx), pk);
  }
}
