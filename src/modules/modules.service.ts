import { Injectable } from '@nestjs/common';
import { assertNameFree, cleanName } from '../common/names/names';
import { DataSource, EntityManager } from 'typeorm';
import { ProjectContext } from '../common/auth/request-context';
import { ProblemException } from '../common/errors/problem.exception';
import { ListQuery } from '../common/pagination/list-query';
import { Queryable } from '../common/pagination/sql-params';
import { assertProjectFeatureEnabled } from '../features/feature-gate';
import { FeatureFlags } from '../features/feature-flags.queries';
import { changeMembership, releaseMembers } from '../common/membership/membership';
import { WorkItemsChangeDto, WorkItemsMembershipDto } from '../common/membership/membership.dto';
import { ModuleWorkItemsRepository } from './module-work-items.repository';
import { CreateModuleDto, ModuleDto, UpdateModuleDto } from './modules.dto';
import { mapModule } from './modules.mapper';
import { ModuleRow, ModulesRepository, ModuleWrite } from './modules.repository';
import { assertExternalPairFree } from '../common/database/external-pair';
import { changeEvent } from '../webhooks/webhook-events';
import { WebhookOutbox } from '../webhooks/webhook-outbox';
import { WorkItemsService } from '../work-items/work-items.service';
import { AuditService } from '../audit/audit.service';
import { archiveAuditEntry, assertNotArchived, notArchivable, switchArchived } from '../common/archive/archive-switch';

/** The statuses a module may be archived in (Plane's rule). */
const CLOSED_STATUSES: readonly string[] = ['completed', 'cancelled'];

/** Gap between a new module and the one it is placed ahead of. */
const SORT_STEP = 1000;
const FIRST_SORT_ORDER = 65535;

