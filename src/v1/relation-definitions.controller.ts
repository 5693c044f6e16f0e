import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, WorkspaceContext } from '../common/auth/request-context';
import { WorkspaceRole } from '../common/auth/roles';
import { UuidParam } from '../common/http/params';
import {
  CreateRelationDefinitionDto,
  UpdateRelationDefinitionDto,
} from '../work-item-relations/relation-definitions.dto';
import { DEFINITION_LIST } from '../work-item-relations/relation-definitions.queries';
import { RelationDefinitionsService } from '../work-item-relations/relation-definitions.service';
import { everyRow, V1ListParams, V1Page } from './v1-list';
import { asV2Body } from './v1-shape';
import { V1Shaper } from './v1-shaper';
import { V1_RECORDS, V1Returns } from './v1-responses';

const READ = { scope: 'workspaces.work_item_relation_definitions:read', workspace: WorkspaceRole.Guest } as const;
const WRITE = { scope: 'workspaces.work_item_relation_definitions:write', workspace: WorkspaceRole.Admin } as const;

/** The workspace's relation definitions through v1: the list is an array (as the SDK reads it), filters kept. */
@ApiTags('v1 relations')
@Controller('api/v1/workspaces/:slug/work-item-relation-definitions')
export class V1RelationDefinitionsController {
  constructor(
    private readonly definitions: RelationDefinitionsService,
    private readonly shape: V1Shaper,
  ) {}

  @Get()
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.relationDefinition, list: 'array' })
  @ApiOperation({ operationId: 'v1_relation_definitions_list' })
  async list(@Ctx() ctx: WorkspaceContext, @V1ListParams(DEFINITION_LIST) page: V1Page) {
    const rows = await everyRow(DEFINITION_LIST, (q) =>
      this.definitions.list(ctx, { ...q, filters: page.query.filters }),
    );
    return this.shape.many('work_item_relation_definitions', ctx, rows);
  }

  @Post()
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.relationDefinition })
  @ApiOperation({ operationId: 'v1_relation_definitions_create' })
  async create(@Ctx() ctx: WorkspaceContext, @Body() body: unknown) {
    const dto = await asV2Body(CreateRelationDefinitionDto, body);
    return this.shape.one('work_item_relation_definitions', ctx, await this.definitions.create(ctx, dto));
  }

  @Get(':pk')
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.relationDefinition })
  @ApiOperation({ operationId: 'v1_relation_definitions_get' })
  async get(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string) {
    return this.shape.one('work_item_relation_definitions', ctx, await this.definitions.get(ctx, pk));
  }

  @Patch(':pk')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.relationDefinition })
  @ApiOperation({ operationId: 'v1_relation_definitions_update' })
  async update(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string, @Body() body: unknown) {
    const dto = await asV2Body(UpdateRelationDefinitionDto, body);
    return this.shape.one('work_item_relation_definitions', ctx, await this.definitions.update(ctx, pk, dto));
  }

  @Put(':pk')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.relationDefinition })
  @ApiOperation({ operationId: 'v1_relation_definitions_replace' })
  replace(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string, @Body() body: unknown) {
    return this.update(ctx, pk, body);
  }

  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_relation_definitions_delete' })
  async remove(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.definitions.remove(ctx, pk);
  }
}
