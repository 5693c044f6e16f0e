import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { RequestContext } from '../common/auth/request-context';
import { FieldError, ProblemException } from '../common/errors/problem.exception';
import { isUuid } from '../common/http/validation';
import { ListQuery } from '../common/pagination/list-query';
import { CustomValuesRepository } from '../custom-fields/custom-values.repository';
import { contextValueConfig } from '../work-item-property-contexts/context-default';
import { ContextsRepository } from '../work-item-property-contexts/contexts.repository';
import { CatalogAudit } from '../work-item-types/catalog-audit';
import { cleanName, isBlank } from '../common/names/names';
import { Owner } from '../work-item-types/work-item-types.repository';
import { PropertyOptionsRepository } from './property-options.repository';
import { OptionInputDto } from './property-options.dto';
import { checkDefaultValue, checkDefinition } from './property-rules';
import { CreateWorkItemPropertyDto, UpdateWorkItemPropertyDto, WorkItemPropertyDto } from './work-item-properties.dto';
import { auditProperty, mapProperty, OptionRow, PropertyRow, slugify } from './work-item-properties.mapper';
import { PropertyWrite, WorkItemPropertiesRepository } from './work-item-properties.repository';
import { TypeModeGate } from '../work-item-types/type-surface';

/**
 * Property definitions on both surfaces. A workspace-level property is created with a context named
 * `Default` covering all projects and all types; property-level writes of is_required, is_multi,
 * default_value, settings and options are mirrored into that seeded context (it stands for "the
 * property's own configuration everywhere"), other contexts keep their own.
 */
@Injectable()
export class WorkItemPropertiesService {
  constructor(
    private readonly ds: DataSource,
    private readonly gate: TypeModeGate,
    private readonly repo: WorkItemPropertiesRepository,
    private readonly options: PropertyOptionsRepository,
    private readonly contexts: ContextsRepository,
    private readonly values: CustomValuesRepository,
    private readonly audit: CatalogAudit,
  ) {}

  async list(owner: Owner, q: ListQuery) {
    const { rows, envelope } = await this.repo.list(owner, q);
    const opts = await this.options.forProperties(
      owner.workspaceId,
      rows.filter((r) => r.property_type === 'OPTION').map((r) => r.id),
    );
    return envelope(rows.map((r) => mapProperty(r, opts.get(r.id) ?? [])));
  }

  async get(owner: Owner, id: string): Promise<WorkItemPropertyDto> {
    const row = await this.mustGet(owner, id, this.ds);
    const opts = await this.options.forProperties(owner.workspaceId, [row.id]);
    return mapProperty(row, opts.get(row.id) ?? []);
  }

  async create(ctx: RequestContext, owner: Owner, dto: CreateWorkItemPropertyDto): Promise<WorkItemPropertyDto> {
    const displayName = cleanName(dto.display_name, 'display_name');
    return this.gate.transaction(ctx, async (tx) => {
      const type = dto.property_type;
      const relation = this.relationFor(type, dto.relation_type, null);
      const def = {
        property_type: type,
        relation_type: relation,
        is_multi: dto.is_multi ?? false,
        is_required: dto.is_required ?? false,
        validation_rules: dto.validation_rules ?? {},
      };
      const optionInputs = dto.options ?? [];
      this.checkDefinitionAndOptions(def, optionInputs);

      await this.repo.lockOwner(owner, tx);
      const name = await this.repo.freeSlug(owner, slugify(displayName), tx);
      const write: PropertyWrite & { display_name: string; property_type: string } = {
        ...def,
        display_name: displayName,
        description: dto.description,
        is_active: dto.is_active ?? true,
        default_value: type === 'OPTION' ? [] : (dto.default_value ?? []),
        settings: dto.settings ?? {},
        external_id: dto.external_id,
        external_source: dto.external_source,
      };
      let row = await this.repo.insert(owner, name, write, ctx.principal.userId, tx);
      const opts = await this.options.insertMany(
        owner.workspaceId,
        row.id,
        optionInputs.map(optionWrite),
        ctx.principal.userId,
        tx,
      );
      const defaults =
        type === 'OPTION' ? this.optionDefaults(dto.default_value ?? [], opts) : (dto.default_value ?? []);
      await this.assertDefaultValue(owner, { ...def, optionIds: new Set(opts.map((o) => o.id)) }, defaults, tx);
      if (type === 'OPTION' && defaults.length)
        row = await this.repo.update(owner.workspaceId, row.id, { default_value: defaults }, tx);

      if (!owner.projectId) await this.insertDefaultContext(owner, row, opts, ctx.principal.userId, tx);
      await this.audit.record(
        tx,
        ctx,
        owner,
        'work_item_property',
        'created',
        { id: row.id, name: row.display_name },
        {
          new: { ...auditProperty(row), options: opts.map((o) => o.name) },
        },
      );
      return mapProperty(row, opts);
    });
  }