/** Modules of a project (spec "Module", gap-reference 3.6). Writes need the project's modules feature on. */
@Injectable()
export class ModulesService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: ModulesRepository,
    private readonly features: FeatureFlags,
    private readonly items: ModuleWorkItemsRepository,
    private readonly outbox: WebhookOutbox,
    private readonly workItems: WorkItemsService,
    private readonly audit: AuditService,
  ) {}

  async list(ctx: ProjectContext, q: ListQuery) {
    const { rows, envelope } = await this.repo.list(ctx.workspace.id, ctx.project.id, q);
    return envelope(await this.mapMany(ctx, rows));
  }

  /** The project's archived modules (the list's filters and orderings). */
  async listArchived(ctx: ProjectContext, q: ListQuery) {
    const { rows, envelope } = await this.repo.list(ctx.workspace.id, ctx.project.id, q, true);
    return envelope(await this.mapMany(ctx, rows));
  }

  /** An archived module is 404 here as in Plane (its list is archived-modules/). */
  async get(ctx: ProjectContext, id: string): Promise<ModuleDto> {
    const row = await this.repo.get(ctx.workspace.id, ctx.project.id, id);
    if (!row || row.archived_at) throw ProblemException.notFound('Module');
    return (await this.mapMany(ctx, [row]))[0];
  }

  async create(ctx: ProjectContext, dto: CreateModuleDto): Promise<ModuleDto> {
    return this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      const v = this.writable(dto);
      const name = cleanName(dto.name);
      await assertNameFree(this.repo.nameTaken(ctx.workspace.id, ctx.project.id, name, null, tx), 'module', name);
      await assertExternalPairFree(
        tx,
        'modules',
        { workspaceId: ctx.workspace.id, projectId: ctx.project.id },
        dto,
        null,
      );
      this.assertDateOrder(v.start_date ?? null, v.target_date ?? null);
      await this.assertLead(ctx, v.lead_id, tx);
      // Serialise creates per project so two new modules cannot both take the same "ahead" slot.
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('modules_sort:' || $1::text))`, [ctx.project.id]);
      const min = await this.repo.minSortOrder(ctx.workspace.id, ctx.project.id, tx);
      const sortOrder =
        min === null
          ? (dto.sort_order ?? FIRST_SORT_ORDER)
          : dto.sort_order !== undefined && dto.sort_order < min
            ? dto.sort_order
            : min - SORT_STEP;
      const id = await this.repo.insert(
        ctx.workspace.id,
        ctx.project.id,
        { ...v, name, sort_order: sortOrder },
        ctx.principal.userId,
        tx,
      );
      const row = await this.repo.get(ctx.workspace.id, ctx.project.id, id, tx);
      const out = (await this.mapMany(ctx, [row!], tx))[0];
      await this.outbox.record(tx, changeEvent(ctx, 'module.created', out));
      return out;
    });
  }

  async update(ctx: ProjectContext, id: string, dto: UpdateModuleDto): Promise<ModuleDto> {
    return this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      const row = await this.lockWritable(ctx, id, tx);
      await assertExternalPairFree(
        tx,
        'modules',
        { workspaceId: ctx.workspace.id, projectId: ctx.project.id },
        dto,
        row,
      );
      const v = this.writable(dto);
      if (dto.name !== undefined) {
        v.name = cleanName(dto.name);
        await assertNameFree(this.repo.nameTaken(ctx.workspace.id, ctx.project.id, v.name, id, tx), 'module', v.name);
      }
      const start = v.start_date !== undefined ? v.start_date : row.start_date;
      const target = v.target_date !== undefined ? v.target_date : row.target_date;
      this.assertDateOrder(start, target);
      // Every non-null lead_id sent is checked, even the stored one: its user may have left the project.
      await this.assertLead(ctx, v.lead_id, tx);
      await this.repo.update(ctx.workspace.id, id, v, tx);
      const updated = await this.repo.get(ctx.workspace.id, ctx.project.id, id, tx);
      const [out, before] = await this.mapMany(ctx, [updated!, row], tx);
      await this.outbox.record(tx, changeEvent(ctx, 'module.updated', out, before));
      return out;
    });
  }

  async remove(ctx: ProjectContext, id: string): Promise<void> {
    await this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      const row = await this.lockWritable(ctx, id, tx);
      await this.repo.softDelete(ctx.workspace.id, id, tx);
      await releaseMembers(tx, ctx, id, this.items);
      await this.outbox.record(tx, changeEvent(ctx, 'module.deleted', { id, name: row.name }));
    });
  }

  /** Adds and removes work items; a work item may be in any number of modules. */
  async changeWorkItems(ctx: ProjectContext, id: string, dto: WorkItemsMembershipDto): Promise<WorkItemsChangeDto> {
    return this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      await this.lockWritable(ctx, id, tx);
      // A work item's module_ids are part of its read shape: each item added or removed is a workitem.updated.
      return changeMembership(tx, ctx, id, dto, this.items, this.workItems.membershipObserver(ctx, tx));
    });
  }

  /** Archive (Plane's rule: only a completed or cancelled module) or unarchive (idempotent). */
  async setArchived(ctx: ProjectContext, id: string, archived: boolean): Promise<ModuleDto> {
    return this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      const ws = ctx.workspace.id;
      const row = await switchArchived<ModuleRow>(
        {
          kind: 'module',
          lock: () => this.repo.get(ws, ctx.project.id, id, tx, true),
          assertArchivable: (r) => {
            if (!CLOSED_STATUSES.includes(r.status))
              throw notArchivable('Only a completed or cancelled module can be archived: set its status first.');
          },
          write: async (on) => {
            await this.repo.setArchived(ws, id, on, tx);
            return (await this.repo.get(ws, ctx.project.id, id, tx))!;
          },
          changed: async (on, before, after) => {
            await this.audit.record(tx, ctx, archiveAuditEntry(ctx, 'module', on, after));
            const [now, was] = await this.mapMany(ctx, [after, before], tx);
            // Plane names no unarchive event: an unarchive is an update of archived_at (as for projects).
            await this.outbox.record(tx, changeEvent(ctx, on ? 'module.archived' : 'module.updated', now, was));
          },
        },
        archived,
        () => ProblemException.notFound('Module'),
      );
      return (await this.mapMany(ctx, [row], tx))[0];
    });
  }

  /** The live module a write may change, locked: unknown 404, archived 409 `module_archived`. */
  private async lockWritable(ctx: ProjectContext, id: string, tx: EntityManager): Promise<ModuleRow> {
    const row = await this.repo.get(ctx.workspace.id, ctx.project.id, id, tx, true);
    if (!row) throw ProblemException.notFound('Module');
    assertNotArchived('module', row);
    return row;
  }

  /** Maps rows with their derived member_ids, loaded in one query for the whole page. */
  private async mapMany(ctx: ProjectContext, rows: ModuleRow[], db?: Queryable): Promise<ModuleDto[]> {
    const members = await this.items.memberIds(
      ctx.workspace.id,
      rows.map((r) => r.id),
      db,
    );
    return rows.map((r) => mapModule(r, members.get(r.id) ?? []));
  }

  private assertEnabled(ctx: ProjectContext, tx: EntityManager): Promise<void> {
    return assertProjectFeatureEnabled(this.features, ctx.workspace.id, ctx.project.id, 'is_modules_enabled', tx);
  }

  private async assertLead(ctx: ProjectContext, leadId: string | null | undefined, tx: EntityManager): Promise<void> {
    if (!leadId) return;
    if (!(await this.repo.isProjectMember(ctx.workspace.id, ctx.project.id, leadId, tx))) {
      throw ProblemException.validation('lead_id', 'Must be the user id of a member of this project.');
    }
  }

  private assertDateOrder(start: string | null, target: string | null): void {
    if (start && target && target < start) {
      throw ProblemException.validation('target_date', 'target_date must not be before start_date.');
    }
  }

  private writable(dto: CreateModuleDto | UpdateModuleDto): ModuleWrite {
    return {
      description: dto.description,
      status: dto.status,
      start_date: dto.start_date,
      target_date: dto.target_date,
      lead_id: dto.lead_id === undefined ? undefined : (dto.lead_id?.toLowerCase() ?? null),
      sort_order: dto.sort_order,
      logo_props: dto.logo_props,
      external_id: dto.external_id,
      external_source: dto.external_source,
    };
  }
}
