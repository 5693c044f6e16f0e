import { Body, Controller, Delete, Get, HttpCode, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, WorkspaceContext } from '../common/auth/request-context';
import { WorkspaceRole } from '../common/auth/roles';
import { UuidParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { TypeModeGuard, TypeSurface } from '../work-item-types/type-surface';
import { CreatePropertyContextDto, PropertyContextDto, UpdatePropertyContextDto } from './contexts.dto';
import { CONTEXT_LIST } from './contexts.queries';
import { ContextsService } from './contexts.service';
import { Versioned } from '../common/http/conditional';

const READ = { scope: 'workspaces.work_item_properties:read', workspace: WorkspaceRole.Member } as const;
const WRITE = { scope: 'workspaces.work_item_properties:write', workspace: WorkspaceRole.Admin } as const;
const VALIDATION = [
  400,
  '`validation_error`: unpinned axis, list sent with its wildcard flag, id outside the workspace, duplicate id, duplicate name, second all-projects context, half-filled or reused external pair, same-tier overlap, bad option entry',
] as [number, string];

@ApiTags('work-item-property-contexts')
@ApiSlugParam()
@ApiUuidParam('property_id')
@UseGuards(TypeModeGuard)
@Controller('api/v2/workspaces/:slug/work-item-properties/:property_id/contexts')
export class PropertyContextsController {
  constructor(private readonly contexts: ContextsService) {}

  @Get()
  @Authenticated(READ)
  @ApiOperation({
    operationId: 'property_contexts_list',
    summary: 'List the contexts of a workspace-level property',
    description:
      'A project-level property id is 404. The default sort_order ordering is not cursor-eligible. Works in either mode.',
  })
  @ApiListQuery(CONTEXT_LIST)
  @ApiListResponse(PropertyContextDto)
  list(
    @Ctx() ctx: WorkspaceContext,
    @UuidParam('property_id') propertyId: string,
    @ListParams(CONTEXT_LIST) q: ListQuery,
  ) {
    return this.contexts.list(ctx, propertyId, q);
  }

  @Post()
  @Authenticated(WRITE)
  @TypeSurface('workspace')
  @ApiOperation({
    operationId: 'property_contexts_create',
    summary: 'Create a context (workspace mode)',
    description:
      "Each axis is pinned by its wildcard flag or a non-empty id list. Precedence when resolving a work item: listed projects and listed types, listed projects and all types, all projects and listed types, all projects and all types. The winning context's is_required, is_multi, default_value, settings and options replace the property's own.",
  })
  @ApiCreatedResponse({ type: PropertyContextDto })
  @ApiProblemResponses(VALIDATION, 404)
  create(
    @Ctx() ctx: WorkspaceContext,
    @UuidParam('property_id') propertyId: string,
    @Body() body: CreatePropertyContextDto,
  ) {
    return this.contexts.create(ctx, propertyId, body);
  }

  @Versioned('work_item_property_contexts')
  @Get(':pk')
  @Authenticated(READ)
  @ApiOperation({ operationId: 'property_contexts_get', summary: 'Get a context' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: PropertyContextDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: WorkspaceContext, @UuidParam('property_id') propertyId: string, @UuidParam('pk') pk: string) {
    return this.contexts.get(ctx, propertyId, pk);
  }

  @Versioned('work_item_property_contexts')
  @Patch(':pk')
  @Authenticated(WRITE)
  @TypeSurface('workspace')
  @ApiOperation({
    operationId: 'property_contexts_update',
    summary: 'Update a context (workspace mode)',
    description:
      'Partial, but project_ids, issue_type_ids and options are set-replacements. Turning a wildcard off needs the ids in the same request. Values that lose coverage, or whose option is no longer offered, are deleted.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: PropertyContextDto })
  @ApiProblemResponses(VALIDATION, 404)
  update(
    @Ctx() ctx: WorkspaceContext,
    @UuidParam('property_id') propertyId: string,
    @UuidParam('pk') pk: string,
    @Body() body: UpdatePropertyContextDto,
  ) {
    return this.contexts.update(ctx, propertyId, pk, body);
  }

  @Versioned('work_item_property_contexts')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @TypeSurface('workspace')
  @ApiOperation({
    operationId: 'property_contexts_delete',
    summary: 'Delete a context (workspace mode)',
    description: 'Deletes the options only this context offered and the values left uncovered. No restore.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(
    @Ctx() ctx: WorkspaceContext,
    @UuidParam('property_id') propertyId: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.contexts.remove(ctx, propertyId, pk);
  }
}