  async update(
    ctx: RequestContext,
    owner: Owner,
    id: string,
    dto: UpdateWorkItemPropertyDto,
  ): Promise<WorkItemPropertyDto> {
    const displayName = dto.display_name === undefined ? undefined : cleanName(dto.display_name, 'display_name');
    return this.gate.transaction(ctx, async (tx) => {
      const old = await this.mustGet(owner, id, tx, true);
      const type = dto.property_type ?? old.property_type;
      const relation = this.relationFor(type, dto.relation_type, old);
      const def = {
        property_type: type,
        relation_type: relation,
        is_multi: dto.is_multi ?? old.is_multi,
        is_required: dto.is_required ?? old.is_required,
        validation_rules: dto.validation_rules === undefined ? old.validation_rules : (dto.validation_rules ?? {}),
      };
      const optionInputs = dto.options ?? [];
      this.checkDefinitionAndOptions(def, optionInputs);

      const optionChanges = await this.upsertOptions(ctx, owner, old.id, optionInputs, tx);
      const opts = (await this.options.forProperties(owner.workspaceId, [old.id], tx)).get(old.id) ?? [];
      const cfg = { ...def, optionIds: new Set(opts.map((o) => o.id)) };
      const definitionChanged =
        type !== old.property_type ||
        relation !== old.relation_type ||
        def.is_multi !== old.is_multi ||
        dto.validation_rules !== undefined;
      let defaults: string[] | undefined;
      if (dto.default_value !== undefined) defaults = dto.default_value ?? [];
      else if (definitionChanged && old.default_value.length) defaults = old.default_value;
      if (defaults !== undefined)
        await this.assertDefaultValue(owner, cfg, defaults, tx, dto.default_value === undefined);

      const write: PropertyWrite = {
        display_name: displayName,
        description: dto.description,
        property_type: dto.property_type,
        relation_type: relation !== old.relation_type ? relation : undefined,
        is_multi: dto.is_multi,
        is_required: dto.is_required,
        is_active: dto.is_active,
        default_value: dto.default_value === undefined ? undefined : defaults,
        settings: dto.settings === undefined ? undefined : (dto.settings ?? {}),
        validation_rules: dto.validation_rules === undefined ? undefined : (dto.validation_rules ?? {}),
        external_id: dto.external_id,
        external_source: dto.external_source,
      };
      const row = await this.repo.update(owner.workspaceId, old.id, write, tx);

      if (!owner.projectId)
        await this.mirrorIntoSeeded(owner, row, write, optionChanges.added, optionChanges.updated.length > 0, tx);

      await this.recordUpdate(tx, ctx, owner, old, row, optionChanges);
      return mapProperty(row, opts);
    });
  }

  private checkDefinitionAndOptions(
    def: Parameters<typeof checkDefinition>[0],
    optionInputs: NonNullable<CreateWorkItemPropertyDto['options']>,
  ): void {
    const errors = checkDefinition(def);
    errors.push(...this.checkOptionPayload(def.property_type, optionInputs));
    if (errors.length) throw ProblemException.validationMany(errors);
  }

  /** A workspace property's Default context: every project, every type, the property's own settings and options. */
  private async insertDefaultContext(
    owner: Owner,
    row: PropertyRow,
    opts: Array<{ id: string; is_default: boolean }>,
    userId: string,
    tx: EntityManager,
  ): Promise<void> {
    const contextId = await this.contexts.insert(
      owner.workspaceId,
      row.id,
      {
        name: 'Default',
        is_default: true,
        is_required: row.is_required,
        is_multi: row.is_multi,
        default_value: row.default_value,
        settings: row.settings,
        applies_to_all_projects: true,
        applies_to_all_work_item_types: true,
        sort_order: 1000,
      },
      userId,
      tx,
    );
    await this.contexts.setOptions(
      owner.workspaceId,
      contextId,
      opts.map((o) => ({ option_id: o.id, is_default: o.is_default })),
      tx,
    );
  }

