import { sanitizeWithDefaults } from '../common/html/rich-text';
import { FieldError } from '../common/errors/problem.exception';
import { isUuid } from '../common/http/validation';
import { isValidDate, isValidDateTime } from '../common/pagination/list-query';
import { matchesPattern, PATTERN_BUDGET_MS, patternProblem } from './text-pattern';

/**
 * Everything that depends on `property_type`: which combinations a definition may use, the shape of
 * `validation_rules`, how `default_value` strings become values, and how a `custom_fields` value is
 * checked and stored. One table of rules, used by property writes, contexts, custom_fields and the
 * schema endpoint alike.
 */
export const PROPERTY_TYPES = [
  'TEXT',
  'DATETIME',
  'DECIMAL',
  'BOOLEAN',
  'OPTION',
  'RELATION',
  'URL',
  'EMAIL',
  'FILE',
  'FORMULA',
] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];
export const RELATION_TYPES = ['ISSUE', 'USER', 'RELEASE', 'RICH_TEXT'] as const;
export type RelationType = (typeof RELATION_TYPES)[number];

/** Longest TEXT / RICH_TEXT value accepted (characters), unless validation_rules.max_length is lower. */
export const TEXT_MAX = 10000;
export const URL_MAX = 2048;
export const EMAIL_MAX = 254;

type RuleKind = 'count' | 'number' | 'bool' | 'regex' | 'datetime' | 'strings';
const ITEMS: Record<string, RuleKind> = { min_items: 'count', max_items: 'count' };

/** The validation_rules keys each kind of property accepts. */
export function ruleKeys(type: string, relationType: string | null): Record<string, RuleKind> {
  switch (type) {
    case 'TEXT':
      return { min_length: 'count', max_length: 'count', pattern: 'regex' };
    case 'DECIMAL':
      return { min: 'number', max: 'number', integer: 'bool', decimal_places: 'count' };
    case 'DATETIME':
      return { min: 'datetime', max: 'datetime', date_only: 'bool' };
    case 'URL':
      return { allowed_schemes: 'strings', allowed_domains: 'strings' };
    case 'EMAIL':
      return { allowed_domains: 'strings' };
    case 'OPTION':
      return { ...ITEMS };
    case 'FILE':
      return { ...ITEMS, allowed_extensions: 'strings' };
    case 'RELATION':
      return relationType === 'RICH_TEXT' ? { min_length: 'count', max_length: 'count' } : { ...ITEMS };
    default:
      return {};
  }
}

export function multiAllowed(type: string, relationType: string | null): boolean {
  return type === 'OPTION' || type === 'FILE' || (type === 'RELATION' && relationType !== 'RICH_TEXT');
}

/** Checks a definition's combination of type, relation_type, is_multi, is_required and rules. */
export function checkDefinition(d: {
  property_type: string;
  relation_type: string | null;
  is_multi: boolean;
  is_required: boolean;
  validation_rules: Record<string, unknown>;
}): FieldError[] {
  const errors: FieldError[] = [];
  if (d.property_type === 'RELATION' && !d.relation_type) {
    errors.push({
      field: 'relation_type',
      message: 'relation_type is required when property_type is RELATION (ISSUE, USER, RELEASE or RICH_TEXT).',
    });
  }
  if (d.is_multi && !multiAllowed(d.property_type, d.relation_type)) {
    errors.push({
      field: 'is_multi',
      message: `is_multi is only allowed for OPTION, FILE and RELATION (except RICH_TEXT) properties, not ${d.property_type}${d.relation_type ? `/${d.relation_type}` : ''}.`,
    });
  }
  if (d.property_type === 'FORMULA' && d.is_required) {
    errors.push({ field: 'is_required', message: 'A FORMULA property is computed and cannot be required.' });
  }
  errors.push(...checkRules(d.property_type, d.relation_type, d.validation_rules));
  return errors;
}

