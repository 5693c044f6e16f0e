import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { UuidParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { WorkItemsChangeDto, WorkItemsMembershipDto } from '../common/membership/membership.dto';
import { CreateModuleDto, ModuleDto, UpdateModuleDto } from './modules.dto';
import { MODULE_LIST } from './modules.queries';
import { ModulesService } from './modules.service';
import { Versioned } from '../common/http/conditional';
import { Bodyless } from '../common/http/bodyless';

const DISABLED_400 =
  '`validation_error`: invalid field, or modules are disabled for the project (`is_modules_enabled` false)';
const ARCHIVED_409 = '`module_archived`: the module is archived (unarchive it first)';

@ApiTags('modules')
@ApiSlugParam()
@ApiUuidParam('project_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/modules')
export class ModulesController {
  constructor(private readonly modules: ModulesService) {}

  @Get()
  @Authenticated({ scope: 'projects.modules:read', project: ProjectRole.Guest })
  @ApiOperation({
    operationId: 'modules_list',
    summary: 'List modules',
    description:
      'Default order sort_order, which cannot anchor a cursor: with paginate=cursor send order_by=created_at or id. Works while the modules feature is off.',
  })
  @ApiListQuery(MODULE_LIST)
  @ApiListResponse(ModuleDto)
  list(@Ctx() ctx: ProjectContext, @ListParams(MODULE_LIST) q: ListQuery) {
    return this.modules.list(ctx, q);
  }

  @Post()
  @Authenticated({ scope: 'projects.modules:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'modules_create',
    summary: 'Create a module',
    description:
      'status defaults to planned; lead_id must be a project member; target_date not before start_date; placed ahead of the existing modules; member_ids empty.',
  })
  @ApiCreatedResponse({ type: ModuleDto })
  @ApiProblemResponses([400, DISABLED_400], 404, [409, '`conflict`: name in use in this project'])
  create(@Ctx() ctx: ProjectContext, @Body() body: CreateModuleDto) {
    return this.modules.create(ctx, body);
  }

  @Versioned('modules')
  @Get(':pk')
  @Authenticated({ scope: 'projects.modules:read', project: ProjectRole.Guest })
  @ApiOperation({ operationId: 'modules_get', summary: 'Get a module' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: ModuleDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string) {
    return this.modules.get(ctx, pk);
  }

  @Versioned('modules')
  @Patch(':pk')
  @Authenticated({ scope: 'projects.modules:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'modules_update',
    summary: 'Update a module',
    description:
      'Partial; any status may follow any other; target_date is checked against the stored start_date too; member_ids, archived_at and audit fields are ignored.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: ModuleDto })
  @ApiProblemResponses([400, DISABLED_400], 404, [409, `\`conflict\`: name in use in this project; ${ARCHIVED_409}`])
  update(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: UpdateModuleDto) {
    return this.modules.update(ctx, pk, body);
  }

  @Versioned('modules')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated({ scope: 'projects.modules:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'modules_delete',
    summary: 'Delete a module (soft)',
    description: 'The name is freed; its work items stay in the project, only the grouping goes. A repeat is 404.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses([400, DISABLED_400], 404, [409, ARCHIVED_409])
  async remove(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.modules.remove(ctx, pk);
  }

  @Post(':pk/work-items')
  @HttpCode(200)
  @Authenticated({ scope: 'projects.modules:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'modules_work_items',
    summary: 'Add or remove module work items',
    description:
      'A work item may be in any number of modules. Ids that are not work items of this project make the whole request 400 naming them. ' +
      '`added` lists the ids newly linked, `removed` those unlinked.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemsChangeDto })
  @ApiProblemResponses([400, DISABLED_400], 404, [409, ARCHIVED_409])
  changeWorkItems(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: WorkItemsMembershipDto) {
    return this.modules.changeWorkItems(ctx, pk, body);
  }

  @Post(':pk/archive')
  @Bodyless()
  @HttpCode(200)
  @Authenticated({ scope: 'projects.modules:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'modules_archive',
    summary: 'Archive a module',
    description:
      'Bodyless. Only a module whose status is completed or cancelled can be archived, as in Plane. The module ' +
      'leaves the module list and the detail read (listed by GET .../archived-modules/); its work items stay in it; ' +
      'every write to it is 409 `module_archived` until it is unarchived, archiving it again included.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: ModuleDto })
  @ApiProblemResponses([400, DISABLED_400], 404, [
    409,
    `\`not_archivable\`: the module's status is neither completed nor cancelled; ${ARCHIVED_409}`,
  ])
  archive(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string) {
    return this.modules.setArchived(ctx, pk, true);
  }

  @Post(':pk/unarchive')
  @Bodyless()
  @HttpCode(200)
  @Authenticated({ scope: 'projects.modules:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'modules_unarchive',
    summary: 'Unarchive a module',
    description: 'Bodyless; idempotent (a module that is not archived is returned unchanged).',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: ModuleDto })
  @ApiProblemResponses([400, DISABLED_400], 404)
  unarchive(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string) {
    return this.modules.setArchived(ctx, pk, false);
  }
}

@ApiTags('modules')
@ApiSlugParam()
@ApiUuidParam('project_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/archived-modules')
export class ArchivedModulesController {
  constructor(private readonly modules: ModulesService) {}

  @Get()
  @Authenticated({ scope: 'projects.modules:read', project: ProjectRole.Guest })
  @ApiOperation({
    operationId: 'modules_list_archived',
    summary: 'List archived modules',
    description: "The project's archived modules, with the module list's filters, orderings and pagination.",
  })
  @ApiListQuery(MODULE_LIST)
  @ApiListResponse(ModuleDto)
  list(@Ctx() ctx: ProjectContext, @ListParams(MODULE_LIST) q: ListQuery) {
    return this.modules.listArchived(ctx, q);
  }
}
