import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ProjectContext } from '../common/auth/request-context';
import { viewerOf } from '../common/auth/roles';
import {
  BulkAborted,
  bulkAnswer,
  BulkWriteResponseDto,
  isFailed,
  notWritten,
  RowFailed,
  rowFailure,
  RowOutcome,
  validateRows,
} from '../common/bulk/bulk';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { ProblemException } from '../common/errors/problem.exception';
import { isUuid } from '../common/http/validation';
import { Queryable } from '../common/pagination/sql-params';
import { memoReads } from '../common/database/memo-reads';
import { CustomFieldsService } from '../custom-fields/custom-fields.service';
import { changeEvent } from '../webhooks/webhook-events';
import { WebhookOutbox } from '../webhooks/webhook-outbox';
import { CreateWorkItemDto, UpdateWorkItemDto, WorkItemDto } from './work-items.dto';
import { webhookView } from './work-items.mapper';
import { BatchRow, WorkItemDetailRow, WorkItemsRepository } from './work-items.repository';
import { placesItem } from './work-item-membership';
import { assertMayDelete, PreparedUpdate, withDefaults, WorkItemsService } from './work-items.service';

/** A bulk-update row: the PATCH body and the target id. */
class BulkUpdateRowDto extends UpdateWorkItemDto {}

type Prepared = { index: number; dto: CreateWorkItemDto; row: Omit<BatchRow, 'ord' | 'seq' | 'custom_values'> } & {
  refs: Awaited<ReturnType<WorkItemsService['resolveCreateRefs']>>;
};

/**
 * Bulk writes and upsert of work items (gap-reference 9.6). Every row goes through the rules of the single
 * operation (WorkItemsService: the same checks, resolution, re-checks under lock and workflow rules); bulk-create
 * and bulk-delete write the batch set-based (one insert statement, one delete), all in one transaction.
 */
