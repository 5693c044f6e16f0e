import { Injectable } from '@nestjs/common';
import { ProjectContext } from '../common/auth/request-context';
import { ProblemException } from '../common/errors/problem.exception';
import { ListQuery } from '../common/pagination/list-query';
import { WorkItemActivityDto } from './work-item-activities.dto';
import { mapActivity } from './work-item-activities.mapper';
import { WorkItemActivitiesRepository } from './work-item-activities.repository';

/** A work item's history (read-only: the database writes it, migration WorkItemLinksRelationsHistory). */
@Injectable()
export class WorkItemActivitiesService {
  constructor(private readonly repo: WorkItemActivitiesRepository) {}

  private async mustHaveWorkItem(ctx: ProjectContext, workItemId: string): Promise<void> {
    if (!(await this.repo.workItemExists(ctx.workspace.id, ctx.project.id, workItemId)))
      throw ProblemException.notFound('Work item');
  }

  async list(ctx: ProjectContext, workItemId: string, q: ListQuery, expand: Set<string> = new Set()) {
    await this.mustHaveWorkItem(ctx, workItemId);
    const [ws, project] = [ctx.workspace.id, ctx.project.id];
    const { rows, envelope } = await this.repo.list(ws, project, workItemId, q, expand.has('actor'));
    return envelope(rows.map((r) => mapActivity(r, expand)));
  }

  async get(
    ctx: ProjectContext,
    workItemId: string,
    id: string,
    expand: Set<string> = new Set(),
  ): Promise<WorkItemActivityDto> {
    await this.mustHaveWorkItem(ctx, workItemId);
    const row = await this.repo.get(ctx.workspace.id, ctx.project.id, workItemId, id, expand.has('actor'));
    if (!row) throw ProblemException.notFound('Activity');
    return mapActivity(row, expand);
  }
}
