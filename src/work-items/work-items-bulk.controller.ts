import { ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { ApiBulkResponses, BULK_MAX_ITEMS, BulkDeleteBodyDto, BulkWriteBodyDto } from '../common/bulk/bulk';
import { Expandable, ExpandParam } from '../common/expand/expand';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { WorkItemsBulkService } from './work-items-bulk.service';
import { CreateWorkItemDto, WORK_ITEM_EXPAND, WorkItemDto } from './work-items.dto';

const BULK_400: [number, string] = [
  400,
  `\`validation_error\`: the envelope is malformed (items / ids missing, empty or over ${BULK_MAX_ITEMS}, all_or_none not a boolean); a row's own problems are answered in results`,
];
const PER_ROW =
  'Each row is answered in `results` by its index: `{index, result, id}`, or the problem members of its failure (`type`, `code`, `detail`, `errors`) with `result: "failed"`; 200 even when rows failed. With `all_or_none: true` a failed row means nothing was written: 409 with the same results.';

/** The later edition's bulk and upsert siblings of the work item collection (gap-reference 9.6). */
@ApiTags('work-items')
@ApiSlugParam()
@ApiUuidParam('project_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/work-items')
export class WorkItemsBulkController {
  constructor(private readonly bulk: WorkItemsBulkService) {}

  @Post('bulk-create')
  @HttpCode(200)
  @Authenticated({ scope: 'projects.work_items:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'work_items_bulk_create',
    summary: 'Create work items in bulk',
    description: `Up to ${BULK_MAX_ITEMS} create bodies, each checked like a single create (same rules, defaults and 409 of a reused external pair, also between rows of the request), written in one transaction by one insert statement. ${PER_ROW}`,
  })
  @ApiBulkResponses()
  @ApiProblemResponses(BULK_400, 404)
  create(@Ctx() ctx: ProjectContext, @Body() body: BulkWriteBodyDto) {
    return this.bulk.bulkCreate(ctx, body.items, body.all_or_none ?? false);
  }

  @Post('bulk-update')
  @HttpCode(200)
  @Authenticated({ scope: 'projects.work_items:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'work_items_bulk_update',
    summary: 'Update work items in bulk',
    description: `Up to ${BULK_MAX_ITEMS} PATCH bodies, each with the \`id\` of a work item of this project (unknown or foreign: that row is 404), each checked like a single PATCH (workflow transitions, cycle_id and module_ids included), then written together: one statement for the fields and sets, one per kind of membership, in one transaction. One row per work item: a row naming an item an earlier row updates, or an external pair an earlier row takes, is 409; a parent loop closed between rows fails the later row (400 parent_id). ${PER_ROW}`,
  })
  @ApiBulkResponses()
  @ApiProblemResponses(BULK_400, 404)
  update(@Ctx() ctx: ProjectContext, @Body() body: BulkWriteBodyDto) {
    return this.bulk.bulkUpdate(ctx, body.items, body.all_or_none ?? false);
  }

  @Post('bulk-delete')
  @HttpCode(200)
  @Authenticated({ scope: 'projects.work_items:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'work_items_bulk_delete',
    summary: 'Delete work items in bulk (soft)',
    description: `Up to ${BULK_MAX_ITEMS} ids, each with the single delete's rule (project admins and the item's creator; unknown, foreign, archived or repeated ids are 404 rows), deleted by one statement. ${PER_ROW}`,
  })
  @ApiBulkResponses()
  @ApiProblemResponses(BULK_400, 404)
  remove(@Ctx() ctx: ProjectContext, @Body() body: BulkDeleteBodyDto) {
    return this.bulk.bulkDelete(ctx, body.ids, body.all_or_none ?? false);
  }

  @Post('upsert')
  @Authenticated({ scope: 'projects.work_items:write', project: ProjectRole.Contributor })
  @ApiOperation({
    operationId: 'work_items_upsert',
    summary: 'Create or update a work item by its external pair',
    description:
      'A create body. With both external_source and external_id, the live work item of this project holding that pair is updated with it (PATCH rules; 200), else the item is created (create rules; 201). Without the pair it is a plain create. Sending it twice creates once.',
  })
  @Expandable(WORK_ITEM_EXPAND)
  @ApiOkResponse({ type: WorkItemDto, description: 'Updated' })
  @ApiCreatedResponse({ type: WorkItemDto, description: 'Created' })
  @ApiProblemResponses(400, 404, [409, '`conflict`: the pair was taken by a concurrent write'])
  async upsert(
    @Ctx() ctx: ProjectContext,
    @Body() body: CreateWorkItemDto,
    @ExpandParam() expand: Set<string>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WorkItemDto> {
    const { created, item } = await this.bulk.upsert(ctx, body, expand);
    void reply.status(created ? 201 : 200);
    return item;
  }
}