@Injectable()
export class WorkItemsBulkService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: WorkItemsRepository,
    private readonly items: WorkItemsService,
    private readonly customFields: CustomFieldsService,
    private readonly outbox: WebhookOutbox,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  async bulkCreate(ctx: ProjectContext, items: Array<Record<string, unknown>>, allOrNone: boolean) {
    const checked = await validateRows(CreateWorkItemDto, items);
    const failed: RowFailed[] = checked.filter(isFailed);
    const valid = checked.filter((r): r is { index: number; value: CreateWorkItemDto } => !isFailed(r));
    const reads = memoReads(this.ds);
    const defaults = await this.repo.createPrelude(ctx.workspace.id, ctx.project.id, false);
    const prepared: Prepared[] = [];
    await Promise.all(
      valid.map(async ({ index, value }) => {
        try {
          prepared.push(await this.prepare(ctx, index, value, defaults, reads));
        } catch (e) {
          failed.push(rowFailure(index, e));
        }
      }),
    );
    // Sequence numbers follow the request's order, whatever order the preparations finished in.
    prepared.sort((a, b) => a.index - b.index);
    const held = await this.externalPairsHeld(ctx, prepared);
    const fresh = prepared.filter((p) => {
      const e = held.get(p.index);
      if (e) failed.push(rowFailure(p.index, e));
      return !e;
    });
    if (allOrNone && failed.length) return this.answer([...failed, ...fresh.map(notWritten)], true);
    try {
      const written = fresh.length ? await this.writeBatch(ctx, fresh, allOrNone) : [];
      return this.answer([...failed, ...written], allOrNone);
    } catch (e) {
      if (!(e instanceof BulkAborted)) throw e;
      return this.answer([...failed, ...e.outcomes], allOrNone);
    }
  }

  /** A create row's checks and resolution (the single create's own helpers), before any write. */
  private async prepare(
    ctx: ProjectContext,
    index: number,
    dto: CreateWorkItemDto,
    defaults: { default_state_id: string | null; default_type_id: string | null },
    reads: Queryable,
  ): Promise<Prepared> {
    const { name, desc } = this.items.createBasics(dto);
    const [refs] = await Promise.all([
      this.items.resolveCreateRefs(ctx, dto, reads),
      this.items.checkMembership(ctx, dto, reads),
    ]);
    const { stateId, typeId } = withDefaults(refs, defaults);
    return {
      index,
      dto,
      refs,
      row: {
        name,
        description_html: desc.description_html ?? '',
        description_stripped: desc.description_stripped ?? '',
        priority: dto.priority ?? 'none',
        state_id: stateId,
        type_id: typeId,
        parent_id: refs.parentId ?? null,
        estimate_point_id: refs.estimatePointId ?? null,
        start_date: dto.start_date ?? null,
        target_date: dto.target_date ?? null,
        external_id: dto.external_id ?? null,
        external_source: dto.external_source ?? null,
        assignee_ids: await this.items.assigneesOrDefault(ctx, refs.assigneeIds, reads),
        label_ids: refs.labelIds ?? [],
      },
    };
  }

  /** Rows whose external pair a live item of the project holds, or an earlier row of the batch: their 409. */
  private async externalPairsHeld(ctx: ProjectContext, rows: Prepared[]): Promise<Map<number, ProblemException>> {
    const out = new Map<number, ProblemException>();
    const keyed = rows.filter((r) => r.row.external_source && r.row.external_id);
    const existing = await this.repo.findByExternalMany(
      { workspaceId: ctx.workspace.id, projectId: ctx.project.id },
      keyed.map((r) => [r.row.external_source!, r.row.external_id!]),
    );
    const firstRow = new Map<string, number>();
    for (const r of [...keyed].sort((a, b) => a.index - b.index)) {
      const k = JSON.stringify([r.row.external_source, r.row.external_id]);
      const holder = existing.get(k) ?? (firstRow.has(k) ? `row ${firstRow.get(k)} of this request` : undefined);
      if (holder) out.set(r.index, this.items.externalHeld(r.row.external_source!, r.row.external_id!, holder));
      else firstRow.set(k, r.index);
    }
    return out;
  }

  /** Sequence numbers, then one transaction: the states locked, custom values, one checked insert of the batch. */
  private async writeBatch(ctx: ProjectContext, rows: Prepared[], allOrNone: boolean): Promise<RowOutcome[]> {
    const seqs = await this.repo.takeSequences(ctx.workspace.id, ctx.project.id, rows.length);
    return this.ds.transaction(async (tx) => {
      await this.repo.stateIds(ctx.workspace.id, ctx.project.id, [...new Set(rows.map((r) => r.row.state_id))], tx);
      // The custom-values reads (feature flag, values lock, the type's properties) are the same for rows of one
      // type: made once per batch, not once per row.
      const reads = memoReads(tx);
      const failed: RowOutcome[] = [];
      const batch: Array<BatchRow & { p: Prepared }> = [];
      for (const [i, p] of rows.entries()) {
        try {
          const custom = await this.customFields.forCreate(
            reads,
            ctx.workspace.id,
            ctx.project.id,
            p.row.type_id,
            p.dto.custom_fields,
            viewerOf(ctx),
          );
          batch.push({ ...p.row, ord: p.index, seq: seqs[i], custom_values: custom, p });
        } catch (e) {
          failed.push(rowFailure(p.index, e));
        }
      }
      if (allOrNone && failed.length) throw new BulkAborted([...failed, ...batch.map((b) => notWritten(b.p))]);
      const result = await this.repo.insertCheckedMany(
        ctx.workspace.id,
        ctx.project.id,
        batch.map(({ p: _p, ...b }) => b),
        ctx.principal.userId,
        allOrNone,
        tx,
      );
      const byOrd = new Map(batch.map((b) => [b.ord, b]));
      const outcomes = result.map((r) => this.outcome(byOrd.get(r.ord)!, r));
      if (outcomes.some((o) => o.result === 'failed') && allOrNone) throw new BulkAborted([...failed, ...outcomes]);
      // cycle_id / module_ids of the rows written: one statement per kind for the batch, in its transaction.
      const placed = result.filter((r) => r.id && placesItem(byOrd.get(r.ord)!.p.dto));
      const none = { cycle_id: null, module_ids: [] as string[] };
      await this.items.placeMany(
        ctx,
        placed.map((r) => ({ row: { id: r.id!, ...none }, dto: byOrd.get(r.ord)!.p.dto })),
        tx,
      );
      await this.recordEvents(
        ctx,
        'workitem.created',
        await this.repo.getMany(ctx.workspace.id, ctx.project.id, created(outcomes), tx),
        tx,
      );
      return [...failed, ...outcomes];
    });
  }

  private outcome(
    b: BatchRow & { p: Prepared },
    r: Awaited<ReturnType<WorkItemsRepository['insertCheckedMany']>>[number],
  ): RowOutcome {
    if (r.id) return { index: b.p.index, result: 'created', id: r.id };
    const passed =
      r.state_live &&
      r.type_live &&
      r.estimate_point_live &&
      r.parent_live &&
      r.live_label_ids.length === b.label_ids.length &&
      r.creation_allowed !== false;
    if (passed) return notWritten(b.p);
    try {
      this.items.explainRefusal(b.p.dto, b.state_id, b.type_id, b.p.refs, r);
    } catch (e) {
      return rowFailure(b.p.index, e);
    }
  }

  /** bulk-delete: the single delete's rule per id (404 unknown or foreign, 403 not admin nor creator), one delete. */
  async bulkDelete(ctx: ProjectContext, ids: string[], allOrNone: boolean) {
    const lower = ids.map((id) => id.toLowerCase());
    return this.run(allOrNone, async (tx) => {
      const found = await this.repo.lockLiveItems(ctx.workspace.id, ctx.project.id, [...new Set(lower)], tx);
      const seen = new Set<string>();
      const outcomes: RowOutcome[] = lower.map((id, index) => {
        try {
          // A repeated id is deleted once: its later rows are 404, as a second DELETE is.
          if (!found.has(id) || seen.has(id)) throw ProblemException.notFound('Work item');
          assertMayDelete(ctx, found.get(id)!.created_by_id);
          seen.add(id);
          return { index, result: 'deleted', id };
        } catch (e) {
          return rowFailure(index, e, id);
        }
      });
      if (allOrNone && outcomes.some((o) => o.result === 'failed')) throw new BulkAborted(outcomes);
      if (!seen.size) return outcomes;
      const gone = await this.repo.getMany(ctx.workspace.id, ctx.project.id, [...seen], tx);
      await this.repo.softDelete(ctx.workspace.id, [...seen], ctx.principal.userId, tx);
      await this.recordEvents(ctx, 'workitem.deleted', gone, tx);
      return outcomes;
    });
  }

  /**
   * bulk-update, set-based: the rows' items are read and locked in one statement; each row is checked with the
   * PATCH's rules (prepareUpdate; reads repeated between rows are made once); then the rows that passed are written
   * by one statement (writeUpdates) and their cycles and modules by one per kind (placeMany). An id an earlier row
   * of the request updates, or an external pair an earlier row takes, fails the later row with a 409 (one statement
   * writes each item once, so two PATCHes of one item cannot be ordered inside it).
   */
  async bulkUpdate(ctx: ProjectContext, items: Array<Record<string, unknown>>, allOrNone: boolean) {
    const rows = withIds(await validateRows(BulkUpdateRowDto, items), items);
    return this.run(allOrNone, async (tx) => {
      const ids = [...new Set(rows.flatMap((r) => (isFailed(r) ? [] : [r.id])))];
      const current = await this.repo.lockMany(ctx.workspace.id, ctx.project.id, ids, tx);
      const { outcomes, prepared } = await this.prepareUpdates(ctx, rows, current, memoReads(tx));
      if (allOrNone && outcomes.length) throw new BulkAborted([...outcomes, ...prepared.map(notWritten)]);
      const refused = await this.items.writeUpdates(ctx, prepared, tx).catch((e: unknown) => {
        throw externalRaceProblem(e) ?? e;
      });
      for (const { row, problem } of refused) outcomes.push(rowFailure(indexOf(row), problem, row.id));
      const written = prepared.filter((p) => !refused.some((f) => f.row === p));
      if (allOrNone && refused.length) throw new BulkAborted([...outcomes, ...written.map(notWritten)]);
      const none = { cycle_id: null, module_ids: [] as string[] };
      await this.items.placeMany(
        ctx,
        written.filter((p) => placesItem(p.dto)).map((p) => ({ row: { id: p.id, ...none }, dto: p.dto })),
        tx,
      );
      // workitem.updated for each row whose item changed, as its PATCH would record (one read, one insert).
      const before = new Map(written.map((p) => [p.id, webhookView(current.get(p.id)!)]));
      await this.items.reportUpdated(ctx, before, tx);
      return [...outcomes, ...written.map((p): RowOutcome => ({ index: p.index, result: 'updated', id: p.id }))];
    });
  }

  /** One webhook event per work item a bulk write changed, in the batch's transaction (request order). */
  private async recordEvents(
    ctx: ProjectContext,
    event: 'workitem.created' | 'workitem.deleted',
    rows: WorkItemDetailRow[],
    tx: Queryable,
  ): Promise<void> {
    const ordered = [...rows].sort((a, b) => a.sequence_id - b.sequence_id);
    await this.outbox.recordMany(
      tx,
      ordered.map((r) => changeEvent(ctx, event, webhookView(r))),
    );
  }

  /** Each row checked as its PATCH (prepareUpdate), in request order; a repeated id or external pair fails the later row. */
  private async prepareUpdates(
    ctx: ProjectContext,
    rows: Array<{ index: number; value: BulkUpdateRowDto; id: string } | RowFailed>,
    current: Map<string, WorkItemDetailRow>,
    reads: Queryable,
  ) {
    const outcomes: RowOutcome[] = [];
    const prepared: Array<PreparedUpdate & { index: number }> = [];
    const pairs = new Map<string, number>();
    for (const r of rows) {
      if (isFailed(r)) {
        outcomes.push(r);
        continue;
      }
      try {
        const cur = current.get(r.id);
        if (!cur) throw ProblemException.notFound('Work item');
        const earlier = prepared.find((p) => p.id === r.id);
        if (earlier)
          throw ProblemException.conflict(
            `Row ${earlier.index} of this request updates this work item: send one row per work item.`,
          );
        const p = await this.items.prepareUpdate(ctx, cur, r.value, reads);
        const key = p.external && JSON.stringify(p.external);
        if (key && pairs.has(key))
          throw this.items.externalHeld(p.external![0], p.external![1], `row ${pairs.get(key)} of this request`);
        if (key) pairs.set(key, r.index);
        prepared.push({ ...p, index: r.index });
      } catch (e) {
        outcomes.push(rowFailure(r.index, e, r.id));
      }
    }
    return { outcomes, prepared };
  }

  /**
   * upsert: with both external_source and external_id, the live item holding that pair is updated with the body
   * (PATCH rules; 200), else one is created (create rules; 201). Without the pair it is a plain create.
   */
  async upsert(
    ctx: ProjectContext,
    dto: CreateWorkItemDto,
    expand: Set<string>,
  ): Promise<{ created: boolean; item: WorkItemDto }> {
    if (dto.external_source && dto.external_id) {
      const existing = await this.repo.findByExternal(
        { workspaceId: ctx.workspace.id, projectId: ctx.project.id },
        dto.external_source,
        dto.external_id,
        null,
        this.ds,
      );
      if (existing) return { created: false, item: await this.items.update(ctx, existing, dto, expand) };
    }
    return { created: true, item: await this.items.create(ctx, dto, expand) };
  }

  /** One transaction for the batch; a BulkAborted rolls it back and answers its outcomes (409). */
  private async run(allOrNone: boolean, fn: (tx: Queryable) => Promise<RowOutcome[]>): Promise<BulkWriteResponseDto> {
    let outcomes: RowOutcome[];
    try {
      outcomes = await this.ds.transaction((tx) => fn(tx));
    } catch (e) {
      if (!(e instanceof BulkAborted)) throw e;
      outcomes = e.outcomes;
    }
    return this.answer(outcomes, allOrNone);
  }

  private answer(outcomes: RowOutcome[], allOrNone: boolean) {
    return bulkAnswer(outcomes, allOrNone, this.cfg.publicBaseUrl);
  }
}

