import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { WorkspaceContext } from '../common/auth/request-context';
import { FieldError, ProblemException } from '../common/errors/problem.exception';
import { ListQuery } from '../common/pagination/list-query';
import { CustomValuesRepository } from '../custom-fields/custom-values.repository';
import { PropertyOptionsRepository } from '../work-item-properties/property-options.repository';
import { checkDefaultValue, checkDefinition } from '../work-item-properties/property-rules';
import { PropertyRow } from '../work-item-properties/work-item-properties.mapper';
import { WorkItemPropertiesService } from '../work-item-properties/work-item-properties.service';
import { CatalogAudit } from '../work-item-types/catalog-audit';
import { isBlank } from '../common/names/names';
import { WorkItemTypesRepository } from '../work-item-types/work-item-types.repository';
import { workspaceOwner } from '../work-item-types/work-item-types.service';
import { contextValueConfig } from './context-default';
import { contextTier } from './context-resolution';
import {
  ContextOptionInputDto,
  CreatePropertyContextDto,
  PropertyContextDto,
  UpdatePropertyContextDto,
} from './contexts.dto';
import { auditContext, mapContext } from './contexts.mapper';
import { ContextRow, ContextsRepository, ContextWrite } from './contexts.repository';
import { TypeModeGate } from '../work-item-types/type-surface';

interface Scope {
  allProjects: boolean;
  projectIds: string[];
  allTypes: boolean;
  typeIds: string[];
}

/** A resolved `options` payload: existing option ids to keep and new options to create, in order. */
interface OptionPlan {
  entries: Array<{ id?: string; name?: string; description?: string; is_default: boolean }>;
}

/**
 * Contexts of workspace-level properties (spec "Property context"): validation of both axes,
 * same-tier overlap refusal, set-replacement of project_ids, issue_type_ids and options on PATCH,
 * and re-resolution of stored values whenever a scope or an option list changes.
 */
@Injectable()
export class ContextsService {
  constructor(
    private readonly ds: DataSource,
    private readonly gate: TypeModeGate,
    private readonly repo: ContextsRepository,
    private readonly properties: WorkItemPropertiesService,
    private readonly options: PropertyOptionsRepository,
    private readonly types: WorkItemTypesRepository,
    private readonly values: CustomValuesRepository,
    private readonly audit: CatalogAudit,
  ) {}

  /** A project-level property id is 404. */
  async list(ctx: WorkspaceContext, propertyId: string, q: ListQuery) {
    const property = await this.properties.mustGet(workspaceOwner(ctx), propertyId, this.ds);
    const { rows, envelope } = await this.repo.list(ctx.workspace.id, property.id, q);
    return envelope(rows.map(mapContext));
  }

  async get(ctx: WorkspaceContext, propertyId: string, id: string): Promise<PropertyContextDto> {
    const property = await this.properties.mustGet(workspaceOwner(ctx), propertyId, this.ds);
    return mapContext(await this.mustGet(ctx.workspace.id, property.id, id, this.ds));
  }

