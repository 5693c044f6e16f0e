import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FieldError, ProblemException } from '../common/errors/problem.exception';
import { isUuid } from '../common/http/validation';
import { Queryable } from '../common/pagination/sql-params';
import { FeatureFlags } from '../features/feature-flags.queries';
import {
  coerceValue,
  defaultAsInput,
  StoredValue,
  ValueConfig,
  ValueError,
  ValueRefs,
} from '../work-item-properties/property-rules';
import { CustomValuesRepository } from './custom-values.repository';
import { EffectivePropertiesRepository, EffectiveProperty, pairKey } from './effective-properties.repository';
import { Viewer } from '../common/auth/roles';

/** Stored form: `work_items.custom_values`, keyed by property id. */
export type CustomValues = Record<string, StoredValue>;

export interface CustomFieldRead {
  id: string;
  value: StoredValue;
  value_detail: Detail | Detail[] | null;
}

interface Detail {
  id: string;
  name: string;
  logo_props: Record<string, unknown>;
}

/** Read shape of `custom_fields`: keyed by property name. */
export type CustomFieldsRead = Record<string, CustomFieldRead>;

/** A work item as far as custom fields are concerned. */
export interface CustomFieldsItem {
  id: string;
  project_id: string;
  type_id: string | null;
  custom_values: CustomValues | null;
}

export function valueConfig(p: EffectiveProperty): ValueConfig {
  return {
    property_type: p.property_type,
    relation_type: p.relation_type,
    is_multi: p.is_multi,
    validation_rules: p.validation_rules ?? {},
    optionIds: new Set(p.options.map((o) => o.id)),
  };
}

/**
 * The default a property gives a new work item: for OPTION properties the option flagged default
 * in scope (the context's flag for workspace properties) wins over default_value.
 */
export function defaultInput(p: EffectiveProperty): unknown {
  if (p.property_type === 'FORMULA') return null;
  if (p.property_type === 'OPTION') {
    const flagged = p.options.find((o) => o.is_default);
    if (flagged) return p.is_multi ? [flagged.id] : flagged.id;
  }
  return defaultAsInput(p, p.default_value ?? []);
}

/**
 * `custom_fields` of work items: validation against the work item's type (create and PATCH), and the
 * read shape. Values live in `work_items.custom_values` keyed by property id, so renames of
 * display names and options never touch them, and a page of work items reads them with its rows.
 */
@Injectable()
export class CustomFieldsService {
  constructor(
    private readonly ds: DataSource,
    private readonly effective: EffectivePropertiesRepository,
    private readonly values: CustomValuesRepository,
    private readonly features: FeatureFlags,
  ) {}

  /**
   * Whether custom properties are on for the workspace (`is_custom_properties_enabled`). Sending
   * `custom_fields` while they are off is 400 naming `custom_fields`.
   */
  async assertEnabled(workspaceId: string, input: unknown, db: Queryable = this.ds): Promise<boolean> {
    const enabled = await this.features.isCustomPropertiesEnabled(workspaceId, db);
    if (!enabled && input !== undefined) {
      throw ProblemException.validation(
        'custom_fields',
        'Custom properties are not enabled for this workspace (workspace feature is_custom_properties_enabled).',
      );
    }
    return enabled;
  }

