import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ProjectContext, RequestContext, WorkspaceContext } from '../common/auth/request-context';
import { ErrorCode } from '../common/errors/error-codes';
import { ProblemException } from '../common/errors/problem.exception';
import { ListQuery } from '../common/pagination/list-query';
import { CustomValuesRepository } from '../custom-fields/custom-values.repository';
import { CatalogAudit } from './catalog-audit';
import { assertNameFree, cleanName } from '../common/names/names';
import {
  CreateWorkItemTypeDto,
  ImportWorkItemTypesDto,
  UpdateWorkItemTypeDto,
  WorkItemTypeDto,
} from './work-item-types.dto';
import { auditType, mapType, TypeRow } from './work-item-types.mapper';
import { Owner, TypeWrite, WorkItemTypesRepository } from './work-item-types.repository';
import { TypeModeGate } from './type-surface';

export const DEFAULT_TYPE = {
  name: 'Task',
  description: 'Default work item type with the option to add new properties',
};
export const EPIC_TYPE = { name: 'Epic', description: 'Epic work item type: groups work items' };

const PALETTE = ['#6366F1', '#0EA5E9', '#10B981', '#F59E0B', '#EF4444', '#8B5CF6', '#EC4899', '#14B8A6'];

/** logo_props generated at creation (read-only afterwards): an icon with a colour picked from the name. */
export function generateLogoProps(name: string, epic = false): Record<string, unknown> {
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
  return { in_use: 'icon', icon: { name: epic ? 'Zap' : 'Layers', background_color: PALETTE[h % PALETTE.length] } };
}

export function projectOwner(ctx: ProjectContext): Owner {
  return { workspaceId: ctx.workspace.id, projectId: ctx.project.id };
}

export function workspaceOwner(ctx: WorkspaceContext): Owner {
  return { workspaceId: ctx.workspace.id, projectId: null };
}

/**
 * Work item types on both surfaces. The caller's surface decides the owner (a project or the
 * workspace); the mode gate has run before any write gets here (TypeModeGuard).
 */
@Injectable()
export class WorkItemTypesService {
  constructor(
    private readonly gate: TypeModeGate,
    private readonly repo: WorkItemTypesRepository,
    private readonly values: CustomValuesRepository,
    private readonly audit: CatalogAudit,
  ) {}

  async list(owner: Owner, q: ListQuery) {
    const { rows, envelope } = await this.repo.list(owner, q);
    return envelope(rows.map(mapType));
  }

  /** Project surface reads address the roster (own and imported types); workspace reads workspace types. */
  async get(owner: Owner, id: string): Promise<WorkItemTypeDto> {
    const row = owner.projectId
      ? await this.repo.getInProject(owner.workspaceId, owner.projectId, id)
      : await this.repo.getOwned(owner, id);
    if (!row) throw ProblemException.notFound('Work item type');
    return mapType(row);
  }

  /**
   * Project mode: seeds the project's default type `Task` and an epic type, once. Repeating it
   * returns the same default type and creates nothing.
   */
  async enable(ctx: ProjectContext): Promise<WorkItemTypeDto> {
    return this.gate.transaction(ctx, async (tx) => mapType(await this.ensureEnabled(tx, ctx, projectOwner(ctx))));
  }

  private async ensureEnabled(tx: EntityManager, ctx: RequestContext, owner: Owner): Promise<TypeRow> {
    await this.repo.lockOwner(owner, tx);
    const existing = await this.repo.getDefault(owner, tx);
    if (existing) return existing;
    let name = DEFAULT_TYPE.name;
    for (let n = 2; await this.repo.nameTaken(owner, name, null, tx); n++) name = `${DEFAULT_TYPE.name} ${n}`;
    const task = await this.repo.insert(
      owner,
      { name, description: DEFAULT_TYPE.description, is_default: true, level: 0, logo_props: generateLogoProps(name) },
      ctx.principal.userId,
      tx,
    );
    await this.audit.record(tx, ctx, owner, 'work_item_type', 'created', task, {
      new: auditType(task),
      metadata: { via: 'enable' },
    });
    if (!(await this.repo.hasEpic(owner, tx)) && !(await this.repo.nameTaken(owner, EPIC_TYPE.name, null, tx))) {
      const epic = await this.repo.insert(
        owner,
        {
          name: EPIC_TYPE.name,
          description: EPIC_TYPE.description,
          is_epic: true,
          level: 1,
          logo_props: generateLogoProps(EPIC_TYPE.name, true),
        },
        ctx.principal.userId,
        tx,
      );
      await this.audit.record(tx, ctx, owner, 'work_item_type', 'created', epic, {
        new: auditType(epic),
        metadata: { via: 'enable' },
      });
    }
    return task;
  }

  /**
   * Creates a type. On a project that was never enabled, enabling happens first (so the project
   * keeps exactly one default). The first workspace-level type becomes the workspace default.
   */
  async create(ctx: RequestContext, owner: Owner, dto: CreateWorkItemTypeDto): Promise<WorkItemTypeDto> {
    return this.gate.transaction(ctx, async (tx) => {
      await this.repo.lockOwner(owner, tx);
      const name = cleanName(dto.name);
      let isDefault = false;
      if (owner.projectId) await this.ensureEnabled(tx, ctx, owner);
      else isDefault = !(await this.repo.getDefault(owner, tx));
      await this.assertUnique(owner, { ...dto, name }, null, tx);
      const row = await this.repo.insert(
        owner,
        {
          name,
          description: dto.description,
          is_active: isDefault ? true : dto.is_active,
          external_id: dto.external_id,
          external_source: dto.external_source,
          is_default: isDefault,
          logo_props: generateLogoProps(name),
        },
        ctx.principal.userId,
        tx,
      );
      await this.audit.record(tx, ctx, owner, 'work_item_type', 'created', row, { new: auditType(row) });
      return mapType(row);
    });
  }