  async create(ctx: WorkspaceContext, propertyId: string, dto: CreatePropertyContextDto): Promise<PropertyContextDto> {
    return this.gate.transaction(ctx, async (tx) => {
      await this.values.lockForPrune(ctx.workspace.id, tx);
      const owner = workspaceOwner(ctx);
      const property = await this.properties.mustGet(owner, propertyId, tx, true);
      const siblings = await this.repo.all(ctx.workspace.id, property.id, tx);
      const errors: FieldError[] = [];

      const scope = await this.scopeFor(ctx, dto, null, errors, tx);
      const name = (dto.name ?? 'Default').trim();
      this.checkName(name, siblings, null, errors);
      const external = this.checkExternal(dto, null, siblings, errors);
      const plan = await this.planOptions(property, dto.options, errors, tx);
      const isMulti = dto.is_multi ?? property.is_multi;
      const isRequired = dto.is_required ?? property.is_required;
      errors.push(...this.checkFlags(property, isMulti, isRequired, dto));
      if (scope) this.checkSiblings(scope, siblings, null, errors);
      if (errors.length) throw ProblemException.validationMany(errors);

      const id = await this.repo.insert(
        ctx.workspace.id,
        property.id,
        {
          name,
          is_required: isRequired,
          is_multi: isMulti,
          default_value: [],
          settings: dto.settings === undefined ? property.settings : (dto.settings ?? {}),
          sort_order: dto.sort_order ?? (await this.repo.nextSortOrder(ctx.workspace.id, property.id, tx)),
          applies_to_all_projects: scope!.allProjects,
          applies_to_all_work_item_types: scope!.allTypes,
          external_id: external.external_id,
          external_source: external.external_source,
        },
        ctx.principal.userId,
        tx,
      );
      await this.repo.setProjects(ctx.workspace.id, id, scope!.projectIds, tx);
      await this.repo.setTypes(ctx.workspace.id, id, scope!.typeIds, tx);
      await this.applyOptions(ctx, property, id, plan, tx);
      const defaults = dto.default_value === undefined ? property.default_value : (dto.default_value ?? []);
      await this.applyDefault(ctx, property, id, isMulti, defaults, dto.default_value === undefined, tx);
      // A new, more specific context wins for its combinations: values holding options it does not offer go.
      const valuesChanged = await this.reconcileValues(ctx, property, tx);

      const row = (await this.repo.get(ctx.workspace.id, property.id, id, tx))!;
      await this.audit.record(
        tx,
        ctx,
        owner,
        'work_item_property_context',
        'created',
        { id: row.id, name: row.name },
        {
          new: auditContext(row),
          metadata: { property_id: property.id, values_changed: valuesChanged },
        },
      );
      return mapContext(row);
    });
  }

  async update(
    ctx: WorkspaceContext,
    propertyId: string,
    id: string,
    dto: UpdatePropertyContextDto,
  ): Promise<PropertyContextDto> {
    return this.gate.transaction(ctx, async (tx) => {
      await this.values.lockForPrune(ctx.workspace.id, tx);
      const owner = workspaceOwner(ctx);
      const property = await this.properties.mustGet(owner, propertyId, tx, true);
      const old = await this.mustGet(ctx.workspace.id, property.id, id, tx, true);
      const siblings = (await this.repo.all(ctx.workspace.id, property.id, tx)).filter((c) => c.id !== old.id);
      const errors: FieldError[] = [];

      const scope = await this.scopeFor(ctx, dto, old, errors, tx);
      if (dto.name !== undefined) this.checkName(dto.name.trim(), siblings, old.id, errors);
      const external = this.checkExternal(dto, old, siblings, errors);
      const plan = dto.options === undefined ? null : await this.planOptions(property, dto.options, errors, tx);
      const isMulti = dto.is_multi ?? old.is_multi;
      errors.push(...this.checkFlags(property, isMulti, dto.is_required ?? old.is_required, dto));
      if (scope) this.checkSiblings(scope, siblings, old.id, errors);
      if (errors.length) throw ProblemException.validationMany(errors);

      const write: ContextWrite = {
        name: dto.name?.trim(),
        is_required: dto.is_required,
        is_multi: dto.is_multi,
        settings: dto.settings === undefined ? undefined : (dto.settings ?? {}),
        sort_order: dto.sort_order,
        applies_to_all_projects: scope!.allProjects,
        applies_to_all_work_item_types: scope!.allTypes,
        external_id: external.external_id,
        external_source: external.external_source,
      };
      await this.repo.update(ctx.workspace.id, old.id, write, tx);
      const scopeChanged = await this.applyScope(ctx, old, scope!, tx);
      let removedOptions: string[] = [];
      if (plan) {
        const kept = await this.applyOptions(ctx, property, old.id, plan, tx);
        removedOptions = old.options.map((o) => o.id).filter((o) => !kept.includes(o));
      }
      // default_value: as sent, else the stored one minus options this context no longer offers.
      const defaults = dto.default_value === undefined ? old.default_value : (dto.default_value ?? []);
      await this.applyDefault(ctx, property, old.id, isMulti, defaults, dto.default_value === undefined, tx);

      let deletedOptions: string[] = [];
      if (removedOptions.length) {
        deletedOptions = await this.repo.unofferedOptions(ctx.workspace.id, property.id, removedOptions, tx);
        await this.options.softDelete(ctx.workspace.id, deletedOptions, tx);
      }
      const valuesChanged = scopeChanged || plan ? await this.reconcileValues(ctx, property, tx) : 0;

      const row = (await this.repo.get(ctx.workspace.id, property.id, old.id, tx))!;
      await this.recordUpdate(tx, ctx, old, row, {
        property_id: property.id,
        options_deleted: deletedOptions,
        values_changed: valuesChanged,
      });
      return mapContext(row);
    });
  }

