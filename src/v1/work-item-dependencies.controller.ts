import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole, WORK_ITEM_READER } from '../common/auth/roles';
import { UuidParam, WorkItemIdParam } from '../common/http/params';
import {
  CreateWorkItemDependencyDto,
  CreateWorkItemRelationDto,
  DEPENDENCY_TYPES,
} from '../work-item-relations/work-item-relations.dto';
import { WorkItemRelationsService } from '../work-item-relations/work-item-relations.service';
import { V1RecordsRepository } from './v1-records.repository';
import { asV2Body, fromV1 } from './v1-shape';
import { v1Object, V1Returns } from './v1-responses';

const READ = { scope: 'projects.work_items.relations:read', project: WORK_ITEM_READER } as const;
const WRITE = { scope: 'projects.work_items.relations:write', project: ProjectRole.Contributor } as const;
const WI = 'api/v1/workspaces/:slug/projects/:project_id/work-items/:work_item_id';

/** v1 names a custom relation's direction `relation_definition_type`; v2 `direction`. */
const CUSTOM_IN = { relation_definition_type: 'direction' };

/** The SDK's `WorkItemWithRelationType` (the summary fields are absent only for an item gone meanwhile). */
const V1_RELATED_ITEM = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    sequence_id: { type: 'integer' },
    project_id: { type: 'string', format: 'uuid' },
    state_id: { type: 'string', format: 'uuid' },
    priority: { type: 'string' },
    type_id: { type: ['string', 'null'], format: 'uuid' },
    relation_type: { type: 'string' },
  },
  required: ['id', 'relation_type'],
};

/**
 * Related work items as the SDK's `WorkItemWithRelationType`: the item's summary (name, sequence_id, project_id,
 * state_id, priority, type_id) and the key it is listed under as `relation_type`.
 */
async function withRelationType(
  records: V1RecordsRepository,
  ctx: ProjectContext,
  grouped: Record<string, string[]>,
): Promise<Record<string, Array<Record<string, unknown>>>> {
  const summaries = await records.workItemSummaries(ctx.workspace.id, [...new Set(Object.values(grouped).flat())]);
  const out: Record<string, Array<Record<string, unknown>>> = {};
  for (const [key, ids] of Object.entries(grouped))
    out[key] = ids.map((id) => ({ id, ...(summaries.get(id) ?? {}), relation_type: key }));
  return out;
}

/** Dependencies through v1: v2's six keys, each listing the related items (not only their ids). */
@ApiTags('v1 relations')
@Controller(`${WI}/dependencies`)
export class V1WorkItemDependenciesController {
  constructor(
    private readonly relations: WorkItemRelationsService,
    private readonly records: V1RecordsRepository,
  ) {}

  @Get()
  @Authenticated(READ)
  @V1Returns({ schema: v1Object([...DEPENDENCY_TYPES], { type: 'array', items: V1_RELATED_ITEM }) })
  @ApiOperation({ operationId: 'v1_dependencies_list' })
  async list(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') item: string) {
    const deps = await this.relations.listDependencies(ctx, item);
    return withRelationType(this.records, ctx, { ...deps });
  }

  @Post()
  @Authenticated(WRITE)
  @V1Returns({ schema: { type: 'array', items: V1_RELATED_ITEM } })
  @ApiOperation({ operationId: 'v1_dependencies_create', description: 'Answers the items now related this way.' })
  async create(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') item: string, @Body() body: unknown) {
    const dto = await asV2Body(CreateWorkItemDependencyDto, body);
    await this.relations.createDependencies(ctx, item, dto);
    const out = await withRelationType(this.records, ctx, { [dto.relation_type]: dto.work_item_ids });
    return out[dto.relation_type];
  }

  @Delete(':related_id')
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_dependencies_delete' })
  async remove(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @UuidParam('related_id') other: string,
  ): Promise<void> {
    await this.relations.remove(ctx, item, other, 'dependency');
  }
}

/** Relations through workspace definitions (the SDK's custom relations): keyed by direction label. */
@ApiTags('v1 relations')
@Controller(`${WI}/work-item-relations`)
export class V1WorkItemCustomRelationsController {
  constructor(
    private readonly relations: WorkItemRelationsService,
    private readonly records: V1RecordsRepository,
  ) {}

  @Get()
  @Authenticated(READ)
  @V1Returns({ schema: { type: 'object', additionalProperties: { type: 'array', items: V1_RELATED_ITEM } } })
  @ApiOperation({ operationId: 'v1_custom_relations_list' })
  async list(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') item: string) {
    return withRelationType(this.records, ctx, await this.relations.listRelations(ctx, item));
  }

  @Post()
  @Authenticated(WRITE)
  @V1Returns({ schema: { type: 'array', items: V1_RELATED_ITEM } })
  @ApiOperation({
    operationId: 'v1_custom_relations_create',
    description: '`relation_definition_type` is the direction label; answers the items now related this way.',
  })
  async create(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') item: string, @Body() body: unknown) {
    const dto = await asV2Body(CreateWorkItemRelationDto, fromV1(body, CUSTOM_IN));
    await this.relations.createRelations(ctx, item, dto);
    const out = await withRelationType(this.records, ctx, { [dto.direction]: dto.work_item_ids });
    return out[dto.direction];
  }

  @Delete(':related_id')
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_custom_relations_delete' })
  async remove(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @UuidParam('related_id') other: string,
  ): Promise<void> {
    await this.relations.remove(ctx, item, other, 'relation');
  }
}