export function checkRules(type: string, relationType: string | null, rules: Record<string, unknown>): FieldError[] {
  const allowed = ruleKeys(type, relationType);
  const errors: FieldError[] = [];
  for (const [k, v] of Object.entries(rules)) {
    const field = `validation_rules.${k}`;
    const kind = allowed[k];
    if (!kind) {
      const keys = Object.keys(allowed);
      errors.push({
        field,
        message: `Unknown rule for ${type} properties. Allowed: ${keys.length ? keys.join(', ') : 'none'}.`,
      });
      continue;
    }
    const bad = (m: string) => errors.push({ field, message: m });
    switch (kind) {
      case 'count':
        if (!Number.isInteger(v) || (v as number) < 0) bad('Must be a non-negative integer.');
        break;
      case 'number':
        if (typeof v !== 'number' || !Number.isFinite(v)) bad('Must be a number.');
        break;
      case 'bool':
        if (typeof v !== 'boolean') bad('Must be a boolean.');
        break;
      case 'datetime':
        if (typeof v !== 'string' || !(isValidDateTime(v) || isValidDate(v)))
          bad('Must be an ISO 8601 date or date-time.');
        break;
      case 'strings':
        if (!Array.isArray(v) || !v.every((s) => typeof s === 'string' && s.length > 0 && s.length <= 255))
          bad('Must be an array of non-empty strings.');
        break;
      case 'regex':
        if (typeof v !== 'string' || v.length > 1000)
          bad('Must be a regular expression (string, at most 1000 characters).');
        else {
          const problem = patternProblem(v);
          if (problem) bad(problem);
        }
        break;
    }
  }
  const pairs: Array<[string, string]> = [
    ['min_length', 'max_length'],
    ['min', 'max'],
    ['min_items', 'max_items'],
  ];
  for (const [lo, hi] of pairs) {
    const a = rules[lo];
    const b = rules[hi];
    if (a !== undefined && b !== undefined && !errors.some((e) => e.field.endsWith(lo) || e.field.endsWith(hi))) {
      const an = typeof a === 'string' ? Date.parse(a) : (a as number);
      const bn = typeof b === 'string' ? Date.parse(b) : (b as number);
      if (an > bn) errors.push({ field: `validation_rules.${lo}`, message: `${lo} is greater than ${hi}.` });
    }
  }
  return errors;
}

/** What a value is checked against: the property's own configuration, or its winning context's. */
export interface ValueConfig {
  property_type: string;
  relation_type: string | null;
  is_multi: boolean;
  validation_rules: Record<string, unknown>;
  /** Option ids offered (OPTION only). */
  optionIds: ReadonlySet<string>;
}

export type StoredScalar = string | number | boolean;
export type StoredValue = StoredScalar | StoredScalar[];

/** Records whose existence the caller checks in one batch (RELATION ISSUE / USER). */
export interface ValueRefs {
  issues: string[];
  users: string[];
}

export class ValueError extends Error {}

/**
 * Turns an input value into the stored value, or throws ValueError with a message for the field.
 * Returns null for "no value" (null, "", []). Multi properties store arrays (a scalar is wrapped);
 * single ones a scalar (a one-element array is unwrapped).
 */
export function coerceValue(cfg: ValueConfig, raw: unknown, refs: ValueRefs): StoredValue | null {
  if (raw === null || raw === undefined) return null;
  if (cfg.property_type === 'FORMULA')
    throw new ValueError('FORMULA values are computed by the service and cannot be written.');
  const rules = cfg.validation_rules ?? {};
  if (cfg.is_multi) {
    const list = Array.isArray(raw) ? raw : [raw];
    const out: StoredScalar[] = [];
    for (const item of list) {
      if (item === null || Array.isArray(item)) throw new ValueError('Each item must be a single value.');
      const v = coerceScalar(cfg, item, refs);
      if (v !== null && !out.includes(v)) out.push(v);
    }
    if (!out.length) return null;
    if (typeof rules.min_items === 'number' && out.length < rules.min_items)
      throw new ValueError(`Give at least ${rules.min_items} values.`);
    if (typeof rules.max_items === 'number' && out.length > rules.max_items)
      throw new ValueError(`Give at most ${rules.max_items} values.`);
    return out;
  }
  let v = raw;
  if (Array.isArray(v)) {
    if (v.length === 0) return null;
    if (v.length > 1) throw new ValueError('This property takes a single value, not a list.');
    v = v[0];
  }
  return coerceScalar(cfg, v, refs);
}

type Rules = Record<string, unknown>;

function coerceScalar(cfg: ValueConfig, v: unknown, refs: ValueRefs): StoredScalar | null {
  // "" is "no value" for every property type (a cleared form field), not only for the string types.
  if (v === '') return null;
  const rules: Rules = cfg.validation_rules ?? {};
  switch (cfg.property_type) {
    case 'TEXT':
      return coerceText(v, rules);
    case 'DECIMAL':
      return coerceDecimal(v, rules);
    case 'BOOLEAN':
      if (typeof v === 'boolean') return v;
      if (v === 'true' || v === 'false') return v === 'true';
      throw new ValueError('Must be a boolean.');
    case 'DATETIME':
      return coerceDateTime(v, rules);
    case 'URL':
    case 'FILE':
      return coerceUrl(cfg.property_type, v, rules);
    case 'EMAIL':
      return coerceEmail(v, rules);
    case 'OPTION': {
      if (!isUuid(v)) throw new ValueError('Must be the id (UUID) of an option of this property.');
      const id = v.toLowerCase();
      if (!cfg.optionIds.has(id)) throw new ValueError(`${id} is not an option offered for this work item.`);
      return id;
    }
    case 'RELATION':
      return coerceRelation(cfg, v, rules, refs);
    default:
      throw new ValueError(`Values of ${cfg.property_type} properties cannot be written.`);
  }
}