  /** Values of the property re-checked against the contexts now in force; the number changed. */
  private reconcileValues(ctx: WorkspaceContext, property: PropertyRow, tx: EntityManager): Promise<number> {
    return this.values.reconcileWorkspaceProperty(
      ctx.workspace.id,
      property.id,
      property.property_type === 'OPTION',
      tx,
    );
  }

  /** Stores the context's projects and types when its scope changed; whether it did. */
  private async applyScope(ctx: WorkspaceContext, old: ContextRow, scope: Scope, tx: EntityManager): Promise<boolean> {
    const changed =
      scope.allProjects !== old.applies_to_all_projects ||
      scope.allTypes !== old.applies_to_all_work_item_types ||
      !sameSet(scope.projectIds, old.applies_to_all_projects ? [] : old.project_ids) ||
      !sameSet(scope.typeIds, old.applies_to_all_work_item_types ? [] : old.issue_type_ids);
    if (changed) {
      await this.repo.setProjects(ctx.workspace.id, old.id, scope.projectIds, tx);
      await this.repo.setTypes(ctx.workspace.id, old.id, scope.typeIds, tx);
    }
    return changed;
  }

  /** Records an update that changed a field: old and new values of the changed fields. */
  private async recordUpdate(
    tx: EntityManager,
    ctx: WorkspaceContext,
    old: ContextRow,
    row: ContextRow,
    metadata: { property_id: string; options_deleted: string[]; values_changed: number },
  ): Promise<void> {
    const before = auditContext(old);
    const after = auditContext(row);
    const changed = Object.keys(after).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    if (!changed.length) return;
    await this.audit.record(
      tx,
      ctx,
      workspaceOwner(ctx),
      'work_item_property_context',
      'updated',
      { id: row.id, name: row.name },
      {
        old: Object.fromEntries(changed.map((k) => [k, before[k]])),
        new: Object.fromEntries(changed.map((k) => [k, after[k]])),
        metadata: {
          property_id: metadata.property_id,
          changed_fields: changed,
          options_deleted: metadata.options_deleted,
          values_changed: metadata.values_changed,
        },
      },
    );
  }

  /**
   * Deletes the context and the options only it offered; work items it alone covered lose their
   * values. Deleting the seeded all/all context frees the all-projects slot.
   */
  async remove(ctx: WorkspaceContext, propertyId: string, id: string): Promise<void> {
    await this.gate.transaction(ctx, async (tx) => {
      await this.values.lockForPrune(ctx.workspace.id, tx);
      const owner = workspaceOwner(ctx);
      const property = await this.properties.mustGet(owner, propertyId, tx, true);
      const old = await this.mustGet(ctx.workspace.id, property.id, id, tx, true);
      await this.repo.softDelete(ctx.workspace.id, old.id, tx);
      const deletedOptions = await this.repo.unofferedOptions(
        ctx.workspace.id,
        property.id,
        old.options.map((o) => o.id),
        tx,
      );
      await this.options.softDelete(ctx.workspace.id, deletedOptions, tx);
      const valuesChanged = await this.reconcileValues(ctx, property, tx);
      await this.audit.record(
        tx,
        ctx,
        owner,
        'work_item_property_context',
        'deleted',
        { id: old.id, name: old.name },
        {
          old: auditContext(old),
          metadata: { property_id: property.id, options_deleted: deletedOptions, values_changed: valuesChanged },
        },
      );
    });
  }

