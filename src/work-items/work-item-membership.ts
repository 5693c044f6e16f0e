import { Injectable } from '@nestjs/common';
import { ProjectContext } from '../common/auth/request-context';
import { setActivityActor } from '../common/database/activity-actor';
import { LinkedProjectTable, lockLiveInProject } from '../common/database/live-rows';
import { ProblemException } from '../common/errors/problem.exception';
import { Queryable } from '../common/pagination/sql-params';
import { FeatureFlags } from '../features/feature-flags.queries';
import { UpdateWorkItemDto } from './work-items.dto';
import { WorkItemsRepository } from './work-items.repository';

const lower = (id: string) => id.toLowerCase();
export const lowerOrNull = (id: string | null | undefined) => (id ? id.toLowerCase() : null);

/** Whether a write body sets cycle or module membership (the later edition's cycle_id, module_ids). */
export const placesItem = (dto: UpdateWorkItemDto) => dto.cycle_id !== undefined || dto.module_ids !== undefined;

const RULES: Record<LinkedProjectTable, { field: string; flag: 'is_cycles_enabled' | 'is_modules_enabled' }> = {
  cycles: { field: 'cycle_id', flag: 'is_cycles_enabled' },
  modules: { field: 'module_ids', flag: 'is_modules_enabled' },
};

/**
 * `cycle_id` and `module_ids` on work item writes (create, PATCH, bulk, upsert), with the rules the cycle and module
 * membership routes apply: the project's cycles (modules) feature on to name one, each a live cycle (module) of this
 * project, else 400 naming the field (an id of another project is a 400 in a body, gap-reference 1). A work item is
 * in at most one cycle (naming another moves it), in any number of modules. `work_items.cycle_id` and
 * `module_work_items` belong to the work items area; the cycles and modules are only read, under FOR KEY SHARE.
 */
@Injectable()
export class WorkItemMembership {
  constructor(
    private readonly repo: WorkItemsRepository,
    private readonly features: FeatureFlags,
  ) {}

  /** The rules for what the body names, without writing (null and [] always pass). */
  async check(ctx: ProjectContext, dto: UpdateWorkItemDto, db: Queryable): Promise<void> {
    if (dto.cycle_id) await this.assertLive(ctx, 'cycles', [lower(dto.cycle_id)], db);
    if (dto.module_ids?.length) await this.assertLive(ctx, 'modules', dto.module_ids.map(lower), db);
  }

  /**
   * Writes the membership the bodies set for items already written (not sent: unchanged), in `tx`, one statement per
   * kind for the batch, after re-checking the rules under lock (a cycle or module deleted meanwhile cannot be linked:
   * its delete waits, then detaches the item as every other). Answers the rows with the membership written.
   */
  async placeMany<R extends { id: string; cycle_id: string | null; module_ids: string[] }>(
    ctx: ProjectContext,
    rows: Array<{ row: R; dto: UpdateWorkItemDto }>,
    tx: Queryable,
  ): Promise<R[]> {
    const cycled = rows.filter((r) => r.dto.cycle_id !== undefined);
    const moduled = rows.filter((r) => r.dto.module_ids !== undefined);
    if (!cycled.length && !moduled.length) return rows.map((r) => r.row);
    const cycles = cycled.map((r) => lowerOrNull(r.dto.cycle_id));
    const sets = moduled.map((r) => [...new Set(r.dto.module_ids!.map(lower))]);
    await this.assertLive(ctx, 'cycles', [...new Set(cycles.filter((c): c is string => !!c))], tx);
    await this.assertLive(ctx, 'modules', [...new Set(sets.flat())], tx);
    await setActivityActor(tx, ctx.principal.userId);
    const w = ctx.workspace.id;
    const p = ctx.project.id;
    if (cycled.length)
      await this.repo.placeInCycles(
        w,
        p,
        cycled.map((r) => r.row.id),
        cycles,
        tx,
      );
    if (moduled.length) {
      const pairs = moduled.flatMap((r, i) => sets[i].map((m) => [r.row.id, m] as const));
      await this.repo.replaceModuleSets(
        w,
        p,
        moduled.map((r) => r.row.id),
        { items: pairs.map((x) => x[0]), modules: pairs.map((x) => x[1]) },
        tx,
      );
    }
    return rows.map(({ row, dto }) => ({
      ...row,
      ...(dto.cycle_id !== undefined ? { cycle_id: lowerOrNull(dto.cycle_id) } : {}),
      ...(dto.module_ids !== undefined ? { module_ids: [...new Set(dto.module_ids.map(lower))].sort() } : {}),
    }));
  }

  private async assertLive(ctx: ProjectContext, table: LinkedProjectTable, ids: string[], db: Queryable) {
    if (!ids.length) return;
    const { field, flag } = RULES[table];
    if (!(await this.features.project(ctx.workspace.id, ctx.project.id, db))[flag]) {
      const what = table === 'cycles' ? 'Cycles' : 'Modules';
      throw ProblemException.validation(
        field,
        `${what} are disabled for this project (${flag} is false); enable them first, or send ${field === 'cycle_id' ? 'null' : '[]'}.`,
      );
    }
    const live = await lockLiveInProject(db, table, ctx.workspace.id, ctx.project.id, ids);
    const bad = ids.filter((id) => !live.has(id));
    if (bad.length) throw ProblemException.validation(field, `Not ${table} of this project: ${bad.join(', ')}.`);
  }
}
