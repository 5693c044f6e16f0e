import { types } from 'pg';

/** PostgreSQL's type id of `timestamptz`. */
const TIMESTAMPTZ = 1184;
/** Text output of a timestamptz in UTC (DateStyle ISO): `2026-11-27 04:42:05[.309999]+00`. */
const UTC_TEXT = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;
const defaultParser = types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => unknown;

/**
 * A timestamptz as the API shows it (`Date.prototype.toISOString`: UTC, milliseconds, `Z`), built from
 * PostgreSQL's text without a Date in between. A list page has two timestamps per row; parsing each into a Date
 * and formatting it back was about 5% of the service's CPU under list load (issue 27). Milliseconds are
 * truncated as a Date truncates them. Any other text (another session time zone, BC, infinity) takes the
 * Date path, so the result is always what the Date path gives.
 */
export function isoFromTimestamptz(text: string): string {
  const m = UTC_TEXT.exec(text);
  if (m) return `${m[1]}T${m[2]}.${((m[3] ?? '') + '000').slice(0, 3)}Z`;
  const parsed = defaultParser(text);
  return parsed instanceof Date ? parsed.toISOString() : String(parsed);
}

/** pg's per-query `types`: timestamptz columns arrive as ISO strings, every other type as pg parses it. */
export const ISO_TIMESTAMP_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (oid === TIMESTAMPTZ && format !== 'binary') return isoFromTimestamptz;
    return types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
  },
};

/** An ISO string as isoFromTimestamptz makes it: a mapper passes it through instead of parsing it again. */
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A timestamp (a Date, or a string from a row read with ISO_TIMESTAMP_TYPES) as the API shows it. */
export function isoTimestamp(value: Date | string): string {
  if (value instanceof Date) return value.toISOString();
  return ISO_MS.test(value) ? value : new Date(value).toISOString();
}
