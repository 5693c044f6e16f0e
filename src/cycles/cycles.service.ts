import { Injectable } from '@nestjs/common';
import { assertNameFree, cleanName } from '../common/names/names';
import { DataSource, EntityManager } from 'typeorm';
import { setActivityActor } from '../common/database/activity-actor';
import { ProjectContext } from '../common/auth/request-context';
import { ProblemException } from '../common/errors/problem.exception';
import { ListQuery } from '../common/pagination/list-query';
import { assertProjectFeatureEnabled } from '../features/feature-gate';
import { FeatureFlags } from '../features/feature-flags.queries';
import { CycleWorkItemsRepository } from './cycle-work-items.repository';
import {
  CreateCycleDto,
  CycleDto,
  parseDateTime,
  TransferCycleDto,
  TransferResultDto,
  UpdateCycleDto,
} from './cycles.dto';
import { WorkItemsChangeDto, WorkItemsMembershipDto } from '../common/membership/membership.dto';
import { changeMembership, releaseMembers } from '../common/membership/membership';
import { emptyProgress, mapCycle } from './cycles.mapper';
import { CyclesRepository, CycleWrite } from './cycles.repository';
import { assertExternalPairFree } from '../common/database/external-pair';
import { changeEvent } from '../webhooks/webhook-events';
import { WebhookOutbox } from '../webhooks/webhook-outbox';
import { WorkItemsService } from '../work-items/work-items.service';
import { AuditService } from '../audit/audit.service';
import { archiveAuditEntry, assertNotArchived, notArchivable, switchArchived } from '../common/archive/archive-switch';
import { CycleRow } from './cycles.repository';

