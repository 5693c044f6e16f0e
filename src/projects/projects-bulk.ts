import { Injectable } from '@nestjs/common';
import { InvalidatesAuthCache } from '../common/auth/auth-cache';
import { WorkspaceContext } from '../common/auth/request-context';
import { WorkspaceRole } from '../common/auth/roles';
import { BulkRoutes, BulkTargets } from '../common/bulk/bulk-routes';
import { BulkTarget } from '../common/bulk/bulk-writes';
import { CreateProjectDto, ProjectDto, UpdateProjectDto } from './projects.dto';
import { ProjectsService } from './projects.service';

/**
 * The workspace's projects as bulk targets. A create row is the single create (workspace members); an update row
 * is the PATCH of the project it names, with that project's own rules (project admins; archived: 409).
 */
@Injectable()
export class ProjectsBulkTargets implements BulkTargets {
  constructor(private readonly projects: ProjectsService) {}

  target(ctx: WorkspaceContext): BulkTarget<CreateProjectDto, UpdateProjectDto> {
    return {
      createDto: CreateProjectDto,
      updateDto: UpdateProjectDto,
      create: (dto) => this.projects.create(ctx, dto),
      update: (id, dto) => this.projects.updateById(ctx, id, dto),
      pair: { table: 'projects', workspaceId: ctx.workspace.id, scopeId: null },
    };
  }
}

/** bulk-create, bulk-update and upsert of projects (the later edition lists no bulk-delete for them). */
export const ProjectsBulkController = BulkRoutes(
  {
    path: 'api/v2/workspaces/:slug/projects',
    operation: 'projects',
    auth: { scope: 'projects:write', workspace: WorkspaceRole.Member },
    createDto: CreateProjectDto,
    readDto: ProjectDto,
    pairScope: 'this workspace',
    withoutDelete: true,
  },
  ProjectsBulkTargets,
);
// Writes of projects change what credentials resolve to (as the single routes do).
InvalidatesAuthCache()(ProjectsBulkController);
