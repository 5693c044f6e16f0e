import { types } from 'pg';

/** PostgreSQL's type id of `timestamptz`. */
const TIMESTAMPTZ = 1184;
/** Text output of a timestamptz in UTC (DateStyle ISO): `2026-11-27 04:42:05[.309999]+00`. */
const UTC_TEXT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?\+00$/;
const defaultParser = types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => unknown;

/**
 * A timestamptz as the API shows it (`Date.prototype.toISOString`: UTC, milliseconds, `Z`), built from
 * PostgreSQL's text without a Date in between. A list page has two timestamps per row; parsing each into a Date
 * and formatting it back was about 5% of the service's CPU under list load (issue 27). Milliseconds are
 * truncated as a Date truncates them. Any other text (another session time zone, BC, infinity) takes the
 * Date path, so the result is always what the Date path gives.
 */
export function isoFromTimestamptz(text: string): string {
  if (UTC_TEXT.test(text)) {
    // 19 characters of date and time, then nothing or `.` and 1-6 digits, then `+00`. With three digits or more
    // (nearly every stored instant) the milliseconds are there as they are: one concatenation, fewer strings.
    if (text.length >= 26) return `${text.slice(0, 10)}T${text.slice(11, 23)}Z`;
    const fraction = text.length > 22 ? text.slice(20, -3) : '';
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${(fraction + '000').slice(0, 3)}Z`;
  }
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

/**
 * A timestamp (a Date, or a string from a row read with ISO_TIMESTAMP_TYPES) as the API shows it. A string in
 * the shape isoFromTimestamptz makes (24 characters, `T` at 10, `.` at 19, `Z` at the end) is passed through.
 */
export function isoTimestamp(value: Date | string): string {
  if (value instanceof Date) return value.toISOString();
  const made = value.length === 24 && value[10] === 'T' && value[19] === '.' && value[23] === 'Z';
  return made ? value : new Date(value).toISOString();
}
