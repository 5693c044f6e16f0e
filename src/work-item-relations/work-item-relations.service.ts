import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ProjectContext } from '../common/auth/request-context';
import { Viewer, viewerOf } from '../common/auth/roles';
import { setActivityActor } from '../common/database/activity-actor';
import { ProblemException } from '../common/errors/problem.exception';
import { Queryable } from '../common/pagination/sql-params';
import { RelationDefinitionsService } from './relation-definitions.service';
import {
  CreateWorkItemDependencyDto,
  CreateWorkItemRelationDto,
  DependencyType,
  WorkItemDependencyListDto,
} from './work-item-relations.dto';
import { RelationKind, RelationPair, RelationRow, WorkItemRelationsRepository } from './work-item-relations.repository';
import { changeEvent } from '../webhooks/webhook-events';
import { WebhookOutbox } from '../webhooks/webhook-outbox';

/** Each dependency type: its stored (canonical) type and whether this item is the source. */
const DEPENDENCY_SIDES: Record<DependencyType, { stored: string; outward: boolean }> = {
  blocking: { stored: 'blocking', outward: true },
  blocked_by: { stored: 'blocking', outward: false },
  start_before: { stored: 'start_before', outward: true },
  start_after: { stored: 'start_before', outward: false },
  finish_before: { stored: 'finish_before', outward: true },
  finish_after: { stored: 'finish_before', outward: false },
};
const DEPENDENCY_KEY: Record<string, [DependencyType, DependencyType]> = {
  blocking: ['blocking', 'blocked_by'],
  start_before: ['start_before', 'start_after'],
  finish_before: ['finish_before', 'finish_after'],
};

interface Direction {
  kind: RelationKind;
  /** The outward label a webhook event names the relation by: the definition's, or the stored dependency type. */
  label: string;
  key: { definition_id: string | null; dependency_type: string | null };
  /** This item is the source; null: symmetric (stored in id order). */
  outward: boolean | null;
}

/**
 * Relations (through a workspace definition and a direction) and dependencies (six fixed types) between work items
 * (Plane v2). One row per relation, read from both ends, so the inverse always agrees; one relation per kind, key
 * and unordered pair (unique index: two clients relating the same pair at once make one). The other items may be
 * in any project of the workspace the caller can read; never this item.
 */
