import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { InvalidatesAuthCache } from '../common/auth/auth-cache';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import { ProjectRole, WorkspaceRole } from '../common/auth/roles';
import { Bodyless } from '../common/http/bodyless';
import { UpdateProjectFeaturesDto, UpdateWorkspaceFeaturesDto } from '../features/features.dto';
import { EstimatesService } from '../estimates/estimates.service';
import { FeaturesService } from '../features/features.service';
import { CreateProjectDto, UpdateProjectDto } from '../projects/projects.dto';
import { PROJECT_LIST } from '../projects/projects.queries';
import { ProjectsService } from '../projects/projects.service';
import { V1ListParams, v1List, V1Page } from './v1-list';
import { asV2Body, fromV1 } from './v1-shape';
import { V1Shaper } from './v1-shaper';
import { V1Transaction } from './v1-transaction';
import { V1_RECORDS, v1Object, V1Returns } from './v1-responses';

const PROJECT_IN = { project_lead: 'project_lead_id', default_assignee: 'default_assignee_id' };
const READ = { scope: 'projects:read', project: ProjectRole.Guest } as const;
const WRITE = { scope: 'projects:write', project: ProjectRole.Admin } as const;

/** v1's feature flag names and the v2 flag each one is (flags v2 does not have read false and are not stored). */
const PROJECT_FEATURES: Record<string, string> = {
  epics: 'is_epic_enabled',
  modules: 'is_modules_enabled',
  cycles: 'is_cycles_enabled',
  views: '',
  pages: '',
  intakes: '',
  work_item_types: '',
};
const WORKSPACE_FEATURES: Record<string, string> = {
  project_grouping: 'is_project_grouping_enabled',
  initiatives: 'is_initiative_enabled',
  teams: 'is_teams_enabled',
  customers: 'is_customer_enabled',
  wiki: 'is_wiki_enabled',
  pi: 'is_pi_enabled',
};

function featuresOut(names: Record<string, string>, v2: object): Record<string, boolean> {
  const flags = v2 as Record<string, unknown>;
  return Object.fromEntries(Object.entries(names).map(([v1, key]) => [v1, key ? flags[key] === true : false]));
}

function featuresIn(names: Record<string, string>, body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (names[key]) out[names[key]] = value;
  return out;
}

@ApiTags('v1 projects')
@InvalidatesAuthCache()
@Controller('api/v1/workspaces/:slug')
export class V1ProjectsController {
  constructor(
    private readonly projects: ProjectsService,
    private readonly features: FeaturesService,
    private readonly estimates: EstimatesService,
    private readonly shape: V1Shaper,
    private readonly tx: V1Transaction,
  ) {}

  @Get('projects')
  @Authenticated({ scope: 'projects:read', workspace: WorkspaceRole.Guest })
  @V1Returns({ record: V1_RECORDS.project, list: 'page' })
  @ApiOperation({ operationId: 'v1_projects_list' })
  async list(@Ctx() ctx: WorkspaceContext, @V1ListParams(PROJECT_LIST) page: V1Page) {
    const env = await this.projects.list(ctx, page.query);
    return v1List({ ...env, data: await this.shape.many('projects', ctx, env.data) }, page, (r) => r);
  }

  @Post('projects')
  @Authenticated({ scope: 'projects:write', workspace: WorkspaceRole.Member })
  @V1Returns({ record: V1_RECORDS.project })
  @ApiOperation({ operationId: 'v1_projects_create' })
  async create(@Ctx() ctx: WorkspaceContext, @Body() body: unknown) {
    const dto = await asV2Body(CreateProjectDto, fromV1(body, PROJECT_IN));
    return this.shape.one('projects', ctx, await this.projects.create(ctx, dto));
  }