const indexOf = (row: PreparedUpdate) => (row as PreparedUpdate & { index: number }).index;

/** Each valid bulk-update row with the id it names (lower-cased), or the row's 400 when it names none. */
function withIds<T>(
  checked: Array<{ index: number; value: T } | RowFailed>,
  items: Array<Record<string, unknown>>,
): Array<{ index: number; value: T; id: string } | RowFailed> {
  return checked.map((r) => {
    if (isFailed(r)) return r;
    const id = items[r.index].id;
    if (!isUuid(id))
      return rowFailure(
        r.index,
        ProblemException.validation('id', 'Each item needs the id (UUID) of the work item to update.'),
      );
    return { ...r, id: id.toLowerCase() };
  });
}

/** The ids a batch's outcomes say were created. */
function created(outcomes: RowOutcome[]): string[] {
  return outcomes.flatMap((o) => (o.result === 'created' ? [o.id] : []));
}

/** The external pair's unique index refused a row (a race with another writer): the 409 checkExternal answers. */
function externalRaceProblem(e: unknown): ProblemException | null {
  const err = e as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
  const pg = err.driverError ?? err;
  return pg.code === '23505' && pg.constraint === 'uq_work_items_external'
    ? ProblemException.conflict('external_source/external_id already used by another work item of this project.')
    : null;
}