@Injectable()
export class WorkItemRelationsService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: WorkItemRelationsRepository,
    private readonly definitions: RelationDefinitionsService,
    private readonly outbox: WebhookOutbox,
  ) {}

  async listRelations(ctx: ProjectContext, workItemId: string): Promise<Record<string, string[]>> {
    await this.mustHaveWorkItem(ctx, workItemId);
    const [defs, ends] = await Promise.all([
      this.definitions.all(ctx.workspace.id),
      this.repo.ends(ctx.workspace.id, workItemId, 'relation', viewerOf(ctx)),
    ]);
    const out: Record<string, string[]> = {};
    const labels = new Map<string, { outward: string; inward: string }>();
    for (const d of defs) {
      out[d.outward] = [];
      out[d.inward] = [];
      labels.set(d.id, d);
    }
    for (const e of ends) {
      const d = labels.get(e.key);
      if (d) out[e.outward ? d.outward : d.inward].push(e.other_id);
    }
    return out;
  }

  async listDependencies(ctx: ProjectContext, workItemId: string): Promise<WorkItemDependencyListDto> {
    await this.mustHaveWorkItem(ctx, workItemId);
    const ends = await this.repo.ends(ctx.workspace.id, workItemId, 'dependency', viewerOf(ctx));
    const out: WorkItemDependencyListDto = {
      blocking: [],
      blocked_by: [],
      start_before: [],
      start_after: [],
      finish_before: [],
      finish_after: [],
    };
    for (const e of ends) {
      const pair = DEPENDENCY_KEY[e.key];
      if (pair) out[pair[e.outward ? 0 : 1]].push(e.other_id);
    }
    return out;
  }

  async createRelations(ctx: ProjectContext, workItemId: string, dto: CreateWorkItemRelationDto) {
    const def = await this.definitions
      .all(ctx.workspace.id)
      .then((ds) => ds.find((d) => d.id === dto.relation_definition_id));
    if (!def) throw ProblemException.validation('relation_definition_id', 'No relation definition with this id.');
    if (!def.is_active)
      throw ProblemException.validation('relation_definition_id', 'This relation definition is not active.');
    if (dto.direction !== def.outward && dto.direction !== def.inward)
      throw ProblemException.validation('direction', `direction must be "${def.outward}" or "${def.inward}".`);
    const outward = def.outward === def.inward ? null : dto.direction === def.outward;
    const dir: Direction = {
      kind: 'relation',
      label: def.outward,
      key: { definition_id: def.id, dependency_type: null },
      outward,
    };
    await this.relate(ctx, workItemId, dto.work_item_ids, dir);
    return this.listRelations(ctx, workItemId);
  }

  async createDependencies(ctx: ProjectContext, workItemId: string, dto: CreateWorkItemDependencyDto) {
    const side = DEPENDENCY_SIDES[dto.relation_type];
    const dir: Direction = {
      kind: 'dependency',
      label: side.stored,
      key: { definition_id: null, dependency_type: side.stored },
      outward: side.outward,
    };
    await this.relate(ctx, workItemId, dto.work_item_ids, dir);
    return this.listDependencies(ctx, workItemId);
  }

  /** Removes every relation (or dependency) between this item and `otherId`; none is 404. */
  async remove(ctx: ProjectContext, workItemId: string, otherId: string, kind: RelationKind): Promise<void> {
    await this.ds.transaction(async (tx) => {
      await this.mustHaveWorkItem(ctx, workItemId, tx);
      const visible = await this.repo.visibleItems(ctx.workspace.id, [otherId], viewerOf(ctx), tx);
      if (!visible.has(otherId)) throw ProblemException.notFound('Work item');
      await setActivityActor(tx, ctx.principal.userId);
      const removed = await this.repo.removePair(ctx.workspace.id, kind, workItemId, otherId, tx);
      if (!removed.length) throw ProblemException.notFound(kind === 'relation' ? 'Relation' : 'Dependency');
      const labels = new Map((await this.definitions.all(ctx.workspace.id)).map((d) => [d.id, d.outward]));
      const label = (r: RelationRow) => r.dependency_type ?? labels.get(r.definition_id!) ?? '';
      await this.recordEvents(ctx, kind, 'deleted', removed, label, tx);
    });
  }

  private async relate(ctx: ProjectContext, workItemId: string, ids: string[], dir: Direction): Promise<void> {
    if (ids.includes(workItemId))
      throw ProblemException.validation('work_item_ids', 'A work item cannot be related to itself.');
    await this.ds.transaction(async (tx) => {
      await this.mustHaveWorkItem(ctx, workItemId, tx);
      const items = await this.visible(ctx.workspace.id, ids, viewerOf(ctx), tx);
      const pairs = ids.map((id) => this.pair(workItemId, ctx.project.id, id, items.get(id)!, dir.outward));
      const written = await this.repo.insert(ctx.workspace.id, dir.kind, dir.key, pairs, ctx.principal.userId, tx);
      if (written.reversed.length)
        throw ProblemException.conflict(
          `These work items already have this ${dir.kind} in the other direction: ${written.reversed.sort().join(', ')}.`,
        );
      await this.recordEvents(ctx, dir.kind, 'created', written.inserted, () => dir.label, tx);
    });
  }

  /** One webhook event per relation row written or removed (`workitem.relation.*` / `workitem.dependency.*`). */
  private async recordEvents(
    ctx: ProjectContext,
    kind: RelationKind,
    action: 'created' | 'deleted',
    rows: RelationRow[],
    label: (r: RelationRow) => string,
    tx: Queryable,
  ): Promise<void> {
    const event = `workitem.${kind}.${action}` as const;
    await this.outbox.recordMany(
      tx,
      rows.map((r) => changeEvent(ctx, event, relationView(r, label(r)))),
    );
  }

  private async visible(ws: string, ids: string[], viewer: Viewer, tx: Queryable): Promise<Map<string, string>> {
    const items = await this.repo.visibleItems(ws, ids, viewer, tx);
    const missing = ids.filter((id) => !items.has(id));
    if (missing.length)
      throw ProblemException.validation(
        'work_item_ids',
        `No work item you can read with these ids: ${missing.join(', ')}.`,
      );
    return items;
  }

  private pair(
    self: string,
    selfProject: string,
    other: string,
    otherProject: string,
    outward: boolean | null,
  ): RelationPair {
    const a = { id: self, project: selfProject };
    const b = { id: other, project: otherProject };
    const [s, t] = outward === null ? (self < other ? [a, b] : [b, a]) : outward ? [a, b] : [b, a];
    return {
      source_id: s.id,
      target_id: t.id,
      source_project_id: s.project,
      target_project_id: t.project,
    };
  }

  private async mustHaveWorkItem(ctx: ProjectContext, workItemId: string, db?: Queryable): Promise<void> {
    if (!(await this.repo.workItemExists(ctx.workspace.id, ctx.project.id, workItemId, db, !!db)))
      throw ProblemException.notFound('Work item');
  }
}

/**
 * A relation as webhook events carry it: `work_item_id <relation_type> related_work_item_id` reads as a sentence
 * ("A blocking B", "A implements B"), with the definition's outward label or the dependency type.
 */
function relationView(r: RelationRow, relationType: string) {
  return {
    id: r.id,
    work_item_id: r.source_id,
    related_work_item_id: r.target_id,
    project_id: r.source_project_id,
    related_project_id: r.target_project_id,
    relation_type: relationType,
    relation_definition_id: r.definition_id,
    created_at: new Date(r.created_at).toISOString(),
    created_by_id: r.created_by_id,
  };
}