function coerceText(v: unknown, rules: Rules): string | null {
  if (typeof v !== 'string') throw new ValueError('Must be a string.');
  if (v === '') return null;
  checkLength(v, rules, TEXT_MAX);
  if (typeof rules.pattern === 'string') {
    const match = matchesPattern(rules.pattern, v);
    if (match === 'timeout')
      throw new ValueError(
        `Could not be checked against the pattern ${rules.pattern} within ${PATTERN_BUDGET_MS} ms; the property's pattern needs rewriting.`,
      );
    if (!match) throw new ValueError(`Does not match the pattern ${rules.pattern}.`);
  }
  return v;
}

function coerceDecimal(v: unknown, rules: Rules): number {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(v)) n = Number(v);
  else throw new ValueError('Must be a number.');
  if (!Number.isFinite(n)) throw new ValueError('Must be a finite number.');
  if (rules.integer === true && !Number.isInteger(n)) throw new ValueError('Must be a whole number.');
  if (typeof rules.decimal_places === 'number' && decimals(n) > rules.decimal_places) {
    throw new ValueError(`Use at most ${rules.decimal_places} decimal places.`);
  }
  if (typeof rules.min === 'number' && n < rules.min) throw new ValueError(`Must be at least ${rules.min}.`);
  if (typeof rules.max === 'number' && n > rules.max) throw new ValueError(`Must be at most ${rules.max}.`);
  return n;
}

function coerceDateTime(v: unknown, rules: Rules): string {
  if (typeof v !== 'string') throw new ValueError('Must be an ISO 8601 date-time string.');
  const dateOnly = isValidDate(v);
  if (!dateOnly && !isValidDateTime(v)) throw new ValueError('Must be an ISO 8601 date-time (or YYYY-MM-DD).');
  if (rules.date_only === true && !dateOnly) throw new ValueError('Must be a date (YYYY-MM-DD).');
  const t = Date.parse(dateOnly ? `${v}T00:00:00Z` : v);
  const bound = (b: unknown) => Date.parse(isValidDate(String(b)) ? `${String(b)}T00:00:00Z` : String(b));
  if (typeof rules.min === 'string' && t < bound(rules.min)) throw new ValueError(`Must not be before ${rules.min}.`);
  if (typeof rules.max === 'string' && t > bound(rules.max)) throw new ValueError(`Must not be after ${rules.max}.`);
  return dateOnly ? v : new Date(t).toISOString();
}

function coerceUrl(type: 'URL' | 'FILE', v: unknown, rules: Rules): string | null {
  if (typeof v !== 'string')
    throw new ValueError(type === 'FILE' ? 'Must be a file URL (string).' : 'Must be a URL (string).');
  const s = v.trim();
  if (s === '') return null;
  if (s.length > URL_MAX) throw new ValueError(`Must be at most ${URL_MAX} characters.`);
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new ValueError('Is not a valid absolute URL.');
  }
  const schemes = Array.isArray(rules.allowed_schemes)
    ? (rules.allowed_schemes as string[]).map((x) => x.toLowerCase().replace(/:$/, ''))
    : ['http', 'https'];
  if (!schemes.includes(u.protocol.replace(/:$/, '')))
    throw new ValueError(`The URL scheme must be one of: ${schemes.join(', ')}.`);
  checkDomain(u.hostname, rules);
  if (type === 'FILE' && Array.isArray(rules.allowed_extensions)) {
    const ext = (u.pathname.split('/').pop() ?? '').split('.').pop()?.toLowerCase() ?? '';
    const allowed = (rules.allowed_extensions as string[]).map((e) => e.toLowerCase().replace(/^\./, ''));
    if (!allowed.includes(ext))
      throw new ValueError(`The file must have one of the extensions: ${allowed.join(', ')}.`);
  }
  return s;
}

