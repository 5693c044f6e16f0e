import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole, WORK_ITEM_READER } from '../common/auth/roles';
import { ApiSlugParam, ApiUuidParam, UuidParam, WorkItemIdParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import {
  CreateWorkItemDependencyDto,
  CreateWorkItemRelationDto,
  RELATION_LIST_SCHEMA,
  WorkItemDependencyListDto,
} from './work-item-relations.dto';
import { WorkItemRelationsService } from './work-item-relations.service';

const READ = { scope: 'projects.work_items.relations:read', project: WORK_ITEM_READER } as const;
const WRITE = { scope: 'projects.work_items.relations:write', project: ProjectRole.Contributor } as const;
const PATH = 'api/v2/workspaces/:slug/projects/:project_id/work-items/:work_item_id';

@ApiTags('work-item-relations')
@ApiSlugParam()
@ApiUuidParam('project_id')
@ApiUuidParam('work_item_id')
@Controller(`${PATH}/relations`)
export class WorkItemRelationsController {
  constructor(private readonly relations: WorkItemRelationsService) {}

  @Get()
  @Authenticated(READ)
  @ApiOperation({
    operationId: 'work_item_relations_list',
    summary: 'List the relations of a work item, grouped by direction label',
    description: 'One object (not a page): every label of the live definitions, with the related work item ids.',
  })
  @ApiOkResponse({ schema: RELATION_LIST_SCHEMA })
  @ApiProblemResponses(400, 404)
  list(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') workItemId: string) {
    return this.relations.listRelations(ctx, workItemId);
  }

  @Post()
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'work_item_relations_create',
    summary: 'Relate a work item to others through a relation definition',
    description:
      'Relating a pair already related by this definition the same way changes nothing; the other way is 409. ' +
      'Answers the relation list.',
  })
  @ApiCreatedResponse({ schema: RELATION_LIST_SCHEMA })
  @ApiProblemResponses(400, 404, 409)
  create(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @Body() body: CreateWorkItemRelationDto,
  ) {
    return this.relations.createRelations(ctx, workItemId, body);
  }

  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'work_item_relations_destroy',
    summary: 'Remove the relations between this work item and another',
    description: '`pk` is the related work item: every relation between the two goes (both ends). None: 404.',
  })
  @ApiUuidParam('pk', 'The related work item')
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiProblemResponses(400, 404)
  async remove(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.relations.remove(ctx, workItemId, pk, 'relation');
  }
}

@ApiTags('work-item-dependencies')
@ApiSlugParam()
@ApiUuidParam('project_id')
@ApiUuidParam('work_item_id')
@Controller(`${PATH}/dependencies`)
export class WorkItemDependenciesController {
  constructor(private readonly relations: WorkItemRelationsService) {}

  @Get()
  @Authenticated(READ)
  @ApiOperation({
    operationId: 'work_item_dependencies_list',
    summary: 'List the dependencies of a work item, grouped by the six fixed keys',
  })
  @ApiOkResponse({ type: WorkItemDependencyListDto })
  @ApiProblemResponses(400, 404)
  list(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') workItemId: string) {
    return this.relations.listDependencies(ctx, workItemId);
  }

  @Post()
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'work_item_dependencies_create',
    summary: 'Add a typed dependency between a work item and others',
    description:
      'A blocking B is B blocked_by A (one dependency, read from both ends); the same dependency the other way ' +
      'round is 409. Answers the dependency list.',
  })
  @ApiCreatedResponse({ type: WorkItemDependencyListDto })
  @ApiProblemResponses(400, 404, 409)
  create(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @Body() body: CreateWorkItemDependencyDto,
  ) {
    return this.relations.createDependencies(ctx, workItemId, body);
  }

  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'work_item_dependencies_destroy',
    summary: 'Remove the dependencies between this work item and another',
    description: '`pk` is the related work item. None: 404.',
  })
  @ApiUuidParam('pk', 'The related work item')
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiProblemResponses(400, 404)
  async remove(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.relations.remove(ctx, workItemId, pk, 'dependency');
  }
}