  /** Records an update when a field or the options changed: old and new values of the changed fields. */
  private async recordUpdate(
    tx: EntityManager,
    ctx: RequestContext,
    owner: Owner,
    old: PropertyRow,
    row: PropertyRow,
    optionChanges: { added: Array<{ id: string }>; updated: string[] },
  ): Promise<void> {
    const before = auditProperty(old);
    const after = auditProperty(row);
    const changed = Object.keys(after).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    const optionsChanged = optionChanges.added.length > 0 || optionChanges.updated.length > 0;
    if (!changed.length && !optionsChanged) return;
    await this.audit.record(
      tx,
      ctx,
      owner,
      'work_item_property',
      'updated',
      { id: row.id, name: row.display_name },
      {
        old: Object.fromEntries(changed.map((k) => [k, before[k]])),
        new: Object.fromEntries(changed.map((k) => [k, after[k]])),
        metadata: {
          changed_fields: optionsChanged ? [...changed, 'options'] : changed,
          options_added: optionChanges.added.map((o) => o.id),
          options_updated: optionChanges.updated,
        },
      },
    );
  }

  /** Permanent: the definition, its options, contexts and attachments go, and every stored value of it. */
  async remove(ctx: RequestContext, owner: Owner, id: string): Promise<void> {
    await this.gate.transaction(ctx, async (tx) => {
      await this.values.lockForPrune(owner.workspaceId, tx);
      const row = await this.mustGet(owner, id, tx, true);
      await this.repo.softDelete(owner.workspaceId, row.id, tx);
      const cleared = await this.values.stripProperty(owner.workspaceId, row.id, tx);
      await this.audit.record(
        tx,
        ctx,
        owner,
        'work_item_property',
        'deleted',
        { id: row.id, name: row.display_name },
        {
          old: auditProperty(row),
          metadata: { values_removed: cleared },
        },
      );
    });
  }

  async mustGet(owner: Owner, id: string, db: EntityManager | DataSource, forUpdate = false): Promise<PropertyRow> {
    const row = await this.repo.get(owner, id, db, forUpdate);
    if (!row) throw ProblemException.notFound('Work item property');
    return row;
  }

  /** relation_type is kept only for RELATION properties; sending one for another type is 400. */
  private relationFor(type: string, sent: string | null | undefined, old: PropertyRow | null): string | null {
    if (type !== 'RELATION') {
      if (sent)
        throw ProblemException.validation(
          'relation_type',
          'relation_type is only meaningful for RELATION properties; send null or omit it.',
        );
      return null;
    }
    if (sent !== undefined) return sent;
    return old?.property_type === 'RELATION' ? old.relation_type : null;
  }

  private checkOptionPayload(type: string, items: OptionInputDto[]): FieldError[] {
    if (!items.length) return [];
    if (type !== 'OPTION') return [{ field: 'options', message: 'Only OPTION properties have options.' }];
    const errors: FieldError[] = [];
    if (items.filter((o) => o.is_default).length > 1)
      errors.push({ field: 'options', message: 'At most one option can be the default.' });
    const seen = new Set<string>();
    items.forEach((o, i) => {
      const k = o.name.trim().toLowerCase();
      if (isBlank(o.name)) errors.push({ field: `options.${i}.name`, message: 'name should not be empty' });
      if (seen.has(k))
        errors.push({ field: `options.${i}.name`, message: `The option name "${o.name}" appears twice.` });
      seen.add(k);
    });
    return errors;
  }

  /** OPTION defaults on create: option ids, or names of options sent in the same request. */
  private optionDefaults(defaults: string[], opts: OptionRow[]): string[] {
    return defaults.map((d, i) => {
      const byId = isUuid(d) ? opts.find((o) => o.id === d.toLowerCase()) : undefined;
      const byName = opts.find((o) => o.name.toLowerCase() === d.trim().toLowerCase());
      const hit = byId ?? byName;
      if (!hit)
        throw ProblemException.validation(
          `default_value.${i}`,
          `"${d}" is neither the id nor the name of an option sent in options.`,
        );
      return hit.id;
    });
  }

  private async assertDefaultValue(
    owner: Owner,
    cfg: Parameters<typeof checkDefaultValue>[0],
    defaults: string[],
    tx: EntityManager,
    inherited = false,
  ): Promise<void> {
    const { errors, refs } = checkDefaultValue(cfg, defaults);
    if (!errors.length) {
      const missing = await this.values.missingRefs(owner.workspaceId, refs, tx);
      if (missing.length)
        errors.push({
          field: 'default_value',
          message: `Unknown ${cfg.relation_type === 'USER' ? 'workspace members' : 'work items'}: ${missing.join(', ')}.`,
        });
    }
    if (errors.length) {
      if (inherited)
        errors.forEach(
          (e) =>
            (e.message = `The stored default_value no longer fits this definition (${e.message}); send a new default_value.`),
        );
      throw ProblemException.validationMany(errors);
    }
  }