function coerceEmail(v: unknown, rules: Rules): string | null {
  if (typeof v !== 'string') throw new ValueError('Must be an email address (string).');
  const s = v.trim();
  if (s === '') return null;
  if (s.length > EMAIL_MAX || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s))
    throw new ValueError('Is not a valid email address.');
  checkDomain(s.split('@')[1], rules);
  return s;
}

function coerceRelation(cfg: ValueConfig, v: unknown, rules: Rules, refs: ValueRefs): string | null {
  if (cfg.relation_type === 'RICH_TEXT') {
    if (typeof v !== 'string') throw new ValueError('Must be an HTML string.');
    const clean = sanitizeWithDefaults(v).trim();
    if (clean === '') return null;
    checkLength(clean, rules, TEXT_MAX);
    return clean;
  }
  if (!isUuid(v))
    throw new ValueError(
      `Must be the id (UUID) of a ${cfg.relation_type === 'USER' ? 'workspace member' : cfg.relation_type === 'ISSUE' ? 'work item' : 'record'}.`,
    );
  const id = v.toLowerCase();
  if (cfg.relation_type === 'ISSUE') refs.issues.push(id);
  else if (cfg.relation_type === 'USER') refs.users.push(id);
  return id;
}

function checkLength(s: string, rules: Record<string, unknown>, cap: number): void {
  const max = typeof rules.max_length === 'number' ? Math.min(rules.max_length, cap) : cap;
  if ([...s].length > max) throw new ValueError(`Must be at most ${max} characters.`);
  if (typeof rules.min_length === 'number' && [...s].length < rules.min_length)
    throw new ValueError(`Must be at least ${rules.min_length} characters.`);
}

function checkDomain(host: string, rules: Record<string, unknown>): void {
  if (!Array.isArray(rules.allowed_domains)) return;
  const h = host.toLowerCase();
  const ok = (rules.allowed_domains as string[]).some((d) => {
    const dd = d.toLowerCase().replace(/^\./, '');
    return h === dd || h.endsWith(`.${dd}`);
  });
  if (!ok) throw new ValueError(`The domain must be one of: ${(rules.allowed_domains as string[]).join(', ')}.`);
}

function decimals(n: number): number {
  const s = String(n);
  if (s.includes('e-')) return Number(s.split('e-')[1]) + (s.split('e-')[0].split('.')[1]?.length ?? 0);
  return s.split('.')[1]?.length ?? 0;
}

/** The input a default_value (array of strings) stands for: typed scalars, a list for multi properties. */
export function defaultAsInput(cfg: Pick<ValueConfig, 'property_type' | 'is_multi'>, defaults: string[]): unknown {
  if (!defaults.length) return null;
  const typed = defaults.map((s) =>
    cfg.property_type === 'DECIMAL' ? Number(s) : cfg.property_type === 'BOOLEAN' ? s === 'true' : s,
  );
  return cfg.is_multi ? typed : typed[0];
}

/**
 * Checks a `default_value` against the configuration it belongs to (errors named `field`):
 * every string must be a valid value of the type, a single-valued property takes at most one.
 * FORMULA takes none. Returns the refs to verify.
 */
export function checkDefaultValue(
  cfg: ValueConfig,
  defaults: string[],
  field = 'default_value',
): { errors: FieldError[]; refs: ValueRefs } {
  const refs: ValueRefs = { issues: [], users: [] };
  const errors: FieldError[] = [];
  if (!defaults.length) return { errors, refs };
  if (cfg.property_type === 'FORMULA')
    return { errors: [{ field, message: 'A FORMULA property has no default value.' }], refs };
  if (!cfg.is_multi && defaults.length > 1)
    return { errors: [{ field, message: 'A single-valued property takes at most one default value.' }], refs };
  if (cfg.property_type === 'DECIMAL' && defaults.some((s) => !/^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(s))) {
    return { errors: [{ field, message: 'DECIMAL defaults are numbers written as strings, e.g. ["3"].' }], refs };
  }
  if (cfg.property_type === 'BOOLEAN' && defaults.some((s) => s !== 'true' && s !== 'false')) {
    return { errors: [{ field, message: 'BOOLEAN defaults are "true" or "false".' }], refs };
  }
  try {
    coerceValue(cfg, defaultAsInput(cfg, defaults), refs);
  } catch (e) {
    if (!(e instanceof ValueError)) throw e;
    errors.push({ field, message: e.message });
  }
  return { errors, refs };
}

/** Stored values back to the default_value string form (for audit and echo). */
export function toStrings(v: StoredValue | null): string[] {
  if (v === null) return [];
  return (Array.isArray(v) ? v : [v]).map((x) => String(x));
}
