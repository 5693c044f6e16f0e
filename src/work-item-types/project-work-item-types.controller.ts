import { Bodyless } from '../common/http/bodyless';
import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query, UseGuards } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { UuidParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { SchemaCustomFieldDto, SchemaFieldDto, TypeSchemaDto } from './type-schema.dto';
import { TypeSchemaService } from './type-schema.service';
import { TypeModeGuard, TypeSurface } from './type-surface';
import {
  CreateWorkItemTypeDto,
  ImportWorkItemTypesDto,
  UpdateWorkItemTypeDto,
  WorkItemTypeDto,
} from './work-item-types.dto';
import { TYPE_LIST } from './work-item-types.queries';
import { projectOwner, WorkItemTypesService } from './work-item-types.service';
import { Versioned } from '../common/http/conditional';

@ApiTags('work-item-types')
@ApiSlugParam()
@ApiUuidParam('project_id')
@UseGuards(TypeModeGuard)
@Controller('api/v2/workspaces/:slug/projects/:project_id/work-item-types')
export class ProjectWorkItemTypesController {
  constructor(
    private readonly types: WorkItemTypesService,
    private readonly schema: TypeSchemaService,
  ) {}

  @Get()
  @Authenticated({ scope: 'projects.work_item_types:read', project: ProjectRole.Guest })
  @ApiOperation({
    operationId: 'project_work_item_types_list',
    summary: "List the project's work item types",
    description:
      "The project's own types and the workspace-level types imported into it, epic types included (is_epic tells them apart). Empty when never enabled. Works in either mode.",
  })
  @ApiListQuery(TYPE_LIST)
  @ApiListResponse(WorkItemTypeDto)
  list(@Ctx() ctx: ProjectContext, @ListParams(TYPE_LIST) q: ListQuery) {
    return this.types.list(projectOwner(ctx), q);
  }

  @Post()
  @Authenticated({ scope: 'projects.work_item_types:write', project: ProjectRole.Admin })
  @TypeSurface('project', 'name or external_id/external_source pair already used in the project')
  @ApiOperation({
    operationId: 'project_work_item_types_create',
    summary: 'Create a work item type (project mode)',
    description:
      'is_default, is_epic, level and logo_props are not accepted. A project never enabled is enabled first (Task and Epic seeded).',
  })
  @ApiCreatedResponse({ type: WorkItemTypeDto })
  @ApiProblemResponses(400, 404)
  create(@Ctx() ctx: ProjectContext, @Body() body: CreateWorkItemTypeDto) {
    return this.types.create(ctx, projectOwner(ctx), body);
  }

  @Post('enable')
  @Bodyless()
  @HttpCode(200)
  @Authenticated({ scope: 'projects.work_item_types:write', project: ProjectRole.Admin })
  @TypeSurface('project')
  @ApiOperation({
    operationId: 'project_work_item_types_enable',
    summary: 'Enable work item types for the project (project mode)',
    description:
      'No body. Seeds the default type "Task" and an epic type once; returns the default type. Idempotent: a repeat returns the same default type.',
  })
  @ApiOkResponse({ type: WorkItemTypeDto })
  @ApiProblemResponses(400, 404)
  enable(@Ctx() ctx: ProjectContext) {
    return this.types.enable(ctx);
  }

  @Post('import')
  @HttpCode(200)
  @Authenticated({ scope: 'projects.work_item_types:write', project: ProjectRole.Admin })
  @TypeSurface('workspace')
  @ApiOperation({
    operationId: 'project_work_item_types_import',
    summary: 'Import workspace-level types into the project (workspace mode)',
    description:
      'Adds the types to the project roster (nothing is copied); additive and idempotent. Every id must be a workspace-level type of the workspace, else 400 and nothing is imported. 200 with an empty body.',
  })
  @ApiOkResponse({ description: 'Imported; empty body.' })
  @ApiProblemResponses(400, 404)
  async import(@Ctx() ctx: ProjectContext, @Body() body: ImportWorkItemTypesDto): Promise<void> {
    await this.types.importTypes(ctx, body);
  }

  @Versioned('work_item_types')
  @Get(':pk')
  @Authenticated({ scope: 'projects.work_item_types:read', project: ProjectRole.Guest })
  @ApiOperation({
    operationId: 'project_work_item_types_get',
    summary: 'Get a work item type of the project (own or imported)',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemTypeDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string) {
    return this.types.get(projectOwner(ctx), pk);
  }

  @Versioned('work_item_types')
  @Patch(':pk')
  @Authenticated({ scope: 'projects.work_item_types:write', project: ProjectRole.Admin })
  @TypeSurface('project', 'name or external pair already used')
  @ApiOperation({
    operationId: 'project_work_item_types_update',
    summary: 'Update a work item type (project mode)',
    description:
      "Same writable set as create. is_active false on the default type is 400. An imported workspace type is not the project's own: 404.",
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemTypeDto })
  @ApiProblemResponses(400, 404)
  update(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Body() body: UpdateWorkItemTypeDto) {
    return this.types.update(ctx, projectOwner(ctx), pk, body);
  }

  @Versioned('work_item_types')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated({ scope: 'projects.work_item_types:write', project: ProjectRole.Admin })
  @TypeSurface('project', 'the default type, or a type still used by work items')
  @ApiOperation({
    operationId: 'project_work_item_types_delete',
    summary: 'Delete a work item type (project mode, soft)',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.types.remove(ctx, projectOwner(ctx), pk);
  }

  @Post(':pk/mark-default')
  @Bodyless()
  @HttpCode(200)
  @Authenticated({ scope: 'projects.work_item_types:write', project: ProjectRole.Admin })
  @TypeSurface('project')
  @ApiOperation({
    operationId: 'project_work_item_types_mark_default',
    summary: 'Make a type the project default (project mode)',
    description:
      'No body. Returns the promoted type; the previous default is demoted in the same operation. Epic and inactive types cannot be the default (400).',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: WorkItemTypeDto })
  @ApiProblemResponses(400, 404)
  markDefault(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string) {
    return this.types.markDefault(ctx, projectOwner(ctx), pk);
  }

  @Get(':pk/schema')
  @Authenticated({ scope: 'projects.work_item_types:read', project: ProjectRole.Guest })
  @ApiOperation({
    operationId: 'project_work_item_types_schema',
    summary: 'Work item schema of a type in this project',
    description:
      "Standard fields with their options, the type's custom fields as they resolve in this project (contexts applied), and a JSON Schema of `custom_fields` for client-side validation. Works for own and imported types, in either mode.",
  })
  @ApiUuidParam('pk')
  @ApiQuery({
    name: 'include',
    required: false,
    schema: { type: 'string', enum: ['members', 'labels', 'members,labels'] },
    description: 'Comma-separated: inline assignee (members) and label option lists.',
  })
  @ApiExtraModels(SchemaFieldDto, SchemaCustomFieldDto)
  @ApiOkResponse({ type: TypeSchemaDto })
  @ApiProblemResponses(400, 404)
  getSchema(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @Query('include') include: unknown) {
    return this.schema.schema(ctx, pk, include);
  }
}