  /**
   * Values for a new work item: sent keys validated, omitted properties take their defaults, a
   * required property left without value or usable default is 400. A default that no longer
   * validates (an option or a related work item gone since) is skipped, never an error on a key the
   * client did not send. With custom properties off nothing is applied or checked: `{}`.
   */
  async forCreate(
    db: Queryable,
    workspaceId: string,
    projectId: string,
    typeId: string | null,
    input: unknown,
    viewer: Viewer,
  ): Promise<CustomValues> {
    // An untyped item has no properties, and nothing was sent to refuse: `{}` whether the feature is on or off,
    // without reading it (one statement of the four of a plain create).
    if (typeId === null && input === undefined) return {};
    if (!(await this.assertEnabled(workspaceId, input, db))) return {};
    const sent = this.inputObject(input);
    // Inside the caller's transaction (see CustomValuesRepository.holdForWrite).
    if (typeId) await this.values.holdForWrite(workspaceId, db);
    const props = typeId
      ? (await this.effective.forType(workspaceId, projectId, typeId, db)).filter((p) => p.is_active)
      : [];
    const errors: FieldError[] = [];
    this.unknownKeys(sent, props, typeId, errors);
    const out: CustomValues = {};
    const refsByProp = new Map<string, ValueRefs>();
    const defaulted = new Set<string>();
    for (const p of props) {
      const field = `custom_fields.${p.name}`;
      const refs: ValueRefs = { issues: [], users: [] };
      let value: StoredValue | null;
      try {
        value = this.valueFor(p, sent, Object.prototype.hasOwnProperty.call(sent, p.name), refs, defaulted);
      } catch (e) {
        if (!(e instanceof ValueError)) throw e;
        errors.push({ field, message: e.message });
        continue;
      }
      if (value === null) {
        if (p.is_required) errors.push({ field, message: requiredMessage(p) });
        continue;
      }
      out[p.id] = value;
      refsByProp.set(p.id, refs);
    }
    await this.checkRefs(workspaceId, props, refsByProp, defaulted, out, errors, true, db, { viewer, stored: null });
    if (errors.length) throw ProblemException.validationMany(errors);
    return out;
  }

  /**
   * Values after a PATCH. Only the keys sent change (null clears one; clearing a required one is
   * 400); the others are kept as stored, without a required check. When the type changes, values of
   * properties the new type does not have are dropped and the new type's usable defaults fill the
   * gaps (a stale default is skipped). Values of inactive properties are kept untouched (they come
   * back on reactivation). With custom properties off the stored values are returned untouched.
   */
  async forUpdate(
    db: Queryable,
    workspaceId: string,
    projectId: string,
    item: { type_id: string | null; custom_values: CustomValues | null },
    newTypeId: string | null | undefined,
    input: unknown,
    viewer: Viewer,
  ): Promise<CustomValues> {
    if (!(await this.assertEnabled(workspaceId, input, db))) return { ...(item.custom_values ?? {}) };
    const sent = this.inputObject(input);
    const typeId = newTypeId === undefined ? item.type_id : newTypeId;
    const typeChanged = typeId !== item.type_id;
    if (typeId) await this.values.holdForWrite(workspaceId, db);
    const all = typeId ? await this.effective.forType(workspaceId, projectId, typeId, db) : [];
    const active = all.filter((p) => p.is_active);
    const errors: FieldError[] = [];
    this.unknownKeys(sent, active, typeId, errors);

    let out: CustomValues = { ...(item.custom_values ?? {}) };
    if (typeChanged) {
      const keep = new Set(all.map((p) => p.id));
      out = Object.fromEntries(Object.entries(out).filter(([k]) => keep.has(k)));
    }
    const refsByProp = new Map<string, ValueRefs>();
    const defaulted = new Set<string>();
    for (const p of active) {
      const field = `custom_fields.${p.name}`;
      const isSent = Object.prototype.hasOwnProperty.call(sent, p.name);
      if (!isSent && !(typeChanged && out[p.id] === undefined)) continue;
      const refs: ValueRefs = { issues: [], users: [] };
      let value: StoredValue | null;
      try {
        value = this.valueFor(p, sent, isSent, refs, defaulted);
      } catch (e) {
        if (!(e instanceof ValueError)) throw e;
        errors.push({ field, message: e.message });
        continue;
      }
      if (value === null) {
        if (isSent && p.is_required)
          errors.push({ field, message: `${p.display_name} is required and cannot be cleared.` });
        delete out[p.id];
        continue;
      }
      out[p.id] = value;
      refsByProp.set(p.id, refs);
    }
    await this.checkRefs(workspaceId, active, refsByProp, defaulted, out, errors, false, db, {
      viewer,
      stored: item.custom_values,
    });
    if (errors.length) throw ProblemException.validationMany(errors);
    return out;
  }