  @Get('projects/:project_id')
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.project })
  @ApiOperation({ operationId: 'v1_projects_get' })
  async get(@Ctx() ctx: ProjectContext) {
    return this.shape.one('projects', ctx, await this.projects.get(ctx));
  }

  @Patch('projects/:project_id')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.project })
  @ApiOperation({ operationId: 'v1_projects_update' })
  async update(@Ctx() ctx: ProjectContext, @Body() body: unknown) {
    const dto = await asV2Body(UpdateProjectDto, fromV1(body, PROJECT_IN));
    // v1 names the project's estimate on the project (SDK estimates.linkToProject): v2 activates it.
    // Both commit together: a refused project change leaves the estimate as it was.
    const estimate = (body as Record<string, unknown> | null)?.estimate;
    const updated = await this.tx.run(async () => {
      if (typeof estimate === 'string') await this.estimates.update(ctx, estimate, { is_active: true }, new Set());
      return this.projects.update(ctx, dto);
    });
    return this.shape.one('projects', ctx, updated);
  }

  @Put('projects/:project_id')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.project })
  @ApiOperation({ operationId: 'v1_projects_replace' })
  replace(@Ctx() ctx: ProjectContext, @Body() body: unknown) {
    return this.update(ctx, body);
  }

  @Delete('projects/:project_id')
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_projects_delete' })
  async remove(@Ctx() ctx: ProjectContext): Promise<void> {
    await this.projects.remove(ctx);
  }

  @Post('projects/:project_id/archive')
  @Bodyless()
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({ status: 204 })
  @ApiOperation({
    operationId: 'v1_projects_archive',
    description: "v2's archive: writes under the project are 409 until it is unarchived.",
  })
  async archive(@Ctx() ctx: ProjectContext): Promise<void> {
    await this.projects.setArchived(ctx, true);
  }

  /** v1 unarchives with DELETE on the archive path (v2: POST unarchive/). */
  @Delete('projects/:project_id/archive')
  @HttpCode(204)
  @Authenticated({ ...WRITE, archivedProject: 'allowed' })
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_projects_unarchive' })
  async unarchive(@Ctx() ctx: ProjectContext): Promise<void> {
    await this.projects.setArchived(ctx, false);
  }

  @Get('projects/:project_id/features')
  @Authenticated({ scope: 'projects.features:read', project: ProjectRole.Guest })
  @V1Returns({ schema: v1Object(Object.keys(PROJECT_FEATURES), { type: 'boolean' }) })
  @ApiOperation({ operationId: 'v1_project_features_get' })
  async projectFeatures(@Ctx() ctx: ProjectContext) {
    return featuresOut(PROJECT_FEATURES, await this.features.getProject(ctx));
  }

  @Patch('projects/:project_id/features')
  @Authenticated({ scope: 'projects.features:write', project: ProjectRole.Admin })
  @V1Returns({ schema: v1Object(Object.keys(PROJECT_FEATURES), { type: 'boolean' }) })
  @ApiOperation({ operationId: 'v1_project_features_update' })
  async updateProjectFeatures(@Ctx() ctx: ProjectContext, @Body() body: unknown) {
    const dto = await asV2Body(UpdateProjectFeaturesDto, featuresIn(PROJECT_FEATURES, body));
    return featuresOut(PROJECT_FEATURES, await this.features.updateProject(ctx, dto));
  }

  @Get('features')
  @Authenticated({ scope: 'workspaces.features:read', workspace: WorkspaceRole.Guest })
  @V1Returns({ schema: v1Object(Object.keys(WORKSPACE_FEATURES), { type: 'boolean' }) })
  @ApiOperation({ operationId: 'v1_workspace_features_get' })
  async workspaceFeatures(@Ctx() ctx: WorkspaceContext) {
    return featuresOut(WORKSPACE_FEATURES, await this.features.getWorkspace(ctx));
  }

  @Patch('features')
  @Authenticated({ scope: 'workspaces.features:write', workspace: WorkspaceRole.Admin })
  @V1Returns({ schema: v1Object(Object.keys(WORKSPACE_FEATURES), { type: 'boolean' }) })
  @ApiOperation({ operationId: 'v1_workspace_features_update' })
  async updateWorkspaceFeatures(@Ctx() ctx: WorkspaceContext, @Body() body: unknown) {
    const dto = await asV2Body(UpdateWorkspaceFeaturesDto, featuresIn(WORKSPACE_FEATURES, body));
    return featuresOut(WORKSPACE_FEATURES, await this.features.updateWorkspace(ctx, dto));
  }
}
