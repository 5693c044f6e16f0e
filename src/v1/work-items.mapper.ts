import { Injectable } from '@nestjs/common';
import { ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import { ProjectsService } from '../projects/projects.service';
import { WorkItemDto } from '../work-items/work-items.dto';
import { V1Shaper } from './v1-shaper';

/** v1's relation fields and the v2 id fields they are (gap-reference 8). */
export const WORK_ITEM_IN = {
  state: 'state_id',
  assignees: 'assignee_ids',
  labels: 'label_ids',
  parent: 'parent_id',
  estimate_point: 'estimate_point_id',
  type: 'type_id',
};

/** v1's list filters named as v1 names them, and the v2 filter each one is. */
export const WORK_ITEM_FILTERS = {
  state: 'state_id',
  assignee: 'assignee_id',
  label: 'label_id',
  parent: 'parent_id',
  type: 'type_id',
};

/** v1 `expand` values and the v2 expansion each needs (`project` is filled here; unknown values are ignored). */
const EXPANDS: Record<string, string> = {
  state: 'state',
  labels: 'labels',
  assignees: 'assignees',
  type: 'type',
  parent: 'parent',
  module: 'modules',
  cycle: 'cycle',
};

export function v1Expand(raw: unknown): { v2: Set<string>; project: boolean } {
  const values = (Array.isArray(raw) ? raw.join(',') : typeof raw === 'string' ? raw : '')
    .split(',')
    .map((v) => v.trim());
  return { v2: new Set(values.filter((v) => EXPANDS[v]).map((v) => EXPANDS[v])), project: values.includes('project') };
}

/** Work items in v1's shape: v1 names, objects in place where expanded, stamps and description_html. */
@Injectable()
export class V1WorkItemShaper {
  constructor(
    private readonly shape: V1Shaper,
    private readonly projects: ProjectsService,
  ) {}

  /** v1's `module` expansion is the item's first module (v2 lists them all), `project` the project itself. */
  async many(ctx: WorkspaceContext, rows: WorkItemDto[], expandProject = false) {
    const out = await this.shape.many('work_items', ctx, rows);
    const project =
      expandProject && ctx.project
        ? await this.shape.one('projects', ctx, await this.projects.get(ctx as ProjectContext))
        : null;
    for (const r of out) {
      if (Array.isArray(r.modules)) r.module = r.modules[0] ?? null;
      if (project) r.project = project;
    }
    return out;
  }

  async one(ctx: WorkspaceContext, row: WorkItemDto, expandProject = false) {
    return (await this.many(ctx, [row], expandProject))[0];
  }
}
