import { Bodyless } from '../common/http/bodyless';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiExtension,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import { ProjectRole, WORK_ITEM_READER, WorkspaceRole } from '../common/auth/roles';
import { Expandable, ExpandParam } from '../common/expand/expand';
import { RequestedFields } from '../common/fields/fields';
import { WorkItemIdParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';

/** `{pk}` is the UUID only; an identifier there is 404 like any unknown item (spec, unarchive). */
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { CreateWorkItemDto, UpdateWorkItemDto, WORK_ITEM_EXPAND, WorkItemDto } from './work-items.dto';
import { WORK_ITEM_LIST, WORKSPACE_WORK_ITEM_LIST } from './work-items.queries';
import { WorkItemsService } from './work-items.service';
import { Versioned } from '../common/http/conditional';

const WORKFLOW_403: [number, string] = [
  403,
  '`forbidden` (role or scope) or `workflow_transition_denied` (a workflow rule forbids the state)',
];
const NAME_OR_ID_400: [number, string] = [
  400,
  '`validation_error`: missing or invalid field, both name and id forms, unresolvable or ambiguous name, id of another project or workspace, start_date after target_date, unusable description_html, custom_fields while custom properties are disabled',
];

@ApiTags('work-items')
@ApiSlugParam()
@ApiUuidParam('project_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/work-items')
export class WorkItemsController {
  constructor(private readonly items: WorkItemsService) {}

  @Get()
  @Authenticated({ scope: 'projects.work_items:read', project: WORK_ITEM_READER })
  @ApiOperation({
    operationId: 'work_items_list',
    summary: 'List work items',
    description: 'Archived work items are excluded. List rows carry custom_fields: null.',
  })
  @Expandable(WORK_ITEM_EXPAND)
  @ApiListQuery(WORK_ITEM_LIST)
  @ApiListResponse(WorkItemDto)
  list(
    @Ctx() ctx: ProjectContext,
    @ListParams(WORK_ITEM_LIST) q: ListQuery,
    @ExpandParam() expand: Set<string>,
    @RequestedFields() fields: ReadonlySet<string> | null,
  ) {
    return this.items.list(ctx, q, expand, fields);
  }

  @Post()
  @Authenticated({ scope: 'projects.work_items:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'work_items_create',
    summary: 'Create a work item',
    description:
      'Only name is required; state, type and assignees fall back to the project defaults. A reused (external_source, external_id) pair is 409 naming the existing work item.',
  })
  @Expandable(WORK_ITEM_EXPAND)
  @ApiCreatedResponse({ type: WorkItemDto })
  @ApiProblemResponses(NAME_OR_ID_400, WORKFLOW_403, 404, [
    409,
    '`conflict`: external_source/external_id already used in the project (detail names the existing id)',
  ])
  create(@Ctx() ctx: ProjectContext, @Body() body: CreateWorkItemDto, @ExpandParam() expand: Set<string>) {
    return this.items.create(ctx, body, expand);
  }

  @Versioned('work_items', 'pk', { supplied: true })
  @Get(':pk')
  @Authenticated({ scope: 'projects.work_items:read', project: WORK_ITEM_READER })
  @ApiOperation({
    operationId: 'work_items_get',
    summary: 'Get a work item',
    description: '`pk` is the UUID only. Archived work items are 404.',
  })
  @ApiUuidParam('pk')
  @Expandable(WORK_ITEM_EXPAND)
  @ApiOkResponse({ type: WorkItemDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @WorkItemIdParam('pk') pk: string, @ExpandParam() expand: Set<string>) {
    return this.items.get(ctx, pk, expand);
  }

  @Versioned('work_items')
  @Patch(':pk')
  @Authenticated({ scope: 'projects.work_items:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'work_items_update',
    summary: 'Update a work item (partial)',
    description: 'assignee and label sets are replaced as a whole. Workflow rules run only when the state changes.',
  })
  @ApiUuidParam('pk')
  @Expandable(WORK_ITEM_EXPAND)
  @ApiOkResponse({ type: WorkItemDto })
  @ApiProblemResponses(NAME_OR_ID_400, WORKFLOW_403, 404, [
    409,
    '`conflict`: external_source/external_id already used in the project',
  ])
  update(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('pk') pk: string,
    @Body() body: UpdateWorkItemDto,
    @ExpandParam() expand: Set<string>,
  ) {
    return this.items.update(ctx, pk, body, expand);
  }

  @Versioned('work_items')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated({ scope: 'projects.work_items:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'work_items_delete',
    summary: 'Delete a work item (soft)',
    description: "Project admins and the work item's creator only; repeating is 404.",
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404, [
    409,
    "`conflict`: listed by the published API for this operation; no rule of this service produces it today (a delete lifts the item's children to the top level instead of refusing)",
  ])
  async remove(@Ctx() ctx: ProjectContext, @WorkItemIdParam('pk') pk: string): Promise<void> {
    await this.items.remove(ctx, pk);
  }

  @Post(':pk/archive')
  @Bodyless()
  @HttpCode(200)
  @Authenticated({ scope: 'projects.work_items:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'work_items_archive',
    summary: 'Archive a work item',
    description:
      'Bodyless (a body is ignored). Archiving an archived work item is 404. Response custom_fields is null.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemDto })
  @ApiProblemResponses(400, 404)
  archive(@Ctx() ctx: ProjectContext, @WorkItemIdParam('pk') pk: string) {
    return this.items.archive(ctx, pk);
  }

  @Post(':pk/unarchive')
  @Bodyless()
  @HttpCode(200)
  @Authenticated({ scope: 'projects.work_items:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'work_items_unarchive',
    summary: 'Unarchive a work item',
    description: 'Bodyless; idempotent (an active work item is returned unchanged). Response custom_fields is null.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemDto })
  @ApiProblemResponses(400, 404, [
    409,
    '`conflict`: the work item cannot be restored as it stands (spec contract; an archived item keeps its external_source/external_id pair reserved, so no current rule collides)',
  ])
  unarchive(@Ctx() ctx: ProjectContext, @WorkItemIdParam('pk') pk: string) {
    return this.items.unarchive(ctx, pk);
  }
}

@ApiTags('work-items')
@ApiSlugParam()
@Controller('api/v2/workspaces/:slug/work-items')
export class WorkItemsByIdentifierController {
  constructor(private readonly items: WorkItemsService) {}

  @Get()
  @Authenticated({ scope: 'projects.work_items:read', workspace: WorkspaceRole.Guest })
  @ApiOperation({
    operationId: 'work_items_list_workspace',
    summary: 'List work items of the workspace',
    description:
      "Work items of every project the caller can read (project role commenter or above, or workspace owner/admin), archived projects and archived items excluded, with the project list's filters plus project_id / project_id__in, ordered by created_at or updated_at (another order_by falls back to -created_at). List rows carry custom_fields: null.",
  })
  @Expandable(WORK_ITEM_EXPAND)
  @ApiListQuery(WORKSPACE_WORK_ITEM_LIST)
  @ApiListResponse(WorkItemDto)
  list(
    @Ctx() ctx: WorkspaceContext,
    @ListParams(WORKSPACE_WORK_ITEM_LIST) q: ListQuery,
    @ExpandParam() expand: Set<string>,
    @RequestedFields() fields: ReadonlySet<string> | null,
  ) {
    return this.items.listWorkspace(ctx, q, expand, fields);
  }

  @Get(':identifier')
  @Authenticated({ scope: 'projects.work_items:read', workspace: WorkspaceRole.Guest })
  @ApiOperation({
    operationId: 'work_items_get_by_identifier',
    summary: 'Get a work item by identifier',
    description:
      'Identifier like PROJ-12 (project part case-insensitive). Needs the project role commenter or above, or workspace owner/admin; a project guest is 403 (roles never cause 404). Malformed, invisible (not on the project), archived and unknown identifiers are the same 404.',
  })
  @ApiParam({ name: 'identifier', example: 'PROJ-12' })
  // A strong ETag, as the record's own GET: the service reads the version with the row (withRowVersion).
  @ApiExtension('x-versioned', true)
  @Expandable(WORK_ITEM_EXPAND)
  @ApiOkResponse({ type: WorkItemDto })
  @ApiProblemResponses(404)
  getByIdentifier(
    @Ctx() ctx: WorkspaceContext,
    @Param('identifier') identifier: string,
    @ExpandParam() expand: Set<string>,
  ) {
    return this.items.getByIdentifier(ctx, identifier, expand);
  }
}