  private async mustGet(
    workspaceId: string,
    propertyId: string,
    id: string,
    db: EntityManager | DataSource,
    forUpdate = false,
  ): Promise<ContextRow> {
    const row = await this.repo.get(workspaceId, propertyId, id, db, forUpdate);
    if (!row) throw ProblemException.notFound('Property context');
    return row;
  }

  /**
   * Both axes pinned: the wildcard flag true, or a non-empty id list (not both). On PATCH a list
   * sent replaces the stored one; turning a flag on clears its list, turning it off needs the list.
   */
  private async scopeFor(
    ctx: WorkspaceContext,
    dto: CreatePropertyContextDto | UpdatePropertyContextDto,
    old: ContextRow | null,
    errors: FieldError[],
    tx: EntityManager,
  ): Promise<Scope | null> {
    const axis = async (
      flagName: 'applies_to_all_projects' | 'applies_to_all_work_item_types',
      listName: 'project_ids' | 'issue_type_ids',
      oldFlag: boolean,
      oldList: string[],
      known: (ids: string[]) => Promise<Set<string>>,
      what: string,
    ): Promise<{ all: boolean; ids: string[] } | null> => {
      const flag = dto[flagName] ?? oldFlag;
      const sent = dto[listName];
      const list = (sent === undefined ? (flag ? [] : oldList) : (sent ?? [])).map((s) => s.toLowerCase());
      const before = errors.length;
      if (flag && list.length)
        errors.push({ field: listName, message: `${listName} must be empty when ${flagName} is true.` });
      if (!flag && !list.length) {
        errors.push({
          field: listName,
          message: `Pin this axis: send a non-empty ${listName} or set ${flagName} to true.`,
        });
      }
      const dup = list.filter((x, i) => list.indexOf(x) !== i);
      if (dup.length) errors.push({ field: listName, message: `Duplicate ids: ${[...new Set(dup)].join(', ')}.` });
      if (list.length && errors.length === before) {
        const found = await known([...new Set(list)]);
        const bad = list.filter((x) => !found.has(x));
        if (bad.length) errors.push({ field: listName, message: `Not ${what} of this workspace: ${bad.join(', ')}.` });
      }
      return errors.length === before ? { all: flag, ids: flag ? [] : list } : null;
    };
    const p = await axis(
      'applies_to_all_projects',
      'project_ids',
      old?.applies_to_all_projects ?? false,
      old?.project_ids ?? [],
      (ids) => this.repo.workspaceProjectIds(ctx.workspace.id, ids, tx),
      'projects',
    );
    const t = await axis(
      'applies_to_all_work_item_types',
      'issue_type_ids',
      old?.applies_to_all_work_item_types ?? false,
      old?.issue_type_ids ?? [],
      (ids) => this.types.workspaceTypeIds(ctx.workspace.id, ids, tx),
      'workspace-level work item types',
    );
    if (!p || !t) return null;
    return { allProjects: p.all, projectIds: p.ids, allTypes: t.all, typeIds: t.ids };
  }

