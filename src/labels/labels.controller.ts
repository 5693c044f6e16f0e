import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import { ProjectRole, WorkspaceRole } from '../common/auth/roles';
import { UuidParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { CreateLabelDto, LabelDto, UpdateLabelDto } from './labels.dto';
import { LabelScope } from './labels.repository';
import { LABEL_LIST } from './labels.queries';
import { LabelsService } from './labels.service';
import { Versioned } from '../common/http/conditional';

const projectScope = (ctx: ProjectContext): LabelScope => ({
  workspaceId: ctx.workspace.id,
  projectId: ctx.project.id,
});
const workspaceScope = (ctx: WorkspaceContext): LabelScope => ({ workspaceId: ctx.workspace.id, projectId: null });
const CONFLICT: [number, string] = [409, '`conflict`: the name is already used'];

@ApiTags('labels')
@ApiSlugParam()
@ApiUuidParam('project_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/labels')
export class ProjectLabelsController {
  constructor(private readonly labels: LabelsService) {}

  @Get()
  @Authenticated({ scope: 'projects.labels:read', project: ProjectRole.Guest })
  @ApiOperation({
    operationId: 'labels_list',
    summary: 'List the labels of a project',
    description:
      'Project labels only (workspace-level labels are listed under /workspaces/{slug}/labels/). Default order `sort_order` is not cursor-eligible.',
  })
  @ApiListQuery(LABEL_LIST)
  @ApiListResponse(LabelDto)
  list(@Ctx() ctx: ProjectContext, @ListParams(LABEL_LIST) q: ListQuery) {
    return this.labels.list(projectScope(ctx), q);
  }

  @Post()
  @Authenticated({ scope: 'projects.labels:write', project: ProjectRole.Admin })
  @ApiOperation({ operationId: 'labels_create', summary: 'Create a project label' })
  @ApiCreatedResponse({ type: LabelDto })
  @ApiProblemResponses(400, 404, CONFLICT)
  create(@Ctx() ctx: ProjectContext, @Body() body: CreateLabelDto) {
    return this.labels.create(projectScope(ctx), ctx.principal.userId, body);
  }

  @Versioned('labels')
  @Get(':pk')
  @Authenticated({ scope: 'projects.labels:read', project: ProjectRole.Guest })
  @ApiOperation({ operationId: 'labels_get', summary: 'Get a project label' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: LabelDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string) {
    return this.labels.get(projectScope(ctx), pk);
  }

  @Versioned('labels')
  @Patch(':pk')
  @Authenticated({ scope: 'projects.labels:write', project: ProjectRole.Admin })
  @ApiOperation({ operationId: 'labels_update', summary: 'Update a project label (partial)' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: LabelDto })
  @ApiProblemResponses(400, 404, CONFLICT)
  update(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: UpdateLabelDto) {
    return this.labels.update(projectScope(ctx), pk, body);
  }

  @Versioned('labels')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated({ scope: 'projects.labels:write', project: ProjectRole.Admin })
  @ApiOperation({
    operationId: 'labels_delete',
    summary: 'Delete a project label (soft)',
    description: 'The label is removed from every work item carrying it; child labels move to the top level.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.labels.remove(projectScope(ctx), pk);
  }
}

@ApiTags('labels')
@ApiSlugParam()
@Controller('api/v2/workspaces/:slug/labels')
export class WorkspaceLabelsController {
  constructor(private readonly labels: LabelsService) {}

  @Get()
  @Authenticated({ scope: 'workspaces.labels:read', workspace: WorkspaceRole.Guest })
  @ApiOperation({
    operationId: 'workspace_labels_list',
    summary: 'List workspace-level labels',
    description:
      'Labels usable on the work items of every project of the workspace. Default order `sort_order` is not cursor-eligible.',
  })
  @ApiListQuery(LABEL_LIST)
  @ApiListResponse(LabelDto)
  list(@Ctx() ctx: WorkspaceContext, @ListParams(LABEL_LIST) q: ListQuery) {
    return this.labels.list(workspaceScope(ctx), q);
  }

  @Post()
  @Authenticated({ scope: 'workspaces.labels:write', workspace: WorkspaceRole.Admin })
  @ApiOperation({ operationId: 'workspace_labels_create', summary: 'Create a workspace-level label' })
  @ApiCreatedResponse({ type: LabelDto })
  @ApiProblemResponses(400, 404, CONFLICT)
  create(@Ctx() ctx: WorkspaceContext, @Body() body: CreateLabelDto) {
    return this.labels.create(workspaceScope(ctx), ctx.principal.userId, body);
  }

  @Versioned('labels')
  @Get(':pk')
  @Authenticated({ scope: 'workspaces.labels:read', workspace: WorkspaceRole.Guest })
  @ApiOperation({ operationId: 'workspace_labels_get', summary: 'Get a workspace-level label' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: LabelDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string) {
    return this.labels.get(workspaceScope(ctx), pk);
  }

  @Versioned('labels')
  @Patch(':pk')
  @Authenticated({ scope: 'workspaces.labels:write', workspace: WorkspaceRole.Admin })
  @ApiOperation({ operationId: 'workspace_labels_update', summary: 'Update a workspace-level label (partial)' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: LabelDto })
  @ApiProblemResponses(400, 404, CONFLICT)
  update(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string, @Body() body: UpdateLabelDto) {
    return this.labels.update(workspaceScope(ctx), pk, body);
  }

  @Versioned('labels')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated({ scope: 'workspaces.labels:write', workspace: WorkspaceRole.Admin })
  @ApiOperation({
    operationId: 'workspace_labels_delete',
    summary: 'Delete a workspace-level label (soft)',
    description: 'The label is removed from every work item of every project carrying it.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.labels.remove(workspaceScope(ctx), pk);
  }
}