  /** The property's default as a stored value, or null when it has none or it no longer validates. */
  /**
   * The value to store for `p`: the one sent, coerced (a ValueError says what is wrong with it), or,
   * when nothing was sent, its usable default (noted in `defaulted`), or null.
   */
  private valueFor(
    p: EffectiveProperty,
    sent: Record<string, unknown>,
    isSent: boolean,
    refs: ValueRefs,
    defaulted: Set<string>,
  ): StoredValue | null {
    if (isSent) return coerceValue(valueConfig(p), sent[p.name], refs);
    const value = this.defaultValue(p, refs);
    if (value !== null) defaulted.add(p.id);
    return value;
  }

  private defaultValue(p: EffectiveProperty, refs: ValueRefs): StoredValue | null {
    try {
      return coerceValue(valueConfig(p), defaultInput(p), refs);
    } catch (e) {
      if (!(e instanceof ValueError)) throw e;
      refs.issues.length = 0;
      refs.users.length = 0;
      return null;
    }
  }

  /**
   * The read shape for work items (create, get, get by identifier, PATCH responses): keyed by
   * property name, `{id, value, value_detail}`; properties without a value, inactive ones and ones
   * the type no longer has are omitted; `{}` for an untyped work item and when custom properties are
   * off; values follow the current multiplicity (shapeValue). One query resolves the
   * definitions of the whole batch, plus at most one per kind of related record.
   */
  async render(
    workspaceId: string,
    items: CustomFieldsItem[],
    db: Queryable = this.ds,
  ): Promise<Map<string, CustomFieldsRead>> {
    const out = new Map<string, CustomFieldsRead>();
    const typed = items.filter((i) => i.type_id && i.custom_values && Object.keys(i.custom_values).length);
    for (const i of items) out.set(i.id, {});
    if (!typed.length) return out;
    // Custom properties off: `{}` (stored values are kept and show again once re-enabled).
    if (!(await this.features.isCustomPropertiesEnabled(workspaceId, db))) return out;
    const defs = await this.effective.forPairs(
      workspaceId,
      typed.map((i) => ({ projectId: i.project_id, typeId: i.type_id! })),
      db,
    );
    const issueIds = new Set<string>();
    const userIds = new Set<string>();
    for (const i of typed) {
      for (const p of defs.get(pairKey(i.project_id, i.type_id!)) ?? []) {
        const v = shapeValue(p, i.custom_values![p.id]);
        if (v === undefined || p.property_type !== 'RELATION') continue;
        for (const x of Array.isArray(v) ? v : [v]) {
          // A value stored before the property became a RELATION (a type change keeps values) is no id: it
          // has no detail, and must not reach the uuid[] lookup.
          if (!isUuid(String(x))) continue;
          if (p.relation_type === 'ISSUE') issueIds.add(String(x));
          if (p.relation_type === 'USER') userIds.add(String(x));
        }
      }
    }
    const rel = await this.effective.relationDetails(workspaceId, [...issueIds], [...userIds], db);
    for (const i of typed) {
      const read: CustomFieldsRead = {};
      for (const p of defs.get(pairKey(i.project_id, i.type_id!)) ?? []) {
        const v = shapeValue(p, i.custom_values![p.id]);
        if (v === undefined || !p.is_active) continue;
        read[p.name] = { id: p.id, value: v, value_detail: this.detail(p, v, rel) };
      }
      out.set(i.id, read);
    }
    return out;
  }

  async renderOne(workspaceId: string, item: CustomFieldsItem, db: Queryable = this.ds): Promise<CustomFieldsRead> {
    return (await this.render(workspaceId, [item], db)).get(item.id) ?? {};
  }

  private detail(
    p: EffectiveProperty,
    v: StoredValue,
    rel: Awaited<ReturnType<EffectivePropertiesRepository['relationDetails']>>,
  ): Detail | Detail[] | null {
    let lookup: ((id: string) => Detail | undefined) | null = null;
    if (p.property_type === 'OPTION') {
      const byId = new Map(p.options.map((o) => [o.id, { id: o.id, name: o.name, logo_props: {} }]));
      lookup = (id) => byId.get(id);
    } else if (p.property_type === 'RELATION' && p.relation_type === 'ISSUE') lookup = (id) => rel.issues.get(id);
    else if (p.property_type === 'RELATION' && p.relation_type === 'USER') lookup = (id) => rel.users.get(id);
    if (!lookup) return null;
    if (Array.isArray(v)) return v.map((x) => lookup(String(x))).filter((d): d is Detail => !!d);
    return lookup(String(v)) ?? null;
  }

