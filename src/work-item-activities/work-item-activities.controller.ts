import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Expandable, ExpandParam } from '../common/expand/expand';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { WORK_ITEM_READER } from '../common/auth/roles';
import { ApiSlugParam, ApiUuidParam, UuidParam, WorkItemIdParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { WorkItemActivityDto } from './work-item-activities.dto';
import { ACTIVITY_EXPANDS } from './work-item-activities.mapper';
import { ACTIVITY_LIST } from './work-item-activities.queries';
import { WorkItemActivitiesService } from './work-item-activities.service';

@ApiTags('work-item-activities')
@ApiSlugParam()
@ApiUuidParam('project_id')
@ApiUuidParam('work_item_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/work-items/:work_item_id/activities')
export class WorkItemActivitiesController {
  constructor(private readonly activities: WorkItemActivitiesService) {}

  @Get()
  @Authenticated({ scope: 'projects.work_items.activities:read', project: WORK_ITEM_READER })
  @ApiOperation({
    operationId: 'activities_list',
    summary: "List a work item's history",
    description:
      'Every change of the work item, oldest first by default (`order_by=-created_at` for newest first): one entry ' +
      'per changed field, membership change, comment, link or relation. Written in the transaction of the change.',
  })
  @ApiListQuery(ACTIVITY_LIST)
  @Expandable(ACTIVITY_EXPANDS)
  @ApiListResponse(WorkItemActivityDto)
  list(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @ListParams(ACTIVITY_LIST) q: ListQuery,
    @ExpandParam() expand: Set<string>,
  ) {
    return this.activities.list(ctx, workItemId, q, expand);
  }

  @Get(':pk')
  @Authenticated({ scope: 'projects.work_items.activities:read', project: WORK_ITEM_READER })
  @ApiOperation({ operationId: 'activities_retrieve', summary: 'Get one history entry' })
  @ApiUuidParam('pk')
  @Expandable(ACTIVITY_EXPANDS)
  @ApiOkResponse({ type: WorkItemActivityDto })
  @ApiProblemResponses(400, 404)
  get(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @UuidParam('pk') pk: string,
    @ExpandParam() expand: Set<string>,
  ) {
    return this.activities.get(ctx, workItemId, pk, expand);
  }
}
