import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import { ProjectRole, WorkspaceRole } from '../common/auth/roles';
import { CYCLE_LIST } from '../cycles/cycles.queries';
import { CyclesService } from '../cycles/cycles.service';
import { MODULE_LIST } from '../modules/modules.queries';
import { ModulesService } from '../modules/modules.service';
import { PROJECT_LIST } from '../projects/projects.queries';
import { ProjectsService } from '../projects/projects.service';
import { V1ListParams, v1List, V1Page } from './v1-list';
import { V1_RECORDS, V1Returns } from './v1-responses';
import { V1Shaper } from './v1-shaper';

/**
 * v1's `*-lite` lists (pickers): the same v2 lists, filters and pages as the full ones. They answer the full v1
 * records, a superset of the lite fields the SDK reads (`id`, `name`, `identifier`, dates), rather than a second
 * projection of each resource.
 */
@ApiTags('v1 lite lists')
@Controller('api/v1/workspaces/:slug')
export class V1LiteListsController {
  constructor(
    private readonly projects: ProjectsService,
    private readonly cycles: CyclesService,
    private readonly modules: ModulesService,
    private readonly shape: V1Shaper,
  ) {}

  @Get('projects-lite')
  @Authenticated({ scope: 'projects:read', workspace: WorkspaceRole.Guest })
  @V1Returns({ record: V1_RECORDS.project, list: 'page' })
  @ApiOperation({ operationId: 'v1_projects_lite' })
  async projectsLite(@Ctx() ctx: WorkspaceContext, @V1ListParams(PROJECT_LIST) page: V1Page) {
    const env = await this.projects.list(ctx, page.query);
    return v1List({ ...env, data: await this.shape.many('projects', ctx, env.data) }, page, (r) => r);
  }

  @Get('projects/:project_id/cycles-lite')
  @Authenticated({ scope: 'projects.cycles:read', project: ProjectRole.Guest })
  @V1Returns({ record: V1_RECORDS.cycle, list: 'page' })
  @ApiOperation({ operationId: 'v1_cycles_lite' })
  async cyclesLite(@Ctx() ctx: ProjectContext, @V1ListParams(CYCLE_LIST) page: V1Page) {
    const env = await this.cycles.list(ctx, page.query);
    return v1List({ ...env, data: await this.shape.many('cycles', ctx, env.data) }, page, (r) => r);
  }

  @Get('projects/:project_id/modules-lite')
  @Authenticated({ scope: 'projects.modules:read', project: ProjectRole.Guest })
  @V1Returns({ record: V1_RECORDS.module, list: 'page' })
  @ApiOperation({ operationId: 'v1_modules_lite' })
  async modulesLite(@Ctx() ctx: ProjectContext, @V1ListParams(MODULE_LIST) page: V1Page) {
    const env = await this.modules.list(ctx, page.query);
    return v1List({ ...env, data: await this.shape.many('modules', ctx, env.data) }, page, (r) => r);
  }
}
