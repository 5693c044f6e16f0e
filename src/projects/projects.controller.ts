import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import { ProjectRole, WorkspaceRole } from '../common/auth/roles';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { CreateProjectDto, ProjectDto, UpdateProjectDto } from './projects.dto';
import { PROJECT_LIST } from './projects.repository';
import { ProjectsService } from './projects.service';
import { InvalidatesAuthCache } from '../common/auth/auth-cache';
import { Versioned } from '../common/http/conditional';

@ApiTags('projects')
@ApiParam({ name: 'slug', description: 'Workspace slug' })
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
  @ApiParam({ name: 'project_id', format: 'uuid' })
  @ApiOkResponse({ type: ProjectDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext) {
    return this.projects.get(ctx);
  }

  @Versioned('projects', 'project_id')
  @Patch(':project_id')
  @Authenticated({ scope: 'projects:write', project: ProjectRole.Admin })
  @ApiOperation({ operationId: 'projects_update', summary: 'Update a project' })
  @ApiParam({ name: 'project_id', format: 'uuid' })
  @ApiOkResponse({ type: ProjectDto })
  @ApiProblemResponses(400, 404, 409)
  update(@Ctx() ctx: ProjectContext, @Body() body: UpdateProjectDto) {
    return this.projects.update(ctx, body);
  }

  @Versioned('projects', 'project_id')
  @Delete(':project_id')
  @HttpCode(204)
  @Authenticated({ scope: 'projects:write', project: ProjectRole.Admin })
  @ApiOperation({ operationId: 'projects_delete', summary: 'Delete a project (soft)' })
  @ApiParam({ name: 'project_id', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(@Ctx() ctx: ProjectContext): Promise<void> {
    await this.projects.remove(ctx);
  }
}
