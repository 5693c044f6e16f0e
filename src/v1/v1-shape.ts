import { ArgumentMetadata } from '@nestjs/common';
import { ProblemException } from '../common/errors/problem.exception';
import { BodyValidationPipe } from '../common/http/validation';

/** Keys that end in `_id` but are no relation (kept as they are). */
const NOT_RELATIONS = new Set(['external_id', 'sequence_id']);
/** v2 relation keys whose v1 name is not the key without `_id` / `_ids`. */
const V1_NAMES: Record<string, string> = { work_item_id: 'issue', work_item_ids: 'issues' };

/** The v1 name of a v2 response key: `state_id` -> `state`, `assignee_ids` -> `assignees`, the rest unchanged. */
export function v1Key(key: string): string {
  if (V1_NAMES[key]) return V1_NAMES[key];
  if (NOT_RELATIONS.has(key)) return key;
  if (key.endsWith('_ids')) return `${key.slice(0, -4)}s`;
  if (key.endsWith('_id')) return key.slice(0, -3);
  return key;
}

/** What v1 adds around a v2 record: its tenant, its update stamps, fields v2 no longer returns. */
export interface V1Extras {
  project?: string;
  workspace?: string;
  [key: string]: unknown;
}

/**
 * A v2 response record in v1's shape (gap-reference 8): relations named as v1 names them (`state`, `labels`,
 * `created_by`, ...) holding ids, or the object in place where v2 expanded it (v2's separate expanded key has the
 * v1 name already), plus `extras` (project, workspace, updated_at, updated_by, ...). `renames` covers the few
 * plain fields v1 spells otherwise (a state's `is_default` is v1's `default`).
 */
export function toV1<T extends object>(
  record: T,
  extras: V1Extras = {},
  renames: Record<string, string> = {},
): Record<string, unknown> {
  const src = record as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(src)) {
    const name = renames[key] ?? v1Key(key);
    // An expanded object arrives under the v1 name itself (`state` beside `state_id`): it wins.
    if (name !== key && src[name] !== undefined) continue;
    out[name] = value;
  }
  return { ...out, ...extras };
}

/**
 * A v1 request body in v2's names: `renames` maps each v1 field to the v2 field (`state` -> `state_id`). A field
 * v1 sends that v2 has under the same name passes unchanged; fields v2 does not know are dropped by the v2 DTO's
 * whitelist, as read-only fields always were.
 */
export function fromV1(body: unknown, renames: Record<string, string>): unknown {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const target = renames[key] ?? key;
    // The v2 name sent as well (a client mid-migration) keeps its own value.
    if (target !== key && target in body) continue;
    out[target] = value;
  }
  return out;
}

const pipe = new BodyValidationPipe();

/**
 * Validates a mapped body with the v2 DTO the v2 route uses, through the same pipe (whitelist, the same messages),
 * so v1 has no validation rule of its own.
 */
export async function asV2Body<T>(dto: new () => T, body: unknown): Promise<T> {
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw ProblemException.validation('body', 'The request body must be a JSON object.');
  }
  const meta: ArgumentMetadata = { type: 'body', metatype: dto, data: undefined };
  return (await pipe.transform(body ?? {}, meta)) as T;
}