  private inputObject(input: unknown): Record<string, unknown> {
    if (input === undefined || input === null) return {};
    if (typeof input !== 'object' || Array.isArray(input)) {
      throw ProblemException.validation('custom_fields', 'custom_fields must be an object keyed by property name.');
    }
    return input as Record<string, unknown>;
  }

  private unknownKeys(
    sent: Record<string, unknown>,
    props: EffectiveProperty[],
    typeId: string | null,
    errors: FieldError[],
  ): void {
    const names = new Set(props.map((p) => p.name));
    for (const k of Object.keys(sent)) {
      if (names.has(k)) continue;
      errors.push({
        field: `custom_fields.${k}`,
        message: typeId
          ? 'Unknown custom field: not an active property of this work item type here (keys are property names).'
          : 'The work item has no type, so it has no custom fields.',
      });
    }
  }

  /**
   * RELATION references must exist. A sent value naming a missing record is 400; a default naming
   * one is stale: it is dropped from `out` (and on create a required property is then reported as
   * missing). A work item the writer newly sends (not a default, not already in the stored value) must
   * also be in a project the writer can read, else it counts as missing (same 400, no existence oracle).
   */
  private async checkRefs(
    workspaceId: string,
    props: EffectiveProperty[],
    refsByProp: Map<string, ValueRefs>,
    defaulted: Set<string>,
    out: CustomValues,
    errors: FieldError[],
    requiredCheck: boolean,
    db: Queryable,
    writer: { viewer: Viewer; stored: CustomValues | null },
  ): Promise<void> {
    const all: ValueRefs = { issues: [], users: [] };
    const chosen = new Set<string>();
    for (const [propertyId, r] of refsByProp) {
      all.issues.push(...r.issues);
      all.users.push(...r.users);
      if (defaulted.has(propertyId)) continue;
      const before = writer.stored?.[propertyId];
      const kept = new Set(
        (Array.isArray(before) ? before : before === undefined || before === null ? [] : [before]).map(String),
      );
      for (const id of r.issues) if (!kept.has(id)) chosen.add(id);
    }
    if (!all.issues.length && !all.users.length) return;
    const missing = new Set(
      await this.values.missingRefs(workspaceId, all, db, { viewer: writer.viewer, issues: chosen }),
    );
    if (!missing.size) return;
    for (const p of props) {
      const r = refsByProp.get(p.id);
      if (!r) continue;
      const bad = [...r.issues, ...r.users].filter((x) => missing.has(x));
      if (!bad.length) continue;
      if (defaulted.has(p.id)) {
        delete out[p.id];
        if (requiredCheck && p.is_required)
          errors.push({ field: `custom_fields.${p.name}`, message: requiredMessage(p) });
        continue;
      }
      const what =
        p.relation_type === 'USER'
          ? 'members of this workspace'
          : 'work items of this workspace in projects you can read';
      errors.push({ field: `custom_fields.${p.name}`, message: `Not ${what}: ${bad.join(', ')}.` });
    }
  }
}

function requiredMessage(p: EffectiveProperty): string {
  return `${p.display_name} is required.`;
}

/**
 * A stored value in the property's current multiplicity: stored values are not rewritten when
 * is_multi changes, so a single-valued property reads the first element of a stored list and a
 * multi property reads a stored scalar as a one-element list. Undefined when there is nothing.
 */
export function shapeValue(
  p: Pick<EffectiveProperty, 'is_multi'>,
  v: StoredValue | undefined,
): StoredValue | undefined {
  if (v === undefined || v === null) return undefined;
  if (p.is_multi) return Array.isArray(v) ? v : [v];
  if (!Array.isArray(v)) return v;
  return v.length ? v[0] : undefined;
}
