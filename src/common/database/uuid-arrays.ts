import { types } from 'pg';

/** PostgreSQL's type id of `uuid[]` (pg-types' TypeId enum names no array types). */
export const UUID_ARRAY = 2951 as Parameters<typeof types.getTypeParser>[0];

const genericParser = types.getTypeParser(UUID_ARRAY, 'text') as (text: string) => Array<string | null>;
/** One dimension, no bounds, no NULL, no quotes: hex digits and dashes between single commas. */
const PLAIN = /^\{[0-9a-fA-F-]+(?:,[0-9a-fA-F-]+)*\}$/;

/**
 * A `uuid[]` in PostgreSQL's text form (`{}` or `{a,b}`) as pg's own parser returns it, without that parser's
 * cost: postgres-array reads an array one character at a time and allocates an object per character, which was
 * a seventh of everything a list page allocated (issue 27; a work item row carries three id arrays). A uuid's text
 * is hex digits and dashes, never quoted or escaped, so a one-dimensional array without NULL is its elements
 * between the braces, split at commas. Anything else (NULL elements, several dimensions, bounds) takes pg's parser.
 */
export function parseUuidArray(text: string): Array<string | null> {
  if (text === '{}') return [];
  return PLAIN.test(text) ? text.slice(1, -1).split(',') : genericParser(text);
}

/**
 * Makes parseUuidArray pg's parser of `uuid[]` for every connection of the process (TypeORM's and the pools'
 * alike): its output is pg's own, so no reader sees a difference. Idempotent.
 */
export function installUuidArrayParser(): void {
  types.setTypeParser(UUID_ARRAY, parseUuidArray);
}