  /**
   * is_multi and is_required of a context follow the property's per-type rules (checkDefinition):
   * is_multi only where the type allows lists, never is_required on a FORMULA property. Only the
   * flags the request sends are judged (a stored flag is not re-litigated on an unrelated PATCH).
   */
  private checkFlags(
    property: PropertyRow,
    isMulti: boolean,
    isRequired: boolean,
    dto: CreatePropertyContextDto | UpdatePropertyContextDto,
  ): FieldError[] {
    const sent = new Set(['is_multi', 'is_required'].filter((k) => dto[k as 'is_multi' | 'is_required'] !== undefined));
    return checkDefinition({ ...property, is_multi: isMulti, is_required: isRequired, validation_rules: {} }).filter(
      (e) => sent.has(e.field),
    );
  }

  /** One all-projects context per property; no two contexts of the same tier may cover a common (project, type). */
  private checkSiblings(scope: Scope, siblings: ContextRow[], selfId: string | null, errors: FieldError[]): void {
    const others = siblings.filter((s) => s.id !== selfId);
    if (scope.allProjects) {
      const holder = others.find((s) => s.applies_to_all_projects);
      if (holder) {
        errors.push({
          field: 'applies_to_all_projects',
          message: `Only one context per property may apply to all projects; "${holder.name}" already does.`,
        });
        return;
      }
    }
    const tier = contextTier(scope.allProjects, scope.allTypes);
    for (const s of others) {
      if (contextTier(s.applies_to_all_projects, s.applies_to_all_work_item_types) !== tier) continue;
      const projects = scope.allProjects || intersects(scope.projectIds, s.project_ids);
      const types = scope.allTypes || intersects(scope.typeIds, s.issue_type_ids);
      if (projects && types) {
        errors.push({
          field: tier === 3 ? 'issue_type_ids' : 'project_ids',
          message: `Overlaps the context "${s.name}" at the same specificity tier (${tier}); contexts may overlap only when one is strictly more specific.`,
        });
      }
    }
  }

  private checkName(name: string, siblings: ContextRow[], selfId: string | null, errors: FieldError[]): void {
    if (isBlank(name)) {
      errors.push({ field: 'name', message: 'name should not be empty' });
      return;
    }
    const clash = siblings.find((s) => s.id !== selfId && s.name.toLowerCase() === name.toLowerCase());
    if (clash) errors.push({ field: 'name', message: `The property already has a context named "${clash.name}".` });
  }

  /** external_id and external_source come together (both or neither), the pair unique within the property. */
  private checkExternal(
    dto: CreatePropertyContextDto | UpdatePropertyContextDto,
    old: ContextRow | null,
    siblings: ContextRow[],
    errors: FieldError[],
  ): { external_id: string | null | undefined; external_source: string | null | undefined } {
    if (dto.external_id === undefined && dto.external_source === undefined)
      return { external_id: undefined, external_source: undefined };
    const id = dto.external_id === undefined ? (old?.external_id ?? null) : dto.external_id;
    const source = dto.external_source === undefined ? (old?.external_source ?? null) : dto.external_source;
    if (!id !== !source) {
      errors.push({
        field: id ? 'external_source' : 'external_id',
        message: 'Send external_id and external_source together (both or neither).',
      });
    } else if (id && siblings.some((s) => s.id !== old?.id && s.external_id === id && s.external_source === source)) {
      errors.push({
        field: 'external_id',
        message: `Another context of this property already uses the external pair (${id}, ${source}).`,
      });
    }
    return { external_id: id ?? null, external_source: source ?? null };
  }

