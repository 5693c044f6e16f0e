import { Versioned } from '../common/http/conditional';
import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, WorkspaceContext } from '../common/auth/request-context';
import { WorkspaceRole } from '../common/auth/roles';
import { ApiSlugParam, ApiUuidParam, UuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import {
  CreateRelationDefinitionDto,
  RelationDefinitionDto,
  UpdateRelationDefinitionDto,
} from './relation-definitions.dto';
import { DEFINITION_LIST } from './relation-definitions.queries';
import { RelationDefinitionsService } from './relation-definitions.service';

const READ = { scope: 'workspaces.work_item_relation_definitions:read', workspace: WorkspaceRole.Guest } as const;
const WRITE = { scope: 'workspaces.work_item_relation_definitions:write', workspace: WorkspaceRole.Admin } as const;

@ApiTags('work-item-relation-definitions')
@ApiSlugParam()
@Controller('api/v2/workspaces/:slug/work-item-relation-definitions')
export class RelationDefinitionsController {
  constructor(private readonly definitions: RelationDefinitionsService) {}

  @Get()
  @Authenticated(READ)
  @ApiOperation({
    operationId: 'work_item_relation_definitions_list',
    summary: 'List the relation definitions of the workspace',
    description: 'The built-in ones (is_default: blocks, duplicates, relates to) and the custom ones.',
  })
  @ApiListQuery(DEFINITION_LIST)
  @ApiListResponse(RelationDefinitionDto)
  list(@Ctx() ctx: WorkspaceContext, @ListParams(DEFINITION_LIST) q: ListQuery) {
    return this.definitions.list(ctx, q);
  }

  @Post()
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'work_item_relation_definitions_create',
    summary: 'Create a relation definition',
    description: 'name, outward and inward required; a name or label already used in the workspace is 409.',
  })
  @ApiCreatedResponse({ type: RelationDefinitionDto })
  @ApiProblemResponses(400, 404, 409)
  create(@Ctx() ctx: WorkspaceContext, @Body() body: CreateRelationDefinitionDto) {
    return this.definitions.create(ctx, body);
  }

  @Versioned('work_item_relation_definitions')
  @Get(':pk')
  @Authenticated(READ)
  @ApiOperation({ operationId: 'work_item_relation_definitions_retrieve', summary: 'Get a relation definition' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: RelationDefinitionDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string) {
    return this.definitions.get(ctx, pk);
  }

  @Versioned('work_item_relation_definitions')
  @Patch(':pk')
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'work_item_relation_definitions_partial_update',
    summary: 'Update a relation definition (partial)',
    description: 'Built-in definitions cannot be changed (409). Renaming a label renames it on every relation.',
  })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: RelationDefinitionDto })
  @ApiProblemResponses(400, 404, 409)
  update(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string, @Body() body: UpdateRelationDefinitionDto) {
    return this.definitions.update(ctx, pk, body);
  }

  @Versioned('work_item_relation_definitions')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @ApiOperation({
    operationId: 'work_item_relation_definitions_destroy',
    summary: 'Delete a relation definition (soft)',
    description: "Its relations are removed with it (each removal in both items' history). Built-in ones: 409.",
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404, 409)
  async remove(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.definitions.remove(ctx, pk);
  }
}
