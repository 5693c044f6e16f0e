import { Versioned } from '../common/http/conditional';
import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import { ProjectRole, WorkspaceRole } from '../common/auth/roles';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import {
  ProjectFeaturesDto,
  UpdateProjectFeaturesDto,
  UpdateWorkspaceFeaturesDto,
  WorkspaceFeaturesDto,
} from './features.dto';
import { FeaturesService } from './features.service';

@ApiTags('features')
@ApiSlugParam()
@Controller('api/v2/workspaces/:slug/features')
export class WorkspaceFeaturesController {
  constructor(private readonly features: FeaturesService) {}

  @Versioned('workspace_features', {})
  @Get()
  @Authenticated({ scope: 'workspaces.features:read', workspace: WorkspaceRole.Guest })
  @ApiOperation({
    operationId: 'workspace_features_get',
    summary: 'Get workspace features',
    description:
      'One object per workspace. `is_work_item_types_enabled` is the work item type mode: true is workspace mode, false project mode.',
  })
  @ApiOkResponse({ type: WorkspaceFeaturesDto })
  @ApiProblemResponses(404)
  get(@Ctx() ctx: WorkspaceContext) {
    return this.features.getWorkspace(ctx);
  }

  @Versioned('workspace_features', {})
  @Patch()
  @Authenticated({ scope: 'workspaces.features:write', workspace: WorkspaceRole.Admin })
  @ApiOperation({
    operationId: 'workspace_features_update',
    summary: 'Update workspace features',
    description:
      'Partial: only the fields sent change. A non-boolean flag or a non-integer level is 400; unknown keys are ignored (compare the returned object). ' +
      'Owners and admins only. Every change is recorded in the audit trail (category settings); a mode switch also as workspace.work_item_type_mode_changed.',
  })
  @ApiOkResponse({ type: WorkspaceFeaturesDto })
  @ApiProblemResponses(400, 404)
  update(@Ctx() ctx: WorkspaceContext, @Body() body: UpdateWorkspaceFeaturesDto) {
    return this.features.updateWorkspace(ctx, body);
  }
}

@ApiTags('features')
@ApiSlugParam()
@ApiUuidParam('project_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/features')
export class ProjectFeaturesController {
  constructor(private readonly features: FeaturesService) {}

  @Versioned('project_features', { project_id: '@project' })
  @Get()
  @Authenticated({ scope: 'projects.features:read', project: ProjectRole.Guest })
  @ApiOperation({ operationId: 'project_features_get', summary: 'Get project features' })
  @ApiOkResponse({ type: ProjectFeaturesDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext) {
    return this.features.getProject(ctx);
  }

  @Versioned('project_features', { project_id: '@project' })
  @Patch()
  @Authenticated({ scope: 'projects.features:write', project: ProjectRole.Admin })
  @ApiOperation({
    operationId: 'project_features_update',
    summary: 'Update project features',
    description:
      'Partial; a non-boolean flag is 400; unknown keys are ignored. A disabled feature makes its writes 400 naming the flag; reads keep working. ' +
      'Every change is recorded in the audit trail as project.features_updated (category settings).',
  })
  @ApiOkResponse({ type: ProjectFeaturesDto })
  @ApiProblemResponses(400, 404)
  update(@Ctx() ctx: ProjectContext, @Body() body: UpdateProjectFeaturesDto) {
    return this.features.updateProject(ctx, body);
  }
}
