import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ErrorCode } from '../errors/error-codes';
import { FieldError, ProblemException } from '../errors/problem.exception';
import { isUuid } from '../http/validation';
import { FilterDef, FilterOp, ListSpec } from './list-spec';
import { CursorPosition, decodeCursor } from './cursor';
import { INT32_MAX } from '../database/columns';

export const PER_PAGE_DEFAULT = 50;
export const PER_PAGE_MAX = 200;
export const OFFSET_MAX = 10000;

export interface AppliedFilter {
  def: FilterDef;
  op: FilterOp;
  value: unknown;
}

/** A list request, parsed and validated against its ListSpec. */
export interface ListQuery {
  perPage: number;
  offset: number;
  count: boolean;
  mode: 'offset' | 'cursor';
  cursor: CursorPosition | null;
  orderKey: string;
  desc: boolean;
  filters: AppliedFilter[];
  search: string | null;
}

export type RawQuery = Record<string, string | string[] | undefined>;

function scalar(q: RawQuery, name: string): string | undefined {
  const v = q[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
export const DATETIME_RE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A calendar date PostgreSQL accepts: real day of month, year 0001 or later (there is no year 0). */
export function isValidDate(s: string): boolean {
  if (!DATE_RE.test(s) || s < '0001-01-01') return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/**
 * As isValidDate for the date part (V8's Date.parse rolls 2026-02-30 over to March instead of refusing it),
 * with an offset PostgreSQL accepts (at most 15:59) and an instant in years 0001-9999 UTC: a value such as
 * 9999-12-31T23:59:59-01:00 is year 10000 in UTC, which a JS Date serializes in a form PostgreSQL refuses.
 */
export function isValidDateTime(s: string): boolean {
  const m = DATETIME_RE.exec(s);
  if (!m || !isValidDate(s.slice(0, 10))) return false;
  if (m[4] && m[4] !== 'Z' && Number(m[4].slice(1, 3)) > 15) return false;
  const ms = Date.parse(s.includes('T') || s.length === 10 ? s : s.replace(' ', 'T'));
  if (Number.isNaN(ms)) return false;
  const year = new Date(ms).getUTCFullYear();
  return year >= 1 && year <= 9999;
}

/**
 * The span of time a date-time value names at the precision it was written in: `…T10:15:30.851Z` is the
 * millisecond 851, `…T10:15Z` the whole minute, a bare date the whole day. An inclusive upper bound
 * (`__lte`, `created_before`) covers that whole span, so a timestamp read back from the API (rendered in
 * milliseconds, stored in microseconds) still matches the row it came from.
 */
export function dateTimeSpan(valid: string): string {
  const m = DATETIME_RE.exec(valid);
  if (!m?.[1]) return '1 day';
  if (!m[2]) return '1 minute';
  const digits = m[3] ? m[3].length - 1 : 0;
  return digits >= 6 ? '1 microsecond' : `${10 ** -digits} second`;
}

/** SQL for "at or before `raw`" on a timestamptz column, at the precision of `raw` (dateTimeSpan). */
export function atOrBefore(col: string, ref: string, raw: string): string {
  return `${col} < ${ref}::timestamptz + interval '${dateTimeSpan(raw)}'`;
}

function parseValue(def: FilterDef, field: string, raw: string, errors: FieldError[]): unknown {
  switch (def.type) {
    case 'uuid':
      if (!isUuid(raw)) errors.push({ field, message: `"${String(raw)}" is not a valid UUID.` });
      return raw.toLowerCase();
    case 'int':
      if (!/^-?\d+$/.test(raw)) errors.push({ field, message: `"${raw}" is not an integer.` });
      else if (Math.abs(Number(raw)) > INT32_MAX)
        errors.push({ field, message: `"${raw}" is out of range (at most ${INT32_MAX}).` });
      return Number(raw);
    case 'bool':
      if (!['true', 'false'].includes(raw.toLowerCase())) errors.push({ field, message: 'Must be true or false.' });
      return raw.toLowerCase() === 'true';
    case 'date':
      if (!isValidDate(raw)) errors.push({ field, message: `"${raw}" is not a date (YYYY-MM-DD).` });
      return raw;
    case 'datetime':
      if (!isValidDateTime(raw)) errors.push({ field, message: `"${raw}" is not an ISO 8601 date-time.` });
      // Timestamps are stored in microseconds: finer digits are dropped, not rounded (PostgreSQL would round
      // .7633946 up to .763395 and an inclusive bound would take in the next microsecond).
      return raw.replace(/(\.\d{6})\d+/, '$1');
    case 'enum':
      if (!def.values!.includes(raw))
        errors.push({ field, message: `"${raw}" is not one of: ${def.values!.join(', ')}.` });
      return raw;
    default:
      return raw;
  }
}

const OP_SUFFIX: Record<FilterOp, string> = { eq: '', in: '__in', isnull: '__isnull', gte: '__gte', lte: '__lte' };

/** per_page (clamped to the maximum) and offset (at most OFFSET_MAX); problems go to `errors`. */
function parsePaging(q: RawQuery, errors: FieldError[]): { perPage: number; offset: number } {
  let perPage = PER_PAGE_DEFAULT;
  const rawPerPage = scalar(q, 'per_page');
  if (rawPerPage !== undefined) {
    if (!/^\d+$/.test(rawPerPage) || Number(rawPerPage) < 1) {
      errors.push({ field: 'per_page', message: `per_page must be a positive integer (max ${PER_PAGE_MAX}).` });
    } else perPage = Math.min(Number(rawPerPage), PER_PAGE_MAX);
  }

  let offset = 0;
  const rawOffset = scalar(q, 'offset');
  if (rawOffset !== undefined) {
    if (!/^\d+$/.test(rawOffset) || Number(rawOffset) > OFFSET_MAX) {
      errors.push({
        field: 'offset',
        message: `offset must be an integer from 0 to ${OFFSET_MAX}; use paginate=cursor to go further.`,
      });
    } else offset = Number(rawOffset);
  }
  return { perPage, offset };
}

/** The spec's filters present in the query, each value parsed by its type; problems go to `errors`. */
function parseFilters(q: RawQuery, spec: ListSpec, errors: FieldError[]): AppliedFilter[] {
  const filters: AppliedFilter[] = [];
  for (const def of spec.filters) {
    for (const op of def.ops) {
      const field = def.name + OP_SUFFIX[op];
      const raw = scalar(q, field);
      if (raw === undefined) continue;
      if (op === 'isnull') {
        if (!['true', 'false'].includes(raw.toLowerCase())) errors.push({ field, message: 'Must be true or false.' });
        filters.push({ def, op, value: raw.toLowerCase() === 'true' });
      } else if (op === 'in') {
        // Every element is checked (gap-reference 1.2): an empty one (`a,,b`, `a,`) is a 400, never skipped.
        const parts = raw.split(',').map((s) => s.trim());
        if (raw.trim() === '') errors.push({ field, message: 'Give at least one comma-separated value.' });
        else if (parts.some((s) => s.length === 0))
          errors.push({
            field,
            message: `"${raw}" has an empty element; give comma-separated values without empty entries.`,
          });
        filters.push({
          def,
          op,
          value: parts.filter((s) => s.length > 0).map((p) => parseValue(def, field, p, errors)),
        });
      } else {
        filters.push({ def, op, value: parseValue(def, field, raw, errors) });
      }
    }
  }
  return filters;
}

export function parseListQuery(q: RawQuery, spec: ListSpec): ListQuery {
  const errors: FieldError[] = [];

  const { perPage, offset } = parsePaging(q, errors);

  const rawCount = scalar(q, 'count');
  const count = !(rawCount !== undefined && ['false', '0'].includes(rawCount.toLowerCase()));

  const rawCursor = scalar(q, 'cursor');
  const mode: 'offset' | 'cursor' = scalar(q, 'paginate') === 'cursor' || rawCursor !== undefined ? 'cursor' : 'offset';

  let orderRaw = scalar(q, 'order_by') ?? spec.defaultOrder;
  if (!spec.orderings[orderRaw.replace(/^-/, '')]) orderRaw = spec.defaultOrder;
  const desc = orderRaw.startsWith('-');
  const orderKey = orderRaw.replace(/^-/, '');

  const filters = parseFilters(q, spec, errors);

  const rawSearch = spec.search ? scalar(q, 'search') : undefined;
  const search = rawSearch !== undefined && rawSearch.trim() !== '' ? rawSearch.trim() : null;

  if (errors.length) throw ProblemException.validationMany(errors);

  let cursor: CursorPosition | null = null;
  if (mode === 'cursor') {
    if (!spec.orderings[orderKey].cursor) {
      const eligible = Object.entries(spec.orderings)
        .filter(([, d]) => d.cursor)
        .map(([k]) => k);
      throw new ProblemException(
        ErrorCode.OrderingNotCursorEligible,
        `Ordering "${orderRaw}" cannot anchor a cursor. Use order_by with one of: ${eligible.join(', ')} (or their "-" forms).`,
      );
    }
    if (rawCursor !== undefined) cursor = decodeCursor(rawCursor, orderRaw);
  }

  return { perPage, offset: mode === 'cursor' ? 0 : offset, count, mode, cursor, orderKey, desc, filters, search };
}

/** Parses the list query of the route against `spec`; failures are 400 problems. */
export const ListParams = createParamDecorator((spec: ListSpec, host: ExecutionContext): ListQuery => {
  const req = host.switchToHttp().getRequest<FastifyRequest>();
  return parseListQuery((req.query ?? {}) as RawQuery, spec);
});