  /** Entries are `{id}` (an existing option of the property) or `{name, ...}` (a new one). */
  private async planOptions(
    property: PropertyRow,
    items: ContextOptionInputDto[] | null | undefined,
    errors: FieldError[],
    tx: EntityManager,
  ): Promise<OptionPlan> {
    const list = items ?? [];
    const plan: OptionPlan = { entries: [] };
    if (!list.length) return plan;
    if (property.property_type !== 'OPTION') {
      errors.push({ field: 'options', message: 'Only OPTION properties have options.' });
      return plan;
    }
    const existing = new Map(
      ((await this.options.forProperties(property.workspace_id, [property.id], tx)).get(property.id) ?? []).map((o) => [
        o.id,
        o,
      ]),
    );
    const ids = new Set<string>();
    const names = new Set<string>();
    list.forEach((e, i) => {
      const field = `options.${i}`;
      if (e.id) {
        const id = e.id.toLowerCase();
        const opt = existing.get(id);
        if (!opt) errors.push({ field: `${field}.id`, message: `${id} is not an option of this property.` });
        else if (ids.has(id)) errors.push({ field: `${field}.id`, message: `The option ${id} is listed twice.` });
        else names.add(opt.name.toLowerCase());
        ids.add(id);
        plan.entries.push({ id, is_default: e.is_default ?? false });
      } else if (e.name !== undefined && e.name.trim()) {
        plan.entries.push({ name: e.name.trim(), description: e.description ?? '', is_default: e.is_default ?? false });
      } else {
        errors.push({ field, message: 'Each option needs either an id (existing option) or a name (new option).' });
      }
    });
    plan.entries.forEach((e, i) => {
      if (!e.name) return;
      const k = e.name.toLowerCase();
      if (names.has(k))
        errors.push({
          field: `options.${i}.name`,
          message: `The option name "${e.name}" appears twice (names are unique case-insensitively).`,
        });
      names.add(k);
    });
    if (plan.entries.filter((e) => e.is_default).length > 1)
      errors.push({ field: 'options', message: 'At most one option can be the default of a context.' });
    return plan;
  }

  /** Creates the new options (appended to the property's list) and sets the context's options in entry order; returns the ids offered. */
  private async applyOptions(
    ctx: WorkspaceContext,
    property: PropertyRow,
    contextId: string,
    plan: OptionPlan,
    tx: EntityManager,
  ): Promise<string[]> {
    const fresh = plan.entries.filter((e) => !e.id);
    const created = await this.options.insertMany(
      ctx.workspace.id,
      property.id,
      fresh.map((e) => ({
        name: e.name!,
        description: e.description ?? '',
        is_default: false,
        external_id: null,
        external_source: null,
      })),
      ctx.principal.userId,
      tx,
    );
    let n = 0;
    const items = plan.entries.map((e) => ({ option_id: e.id ?? created[n++].id, is_default: e.is_default }));
    await this.repo.setOptions(ctx.workspace.id, contextId, items, tx);
    return items.map((i) => i.option_id);
  }

  /**
   * Validates and stores the context's default_value against its own configuration (its options for
   * OPTION properties). An inherited default (not sent) silently drops option ids the context does not offer.
   */
  private async applyDefault(
    ctx: WorkspaceContext,
    property: PropertyRow,
    contextId: string,
    isMulti: boolean,
    defaults: string[],
    inherited: boolean,
    tx: EntityManager,
  ): Promise<void> {
    const row = (await this.repo.get(ctx.workspace.id, property.id, contextId, tx))!;
    const offered = new Set(row.options.map((o) => o.id));
    let value = defaults;
    if (inherited && property.property_type === 'OPTION') value = value.filter((d) => offered.has(d.toLowerCase()));
    if (inherited && !isMulti && value.length > 1) value = value.slice(0, 1);
    const { errors, refs } = checkDefaultValue(contextValueConfig(property, isMulti, offered), value);
    if (!errors.length) {
      const missing = await this.values.missingRefs(ctx.workspace.id, refs, tx);
      if (missing.length)
        errors.push({ field: 'default_value', message: `Unknown references: ${missing.join(', ')}.` });
    }
    if (errors.length) throw ProblemException.validationMany(errors);
    if (JSON.stringify(value) !== JSON.stringify(row.default_value))
      await this.repo.update(ctx.workspace.id, contextId, { default_value: value }, tx);
  }
}

function intersects(a: string[], b: string[]): boolean {
  const s = new Set(b);
  return a.some((x) => s.has(x));
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && intersects(a, b) === a.length > 0 && a.every((x) => b.includes(x));
}