  async update(ctx: RequestContext, owner: Owner, id: string, dto: UpdateWorkItemTypeDto): Promise<WorkItemTypeDto> {
    return this.gate.transaction(ctx, async (tx) => {
      const old = await this.mustOwn(owner, id, tx, true);
      const v: TypeWrite = {
        description: dto.description,
        is_active: dto.is_active,
        external_id: dto.external_id,
        external_source: dto.external_source,
      };
      if (dto.name !== undefined) v.name = cleanName(dto.name);
      if (v.is_active === false && old.is_default) {
        throw ProblemException.validation('is_active', 'The default work item type cannot be deactivated.');
      }
      await this.assertUnique(
        owner,
        { name: v.name, external_id: dto.external_id, external_source: dto.external_source },
        old,
        tx,
      );
      const row = await this.repo.update(owner.workspaceId, id, v, tx);
      const before = auditType(old);
      const after = auditType(row);
      const changed = Object.keys(after).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
      if (changed.length) {
        await this.audit.record(tx, ctx, owner, 'work_item_type', 'updated', row, {
          old: pick(before, changed),
          new: pick(after, changed),
          metadata: { changed_fields: changed },
        });
      }
      return mapType(row);
    });
  }

  /** 409 for the default type and for a type any live work item still uses (deactivate it instead). */
  async remove(ctx: RequestContext, owner: Owner, id: string): Promise<void> {
    await this.gate.transaction(ctx, async (tx) => {
      await this.repo.lockOwner(owner, tx);
      const row = await this.mustOwn(owner, id, tx, true);
      if (row.is_default) {
        throw ProblemException.conflict(
          'The default work item type cannot be deleted; mark another type as the default first.',
        );
      }
      if (await this.values.typeInUse(owner.workspaceId, id, tx)) {
        throw ProblemException.conflict(
          'The work item type is used by work items and cannot be deleted; deactivate it instead (is_active false).',
        );
      }
      await this.repo.softDelete(owner.workspaceId, id, tx);
      await this.audit.record(tx, ctx, owner, 'work_item_type', 'deleted', row, { old: auditType(row) });
    });
  }

  /** Promotes a type to the default of its owner and demotes the previous one, in one transaction. */
  async markDefault(ctx: RequestContext, owner: Owner, id: string): Promise<WorkItemTypeDto> {
    return this.gate.transaction(ctx, async (tx) => {
      await this.repo.lockOwner(owner, tx);
      const row = await this.mustOwn(owner, id, tx, true);
      if (row.is_default) return mapType(row);
      if (row.is_epic) throw ProblemException.validation('pk', 'An epic type cannot be the default work item type.');
      if (!row.is_active)
        throw ProblemException.validation('pk', 'An inactive work item type cannot be the default; activate it first.');
      const previous = await this.repo.getDefault(owner, tx);
      const promoted = await this.repo.setDefault(owner, id, tx);
      await this.audit.record(tx, ctx, owner, 'work_item_type', 'updated', promoted, {
        old: { is_default: false },
        new: { is_default: true },
        metadata: { changed_fields: ['is_default'], action: 'mark_default', previous_default_id: previous?.id ?? null },
      });
      return mapType(promoted);
    });
  }

  /** Workspace mode: adds workspace-level types to the project's roster. All ids valid, or 400 and nothing imported. */
  async importTypes(ctx: ProjectContext, dto: ImportWorkItemTypesDto): Promise<void> {
    const ids = [...new Set(dto.work_item_types.map((s) => s.toLowerCase()))];
    await this.gate.transaction(ctx, async (tx) => {
      const found = await this.repo.workspaceTypeIds(ctx.workspace.id, ids, tx);
      const bad = ids.filter((i) => !found.has(i));
      if (bad.length) {
        throw ProblemException.validation(
          'work_item_types',
          `Not workspace-level work item types of this workspace: ${bad.join(', ')}.`,
        );
      }
      const added = await this.repo.importIntoProject(ctx.workspace.id, ctx.project.id, ids, ctx.principal.userId, tx);
      if (added.length) {
        await this.audit.record(
          tx,
          ctx,
          projectOwner(ctx),
          'work_item_type',
          'imported',
          { id: ctx.project.id, name: ctx.project.name },
          {
            new: { work_item_types: added },
            metadata: { requested: ids },
          },
        );
      }
    });
  }

  private async mustOwn(owner: Owner, id: string, tx: EntityManager, forUpdate = false): Promise<TypeRow> {
    const row = await this.repo.getOwned(owner, id, tx, forUpdate);
    if (!row) throw ProblemException.notFound('Work item type');
    return row;
  }

  private async assertUnique(
    owner: Owner,
    v: { name?: string; external_id?: string | null; external_source?: string | null },
    old: TypeRow | null,
    tx: EntityManager,
  ): Promise<void> {
    if (v.name !== undefined) {
      const scope = owner.projectId ? 'in this project' : 'in this workspace';
      await assertNameFree(this.repo.nameTaken(owner, v.name, old?.id ?? null, tx), 'work item type', v.name, scope);
    }
    const externalId = v.external_id === undefined ? (old?.external_id ?? null) : v.external_id;
    const externalSource = v.external_source === undefined ? (old?.external_source ?? null) : v.external_source;
    const touched = v.external_id !== undefined || v.external_source !== undefined;
    if (
      touched &&
      externalId &&
      (await this.repo.externalTaken(owner, externalId, externalSource, old?.id ?? null, tx))
    ) {
      throw new ProblemException(
        ErrorCode.Conflict,
        `The external_id/external_source pair (${externalId}, ${externalSource}) is already used by another work item type.`,
      );
    }
  }
}

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}