  /**
   * PATCH `options`: entries are matched by name (case-insensitive); a match is updated, a new name
   * appended. Default: on the project surface the new default replaces the old one; on the workspace
   * surface a second default is 400 (clear the old one first).
   */
  private async upsertOptions(
    ctx: RequestContext,
    owner: Owner,
    propertyId: string,
    items: OptionInputDto[],
    tx: EntityManager,
  ) {
    const added: OptionRow[] = [];
    const updated: string[] = [];
    if (!items.length) return { added, updated };
    const existing = (await this.options.forProperties(owner.workspaceId, [propertyId], tx)).get(propertyId) ?? [];
    const byName = new Map(existing.map((o) => [o.name.toLowerCase(), o]));
    const wantsDefault = items.find((o) => o.is_default === true);
    if (wantsDefault) {
      const current = existing.find((o) => o.is_default);
      const target = byName.get(wantsDefault.name.trim().toLowerCase());
      if (current && current.id !== target?.id) {
        const clearedInPayload = items.some(
          (o) => o.is_default === false && o.name.trim().toLowerCase() === current.name.toLowerCase(),
        );
        if (!owner.projectId && !clearedInPayload) {
          throw ProblemException.validation(
            'options',
            `"${current.name}" is already the default option; clear it first (no automatic hand-off on the workspace surface).`,
          );
        }
        await this.options.clearDefault(owner.workspaceId, propertyId, null, tx);
      }
    }
    const fresh: OptionInputDto[] = [];
    for (const item of items) {
      const hit = byName.get(item.name.trim().toLowerCase());
      if (!hit) {
        fresh.push(item);
        continue;
      }
      await this.options.update(
        owner.workspaceId,
        hit.id,
        {
          description: item.description,
          is_default: item.is_default,
          external_id: item.external_id,
          external_source: item.external_source,
        },
        tx,
      );
      updated.push(hit.id);
    }
    added.push(
      ...(await this.options.insertMany(
        owner.workspaceId,
        propertyId,
        fresh.map(optionWrite),
        ctx.principal.userId,
        tx,
      )),
    );
    return { added, updated };
  }

  /**
   * Workspace level: new options join the all/all context, then the seeded context follows
   * property-level writes. A `default_value` sent is checked against the seeded context's own
   * configuration as a context default would be (its offered options, its multiplicity): 400 naming
   * `default_value` otherwise. When the seeded context becomes single-valued without a new default,
   * its stored default keeps its first value only.
   */
  private async mirrorIntoSeeded(
    owner: Owner,
    row: PropertyRow,
    write: PropertyWrite,
    added: OptionRow[],
    updated: boolean,
    tx: EntityManager,
  ): Promise<void> {
    const allAll = await this.contexts.allAll(owner.workspaceId, row.id, tx);
    if (allAll) {
      if (added.length)
        await this.contexts.appendOptions(
          owner.workspaceId,
          allAll.id,
          added.map((o) => ({ option_id: o.id, is_default: o.is_default })),
          tx,
        );
      if (added.length || updated) {
        const def = await this.options.currentDefault(owner.workspaceId, row.id, tx);
        if (def) await this.contexts.setContextDefault(owner.workspaceId, allAll.id, def.id, true, tx);
      }
    }
    const seeded = await this.contexts.seeded(owner.workspaceId, row.id, tx);
    if (!seeded) return;
    const isMulti = write.is_multi ?? seeded.is_multi;
    let defaults = write.default_value;
    if (defaults !== undefined) {
      const { errors } = checkDefaultValue(
        contextValueConfig(
          row,
          isMulti,
          seeded.options.map((o) => o.id),
        ),
        defaults,
      );
      if (errors.length) {
        throw ProblemException.validationMany(
          errors.map((e) => ({
            field: e.field,
            message: `Not valid in the context "${seeded.name}", which mirrors the property's own configuration: ${e.message}`,
          })),
        );
      }
    } else if (!isMulti && seeded.default_value.length > 1) {
      defaults = seeded.default_value.slice(0, 1);
    }
    await this.contexts.update(
      owner.workspaceId,
      seeded.id,
      { is_required: write.is_required, is_multi: write.is_multi, default_value: defaults, settings: write.settings },
      tx,
    );
  }
}

function optionWrite(o: OptionInputDto) {
  return {
    name: o.name.trim(),
    description: o.description ?? '',
    is_default: o.is_default ?? false,
    external_id: o.external_id ?? null,
    external_source: o.external_source ?? null,
  };
}
