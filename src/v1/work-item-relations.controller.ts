import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole, WORK_ITEM_READER } from '../common/auth/roles';
import { ErrorCode } from '../common/errors/error-codes';
import { ProblemException } from '../common/errors/problem.exception';
import { WorkItemIdParam } from '../common/http/params';
import { RelationDefinitionsService } from '../work-item-relations/relation-definitions.service';
import {
  CreateWorkItemDependencyDto,
  CreateWorkItemRelationDto,
  DEPENDENCY_TYPES,
} from '../work-item-relations/work-item-relations.dto';
import { WorkItemRelationsService } from '../work-item-relations/work-item-relations.service';
import { asV2Body } from './v1-shape';
import { V1Transaction } from './v1-transaction';
import { v1Object, V1_UUIDS, V1Returns } from './v1-responses';

const READ = { scope: 'projects.work_items.relations:read', project: WORK_ITEM_READER } as const;
const WRITE = { scope: 'projects.work_items.relations:write', project: ProjectRole.Contributor } as const;

/** v1's relation types that are v2 relations through a built-in definition (seeded in every workspace). */
const BUILT_IN: Record<string, string> = { duplicate: 'Duplicate', relates_to: 'Relates' };
const V1_TYPES = [...DEPENDENCY_TYPES, ...Object.keys(BUILT_IN)];

/** v1's relation list (SDK `WorkItemRelationResponse`): the related ids under each of the eight types. */
const V1_RELATION_LIST = v1Object(V1_TYPES, V1_UUIDS);

/** v1's relation removal body (SDK `WorkItemRelationRemoveRequest`). */
export class V1RelationRemoveDto {
  @ApiProperty({ format: 'uuid', description: 'The related work item.' })
  @IsUUID('all')
  related_issue!: string;
}

/**
 * Relations through v1 (SDK `WorkItemRelationResponse`): one object with v1's eight keys. `blocking`,
 * `blocked_by`, `start_before`, `start_after`, `finish_before`, `finish_after` are v2's dependencies of the same
 * names; `duplicate` is the built-in Duplicate definition (both directions), `relates_to` the built-in Relates.
 * Relations through custom definitions are v2-only.
 */
@ApiTags('v1 relations')
@Controller('api/v1/workspaces/:slug/projects/:project_id/work-items/:work_item_id/relations')
export class V1WorkItemRelationsController {
  constructor(
    private readonly relations: WorkItemRelationsService,
    private readonly definitions: RelationDefinitionsService,
    private readonly tx: V1Transaction,
  ) {}

  private async builtIn(ctx: ProjectContext, name: string) {
    const def = (await this.definitions.all(ctx.workspace.id)).find((d) => d.is_default && d.name === name);
    if (!def) throw ProblemException.notFound('Relation definition');
    return def;
  }

  private async v1Relations(ctx: ProjectContext, item: string): Promise<Record<string, string[]>> {
    const [byLabel, deps, dup, rel] = await Promise.all([
      this.relations.listRelations(ctx, item),
      this.relations.listDependencies(ctx, item),
      this.builtIn(ctx, BUILT_IN.duplicate),
      this.builtIn(ctx, BUILT_IN.relates_to),
    ]);
    const duplicate = [...new Set([...(byLabel[dup.outward] ?? []), ...(byLabel[dup.inward] ?? [])])].sort();
    return { ...deps, duplicate, relates_to: byLabel[rel.outward] ?? [] };
  }

  @Get()
  @Authenticated(READ)
  @V1Returns({ schema: V1_RELATION_LIST })
  @ApiOperation({ operationId: 'v1_relations_list' })
  list(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') item: string) {
    return this.v1Relations(ctx, item);
  }

  @Post()
  @Authenticated(WRITE)
  @V1Returns({ schema: V1_RELATION_LIST })
  @ApiOperation({
    operationId: 'v1_relations_create',
    description: '`{relation_type, issues}`; answers the relation object (v1 keys).',
  })
  async create(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') item: string, @Body() body: unknown) {
    const src = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const type = src.relation_type;
    if (typeof type !== 'string' || !V1_TYPES.includes(type))
      throw ProblemException.validation('relation_type', `relation_type must be one of: ${V1_TYPES.join(', ')}`);
    if (BUILT_IN[type]) {
      const def = await this.builtIn(ctx, BUILT_IN[type]);
      const v2 = { relation_definition_id: def.id, direction: def.outward, work_item_ids: src.issues };
      await this.relations.createRelations(ctx, item, await asV2Body(CreateWorkItemRelationDto, v2));
    } else {
      const v2 = { relation_type: type, work_item_ids: src.issues };
      await this.relations.createDependencies(ctx, item, await asV2Body(CreateWorkItemDependencyDto, v2));
    }
    return this.v1Relations(ctx, item);
  }

  @Post('remove')
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({ status: 204 })
  @ApiOperation({
    operationId: 'v1_relations_remove',
    description: '`{related_issue}`: every relation and dependency between the two work items goes; none is 404.',
  })
  async remove(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @Body() body: unknown,
  ): Promise<void> {
    const { related_issue: other } = await asV2Body(V1RelationRemoveDto, body);
    // v1 has one kind of relation, v2 two: both removals commit together, and only when neither had one is it 404.
    await this.tx.run(async () => {
      let removed = 0;
      for (const kind of ['relation', 'dependency'] as const) {
        removed += await this.relations.remove(ctx, item, other, kind).then(
          () => 1,
          (e: unknown) => {
            if (e instanceof ProblemException && e.code === ErrorCode.ResourceNotFound) return 0;
            throw e;
          },
        );
      }
      if (!removed) throw ProblemException.notFound('Relation');
    });
  }
}