/** Cycles of a project (spec "Cycle", gap-reference 3.5). Writes need the project's cycles feature on. */
@Injectable()
export class CyclesService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: CyclesRepository,
    private readonly features: FeatureFlags,
    private readonly items: CycleWorkItemsRepository,
    private readonly outbox: WebhookOutbox,
    private readonly workItems: WorkItemsService,
    private readonly audit: AuditService,
  ) {}

  async list(ctx: ProjectContext, q: ListQuery) {
    const { rows, envelope } = await this.repo.list(ctx.workspace.id, ctx.project.id, q);
    return envelope(rows.map((r) => mapCycle(r)));
  }

  /** The project's archived cycles (the list's filters and orderings). */
  async listArchived(ctx: ProjectContext, q: ListQuery) {
    const { rows, envelope } = await this.repo.list(ctx.workspace.id, ctx.project.id, q, true);
    return envelope(rows.map((r) => mapCycle(r)));
  }

  /** An archived cycle is 404 here as in Plane (its list is archived-cycles/). */
  async get(ctx: ProjectContext, id: string): Promise<CycleDto> {
    const row = await this.repo.get(ctx.workspace.id, ctx.project.id, id);
    if (!row || row.archived_at) throw ProblemException.notFound('Cycle');
    return mapCycle(row, await this.items.progress(ctx.workspace.id, id));
  }

  async create(ctx: ProjectContext, dto: CreateCycleDto): Promise<CycleDto> {
    return this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      const v = this.writable(dto);
      const name = cleanName(dto.name);
      await assertNameFree(this.repo.nameTaken(ctx.workspace.id, ctx.project.id, name, null, tx), 'cycle', name);
      await assertExternalPairFree(
        tx,
        'cycles',
        { workspaceId: ctx.workspace.id, projectId: ctx.project.id },
        dto,
        null,
      );
      this.assertDateOrder(v.start_date ?? null, v.end_date ?? null);
      const sortOrder = dto.sort_order ?? (await this.repo.nextSortOrder(ctx.workspace.id, ctx.project.id, tx));
      const row = await this.repo.insert(
        ctx.workspace.id,
        ctx.project.id,
        { ...v, name, sort_order: sortOrder },
        ctx.principal.userId,
        tx,
      );
      await this.outbox.record(tx, changeEvent(ctx, 'cycle.created', mapCycle(row)));
      return mapCycle(row, emptyProgress());
    });
  }

  async update(ctx: ProjectContext, id: string, dto: UpdateCycleDto): Promise<CycleDto> {
    return this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      const row = await this.lockWritable(ctx, id, tx);
      await assertExternalPairFree(
        tx,
        'cycles',
        { workspaceId: ctx.workspace.id, projectId: ctx.project.id },
        dto,
        row,
      );
      const v = this.writable(dto);
      if (dto.name !== undefined) {
        v.name = cleanName(dto.name);
        await assertNameFree(this.repo.nameTaken(ctx.workspace.id, ctx.project.id, v.name, id, tx), 'cycle', v.name);
      }
      const start =
        v.start_date !== undefined ? v.start_date : row.start_date && new Date(row.start_date).toISOString();
      const end = v.end_date !== undefined ? v.end_date : row.end_date && new Date(row.end_date).toISOString();
      this.assertDateOrder(start, end);
      await this.repo.update(ctx.workspace.id, id, v, tx);
      const updated = await this.repo.get(ctx.workspace.id, ctx.project.id, id, tx);
      await this.outbox.record(tx, changeEvent(ctx, 'cycle.updated', mapCycle(updated!), mapCycle(row)));
      return mapCycle(updated!, await this.items.progress(ctx.workspace.id, id, tx));
    });
  }

  async remove(ctx: ProjectContext, id: string): Promise<void> {
    await this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      const row = await this.lockWritable(ctx, id, tx);
      await this.repo.softDelete(ctx.workspace.id, id, tx);
      await releaseMembers(tx, ctx, id, this.items);
      await this.outbox.record(tx, changeEvent(ctx, 'cycle.deleted', mapCycle(row)));
    });
  }

  /**
   * Adds and removes work items. A work item is in at most one cycle, so adding moves it here from any
   * other cycle. Ids that are not (live) work items of this project make the whole request 400.
   */
  async changeWorkItems(ctx: ProjectContext, id: string, dto: WorkItemsMembershipDto): Promise<WorkItemsChangeDto> {
    return this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      await this.lockWritable(ctx, id, tx);
      // A work item's cycle_id is part of its read shape: each item moved is a workitem.updated (as Plane sends).
      return changeMembership(tx, ctx, id, dto, this.items, this.workItems.membershipObserver(ctx, tx));
    });
  }

  /** Moves the unfinished work items (state group not completed or cancelled) to another cycle of the project. */
  async transfer(ctx: ProjectContext, id: string, dto: TransferCycleDto): Promise<TransferResultDto> {
    return this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      await this.lockWritable(ctx, id, tx);
      const targetId = dto.new_cycle_id.toLowerCase();
      if (targetId === id)
        throw ProblemException.validation('new_cycle_id', 'Must be a different cycle than the one transferred from.');
      const target = await this.repo.get(ctx.workspace.id, ctx.project.id, targetId, tx, true);
      if (!target) throw ProblemException.validation('new_cycle_id', 'Must be a cycle of this project.');
      if (target.archived_at)
        throw ProblemException.validation('new_cycle_id', 'The target cycle is archived; unarchive it first.');
      if (target.end_date && new Date(target.end_date).getTime() < Date.now()) {
        throw ProblemException.validation(
          'new_cycle_id',
          'The target cycle has already ended; transfer to a current or upcoming cycle.',
        );
      }
      await setActivityActor(tx, ctx.principal.userId);
      const transferred = await this.items.transferUnfinished(ctx.workspace.id, ctx.project.id, id, targetId, tx);
      // Only cycle_id changed: each moved item's view before the transfer is its view now in the source cycle.
      const now = await this.workItems.webhookSnapshot(ctx, transferred, tx);
      await this.workItems.reportUpdated(
        ctx,
        new Map([...now].map(([itemId, v]) => [itemId, { ...v, cycle_id: id }])),
        tx,
      );
      return { new_cycle_id: targetId, transferred };
    });
  }

  /** Archive (Plane's rule: only a cycle that has ended) or unarchive (idempotent); the cycle with its progress. */
  async setArchived(ctx: ProjectContext, id: string, archived: boolean): Promise<CycleDto> {
    return this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      const ws = ctx.workspace.id;
      const row = await switchArchived<CycleRow>(
        {
          kind: 'cycle',
          lock: () => this.repo.get(ws, ctx.project.id, id, tx, true),
          assertArchivable: (r) => {
            if (!r.end_date || new Date(r.end_date).getTime() >= Date.now())
              throw notArchivable('Only a completed cycle can be archived: its end_date must be in the past.');
          },
          write: async (on) => {
            await this.repo.setArchived(ws, id, on, tx);
            return (await this.repo.get(ws, ctx.project.id, id, tx))!;
          },
          changed: (on, before, after) => this.recordArchive(ctx, on, before, after, tx),
        },
        archived,
        () => ProblemException.notFound('Cycle'),
      );
      return mapCycle(row, await this.items.progress(ws, id, tx));
    });
  }

  private async recordArchive(ctx: ProjectContext, on: boolean, before: CycleRow, after: CycleRow, tx: EntityManager) {
    await this.audit.record(tx, ctx, archiveAuditEntry(ctx, 'cycle', on, after));
    // Plane names no unarchive event: an unarchive is an update of archived_at (as for projects and work items).
    const event = on ? 'cycle.archived' : 'cycle.updated';
    await this.outbox.record(tx, changeEvent(ctx, event, mapCycle(after), mapCycle(before)));
  }

  /** The live cycle a write may change, locked: unknown 404, archived 409 `cycle_archived`. */
  private async lockWritable(ctx: ProjectContext, id: string, tx: EntityManager): Promise<CycleRow> {
    const row = await this.repo.get(ctx.workspace.id, ctx.project.id, id, tx, true);
    if (!row) throw ProblemException.notFound('Cycle');
    assertNotArchived('cycle', row);
    return row;
  }

  private assertEnabled(ctx: ProjectContext, tx: EntityManager): Promise<void> {
    return assertProjectFeatureEnabled(this.features, ctx.workspace.id, ctx.project.id, 'is_cycles_enabled', tx);
  }

  private assertDateOrder(start: string | null, end: string | null): void {
    if (start && end && new Date(end).getTime() < new Date(start).getTime()) {
      throw ProblemException.validation('end_date', 'end_date must not be before start_date.');
    }
  }

  /** Body fields as stored values; dates normalised to UTC. */
  private writable(dto: CreateCycleDto | UpdateCycleDto): CycleWrite {
    const date = (v: string | null | undefined) => (v === undefined ? undefined : v === null ? null : parseDateTime(v));
    return {
      description: dto.description,
      start_date: date(dto.start_date),
      end_date: date(dto.end_date),
      timezone: dto.timezone,
      sort_order: dto.sort_order,
      logo_props: dto.logo_props,
      external_id: dto.external_id,
      external_source: dto.external_source,
    };
  }
}
