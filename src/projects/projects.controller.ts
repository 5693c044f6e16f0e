import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { Bodyless } from '../common/http/bodyless';
import { ApiSlugParam, ApiUuidParam } from '../common/http/params';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import { ProjectRole, WorkspaceRole } from '../common/auth/roles';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { CreateProjectDto, ProjectDto, ProjectSummaryDto, UpdateProjectDto } from './projects.dto';
import { SUMMARY_COUNTS } from './project-summary.repository';
import { PROJECT_LIST } from './projects.queries';
import { ProjectsService } from './projects.service';
import { InvalidatesAuthCache } from '../common/auth/auth-cache';
import { Versioned } from '../common/http/conditional';

@ApiTags('projects')
@ApiSlugParam()
@InvalidatesAuthCache()
@Controller('api/v2/workspaces/:slug/projects')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  @Authenticated({ scope: 'projects:read', workspace: WorkspaceRole.Guest })
  @ApiOperation({
    operationId: 'projects_list',
    summary: 'List projects',
    description: 'Workspace owners and admins see every project; others see the projects they are members of.',
  })
  @ApiListQuery(PROJECT_LIST)
  @ApiListResponse(ProjectDto)
  list(@Ctx() ctx: WorkspaceContext, @ListParams(PROJECT_LIST) q: ListQuery) {
    return this.projects.list(ctx, q);
  }

  @Post()
  @Authenticated({ scope: 'projects:write', workspace: WorkspaceRole.Member })
  @ApiOperation({
    operationId: 'projects_create',
    summary: 'Create a project',
    description: 'The creator becomes a project admin; one state per group is seeded (Backlog the default).',
  })
  @ApiCreatedResponse({ type: ProjectDto })
  @ApiProblemResponses(400, 404, 409)
  create(@Ctx() ctx: WorkspaceContext, @Body() body: CreateProjectDto) {
    return this.projects.create(ctx, body);
  }

  @Versioned('projects', 'project_id')
  @Get(':project_id')
  @Authenticated({ scope: 'projects:read', project: ProjectRole.Guest })
  @ApiOperation({ operationId: 'projects_get', summary: 'Get a project' })
  @ApiUuidParam('project_id')
  @ApiOkResponse({ type: ProjectDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext) {
    return this.projects.get(ctx);
  }

  @Versioned('projects', 'project_id')
  @Patch(':project_id')
  @Authenticated({ scope: 'projects:write', project: ProjectRole.Admin })
  @ApiOperation({ operationId: 'projects_update', summary: 'Update a project' })
  @ApiUuidParam('project_id')
  @ApiOkResponse({ type: ProjectDto })
  @ApiProblemResponses(400, 404, 409)
  update(@Ctx() ctx: ProjectContext, @Body() body: UpdateProjectDto) {
    return this.projects.update(ctx, body);
  }

  @Versioned('projects', 'project_id')
  @Delete(':project_id')
  @HttpCode(204)
  @Authenticated({ scope: 'projects:write', project: ProjectRole.Admin, archivedProject: 'allowed' })
  @ApiOperation({ operationId: 'projects_delete', summary: 'Delete a project (soft)' })
  @ApiUuidParam('project_id')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(@Ctx() ctx: ProjectContext): Promise<void> {
    await this.projects.remove(ctx);
  }

  @Post(':project_id/archive')
  @Bodyless()
  @HttpCode(204)
  @Authenticated({ scope: 'projects:write', project: ProjectRole.Admin })
  @ApiOperation({
    operationId: 'projects_archive',
    summary: 'Archive a project',
    description:
      'Project admins. Bodyless. The project leaves the project list (see is_archived / include_archived) and the workspace-wide work item list; its data is kept and readable, and every write under it is 409 `project_archived` until it is unarchived (archiving it again included).',
  })
  @ApiUuidParam('project_id')
  @ApiNoContentResponse({ description: 'Archived' })
  @ApiProblemResponses(400, 404, [409, '`project_archived`: the project is already archived'])
  async archive(@Ctx() ctx: ProjectContext): Promise<void> {
    await this.projects.setArchived(ctx, true);
  }

  @Post(':project_id/unarchive')
  @Bodyless()
  @HttpCode(204)
  @Authenticated({ scope: 'projects:write', project: ProjectRole.Admin, archivedProject: 'allowed' })
  @ApiOperation({
    operationId: 'projects_unarchive',
    summary: 'Unarchive a project',
    description: 'Project admins. Bodyless; idempotent (an active project is left as it is).',
  })
  @ApiUuidParam('project_id')
  @ApiNoContentResponse({ description: 'Unarchived' })
  @ApiProblemResponses(400, 404)
  async unarchive(@Ctx() ctx: ProjectContext): Promise<void> {
    await this.projects.setArchived(ctx, false);
  }

  @Get(':project_id/summary')
  @Authenticated({ scope: 'projects:read', project: ProjectRole.Guest })
  @ApiOperation({
    operationId: 'projects_summary',
    summary: 'Project summary',
    description:
      "The project's identity, resource counts (`?counts=` narrows them) and its live, unarchived work items broken down by state group, priority, assignee, cycle and module, from counters and indexes (never a scan of the project's items).",
  })
  @ApiUuidParam('project_id')
  @ApiQuery({
    name: 'counts',
    required: false,
    description: `Comma-separated count names: ${SUMMARY_COUNTS.join(', ')}. Omitted: all of them. An unknown name is 400.`,
  })
  @ApiOkResponse({ type: ProjectSummaryDto })
  @ApiProblemResponses(400, 404)
  summary(@Ctx() ctx: ProjectContext, @Query('counts') counts?: string) {
    return this.projects.summary(ctx, typeof counts === 'string' ? counts : undefined);
  }
}
