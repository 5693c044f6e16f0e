import { IsUUID, ValidationArguments } from 'class-validator';
import { FieldError, ProblemException } from '../errors/problem.exception';
import { isUuid, UUID_RE } from '../http/validation';

/**
 * The name-or-id rule of write payloads (spec, work item create): a relation may be sent by id
 * (`state_id`, `label_ids`) or by name (`state`, `labels`), never both.
 *
 * - both forms → 400 "Provide either state_id or state, not both."
 * - id form: every id must be one of the records the caller may point at (project/workspace); an id
 *   of another project or workspace, or of nothing, is 400 naming the id field and the id;
 * - name form: resolved (case-insensitively, by the lookup); no match is 400 naming the field and the
 *   value, several matches is 400 telling to use the id field;
 * - the forms mixed up (an id sent in the name field, a name in the id field) → 400 saying which field takes
 *   what: "state takes a state name, state_id takes an id." (formHint; the DTO's id check is IdOf).
 *
 * The lookups are supplied per relation and run one statement for the whole set of values.
 */
/** The two fields of one relation, and what its name form takes. */
export interface NameOrIdPair {
  /** Id field, e.g. `state_id`, `label_ids`. */
  idField: string;
  /** Name field, e.g. `state`, `labels`. */
  nameField: string;
  /** What the name field takes, for messages: "a state name", "member emails". Default "a name" / "names". */
  nameTakes?: string;
  /** A to-many relation (arrays of ids and names). */
  many?: boolean;
}

/** "state takes a state name, state_id takes an id." */
export function formHint(pair: NameOrIdPair): string {
  const takes = pair.nameTakes ?? (pair.many ? 'names' : 'a name');
  return `${pair.nameField} takes ${takes}, ${pair.idField} takes ${pair.many ? 'ids' : 'an id'}.`;
}

/** The message for an id sent in the name field: the commonest mix-up of the two forms. */
export function idInNameField(pair: NameOrIdPair, value: string): string {
  return `"${value}" is an id: ${formHint(pair)}`;
}

/** The message for values of the id field that are not UUIDs (a name sent where the id goes). */
export function notIdsMessage(pair: NameOrIdPair, values: unknown[]): string {
  const shown = values.map((v) => (typeof v === 'string' ? `"${v}"` : JSON.stringify(v))).join(', ');
  return `${values.length > 1 ? `${shown} are not ids` : `${shown} is not an id`} (UUID): ${formHint(pair)}`;
}

/** The id field's check in a DTO: UUIDs (each, for a to-many pair), else a 400 telling which field takes what. */
export function IdOf(pair: NameOrIdPair): PropertyDecorator {
  return IsUUID('all', {
    each: pair.many,
    message: (args: ValidationArguments) =>
      notIdsMessage(pair, Array.isArray(args.value) ? args.value.filter((v) => !isUuid(v)) : [args.value]),
  });
}

export interface NameOrIdRelation extends NameOrIdPair {
  /** What the records are, for messages: "a state of this project". */
  noun: string;
  /** Ids (lower-case) among `ids` that are valid targets. */
  lookupIds(ids: string[]): Promise<Set<string>>;
  /**
   * Candidates for the names: each row is a record id and the key it matched (the key must equal
   * `normalize(name)`). Several rows for one key mean the name is ambiguous.
   */
  lookupNames(keys: string[]): Promise<Array<{ key: string; id: string }>>;
  /** How a sent name becomes a lookup key; default trim + lower-case. */
  normalize?: (name: string) => string;
}

const defaultNormalize = (s: string) => s.trim().toLowerCase();

function bothForms(rel: NameOrIdRelation): ProblemException {
  return ProblemException.validation(rel.nameField, `Provide either ${rel.idField} or ${rel.nameField}, not both.`);
}

/**
 * A to-one relation. Returns undefined when neither form was sent, null when the id form is null
 * (clear), else the record id.
 */
