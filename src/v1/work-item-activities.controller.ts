import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { WORK_ITEM_READER } from '../common/auth/roles';
import { UuidParam, WorkItemIdParam } from '../common/http/params';
import { ACTIVITY_LIST } from '../work-item-activities/work-item-activities.queries';
import { WorkItemActivitiesService } from '../work-item-activities/work-item-activities.service';
import { V1ListParams, v1List, V1Page } from './v1-list';
import { V1Shaper } from './v1-shaper';
import { V1_RECORDS, V1Returns } from './v1-responses';

const READ = { scope: 'projects.work_items.activities:read', project: WORK_ITEM_READER } as const;

/**
 * A work item's history through v1 (SDK `WorkItemActivity`): v2's entries with v1's names (`issue`, `actor`,
 * `issue_comment`, `old_identifier`, `new_identifier`), `project`, `workspace` and `updated_at` (= created_at).
 */
@ApiTags('v1 activities')
@Controller('api/v1/workspaces/:slug/projects/:project_id/work-items/:work_item_id/activities')
export class V1WorkItemActivitiesController {
  constructor(
    private readonly activities: WorkItemActivitiesService,
    private readonly shape: V1Shaper,
  ) {}

  @Get()
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.activity, list: 'page' })
  @ApiOperation({ operationId: 'v1_activities_list' })
  async list(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @V1ListParams(ACTIVITY_LIST) page: V1Page,
  ) {
    const env = await this.activities.list(ctx, item, page.query);
    return v1List({ ...env, data: await this.shape.many('work_item_activities', ctx, env.data) }, page, (r) => r);
  }

  @Get(':pk')
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.activity })
  @ApiOperation({ operationId: 'v1_activities_get' })
  async get(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') item: string, @UuidParam('pk') pk: string) {
    return this.shape.one('work_item_activities', ctx, await this.activities.get(ctx, item, pk));
  }
}