export async function resolveOne(
  rel: NameOrIdRelation,
  id: unknown,
  name: unknown,
): Promise<string | null | undefined> {
  if (id !== undefined && name !== undefined) throw bothForms(rel);
  if (id === undefined && name === undefined) return undefined;
  if (id === null || name === null) return null;
  if (id !== undefined) {
    if (!isUuid(id)) throw ProblemException.validation(rel.idField, notIdsMessage(rel, [id]));
    const found = await rel.lookupIds([id.toLowerCase()]);
    if (!found.has(id.toLowerCase())) throw ProblemException.validation(rel.idField, `"${id}" is not ${rel.noun}.`);
    return id.toLowerCase();
  }
  if (typeof name !== 'string' || !name.trim())
    throw ProblemException.validation(rel.nameField, 'Must be a non-empty string.');
  const [resolved] = await resolveNames(rel, [name]);
  return resolved;
}

/**
 * A to-many relation (the whole set is replaced). Returns undefined when neither form was sent,
 * else the de-duplicated ids (`[]` clears). Every offender is named in one 400.
 */
export async function resolveMany(rel: NameOrIdRelation, ids: unknown, names: unknown): Promise<string[] | undefined> {
  if (ids !== undefined && names !== undefined) throw bothForms(rel);
  if (ids === undefined && names === undefined) return undefined;
  if (ids === null || names === null) return [];
  if (ids !== undefined) {
    if (!Array.isArray(ids)) throw ProblemException.validation(rel.idField, 'Must be an array of UUIDs.');
    const bad = ids.filter((x) => !isUuid(x));
    if (bad.length) throw ProblemException.validation(rel.idField, notIdsMessage({ ...rel, many: true }, bad));
    const wanted = [...new Set((ids as string[]).map((x) => x.toLowerCase()))];
    if (!wanted.length) return [];
    const found = await rel.lookupIds(wanted);
    const missing = wanted.filter((x) => !found.has(x));
    if (missing.length) throw ProblemException.validation(rel.idField, `Not ${rel.noun}: ${missing.join(', ')}.`);
    return wanted;
  }
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string' || !n.trim())) {
    throw ProblemException.validation(rel.nameField, 'Must be an array of non-empty strings.');
  }
  if (!names.length) return [];
  return [...new Set(await resolveNames({ ...rel, many: true }, names as string[]))];
}

/** Why a sent name matched no record: an id in the name field says so, with which field takes what. */
function unmatched(rel: NameOrIdRelation, name: string): string {
  return UUID_RE.test(name) ? idInNameField(rel, name) : `"${name}" does not match ${rel.noun}.`;
}

async function resolveNames(rel: NameOrIdRelation, names: string[]): Promise<string[]> {
  const norm = rel.normalize ?? defaultNormalize;
  const keys = names.map(norm);
  const rows = await rel.lookupNames([...new Set(keys)]);
  const byKey = new Map<string, Set<string>>();
  for (const r of rows) {
    if (!byKey.has(r.key)) byKey.set(r.key, new Set());
    byKey.get(r.key)!.add(r.id);
  }
  const errors: FieldError[] = [];
  const out: string[] = [];
  names.forEach((name, i) => {
    const ids = byKey.get(keys[i]);
    if (!ids || !ids.size) errors.push({ field: rel.nameField, message: unmatched(rel, name) });
    else if (ids.size > 1)
      errors.push({ field: rel.nameField, message: `"${name}" matches several records; send ${rel.idField} instead.` });
    else out.push([...ids][0]);
  });
  if (errors.length) throw ProblemException.validationMany(errors);
  return out;
}

/** Checks the both-forms rule alone, for relations resolved elsewhere (estimate → EstimatesService). */
export function assertOneForm(rel: Pick<NameOrIdRelation, 'idField' | 'nameField'>, id: unknown, name: unknown): void {
  if (id !== undefined && name !== undefined) throw bothForms(rel as NameOrIdRelation);
}
