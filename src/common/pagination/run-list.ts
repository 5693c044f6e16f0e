import { ProblemException } from '../errors/problem.exception';
import { encodeCursor } from './cursor';
import { INT32_MAX } from '../database/columns';
import { unstorable } from '../http/request-sanity';
import { isUuid } from '../http/validation';
import { atOrBefore, isValidDate, ListQuery, OFFSET_MAX } from './list-query';
import { ListSpec, SQL_CAST } from './list-spec';
import { OffsetAnchor, OffsetAnchors } from './offset-anchors';
import { Queryable, SqlParams } from './sql-params';

export interface OffsetEnvelope<T> {
  data: T[];
  next: number | null;
  previous: number | null;
  total_count?: number;
  pagination: { style: 'offset' };
}

export interface CursorEnvelope<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
  pagination: { style: 'cursor' };
}

export type ListEnvelope<T> = OffsetEnvelope<T> | CursorEnvelope<T>;

export interface ListSource {
  /** Columns of the row, e.g. `s.id, s.name`. */
  select: string;
  /** FROM clause with joins, e.g. `states s`. */
  from: string;
  /** Tenant scoping and soft-delete conditions; placeholders bound in `params`. */
  where: string[];
  params: SqlParams;
  /**
   * Optional columns computed on the page rows only, after LIMIT/OFFSET (per-row subqueries such as
   * `ARRAY(SELECT ... WHERE x.item_id = page.id) AS item_ids`), referencing the page as `page`.
   * Placed in `select` they would run for every row an OFFSET skips.
   */
  pageSelect?: string;
  /**
   * Optional SQL returning the unfiltered total as `c` (e.g. a maintained counter), used instead of
   * COUNT(*) when the request has no filter and no search. It binds the same leading params as `where`
   * (it is embedded in the page statement) and `params` holds just those.
   */
  unfilteredCount?: { sql: string; params: unknown[] };
  /**
   * Optional SQL returning the filtered total as `c`, used instead of COUNT(*) over `from` / `where`
   * when the request is filtered: for a source that can count a filter combination more cheaply than
   * the page's FROM (e.g. from a maintained counter). It must apply every filter of the request. With
   * `inPage` it is cheap and binds the same leading params as `where`, like `unfilteredCount`, and is read
   * by the page statement itself instead of on another connection.
   */
  filteredCount?: { sql: string; params: unknown[]; inPage?: boolean };
  /**
   * Optional key walk for offset pages (offset > 0): a FROM and conditions selecting exactly the rows of
   * `from` / `where`, which an index of the ordering answers on its own (index-only). The rows an OFFSET
   * skips are then counted off that index, and only the page's rows are read from `from`, which `where`
   * still scopes; read through `from`, every skipped row would be a heap visit. The request's filters apply
   * to the walk, so they must reference the walk's aliases. With `always`, every page is walked (first pages and
   * cursor pages too, the cursor's position applied to the walk): for a source whose page is one index range of
   * the walk's table, where the joined FROM would leave PostgreSQL's generic plan guessing at its selectivity.
   */
  keyWalk?: { from: string; where: string[]; always?: boolean };
  /**
   * The plan never depends on the values bound (no filters: a walk of the ordering's index): the cursor position
   * is bound as one-row subqueries the planner does not look at, so PostgreSQL keeps the statement's cached
   * generic plan instead of planning it again for every position.
   */
  stablePlan?: boolean;
  /**
   * Offset pages translated to keyset pages (OffsetAnchors) for orderings whose keys never change, when the request
   * has no filter and no search: `generation` is SQL returning the list's live-set change counter as `g` (binding
   * the same leading params as `where`, like `unfilteredCount`); `scope` names the list in the cache (tenant ids).
   */
  offsetAnchors?: { cache: OffsetAnchors; scope: string; generation: string };
}

/** Cast failures of a position that got past positionFits (a backstop: 22009 bad zone offset, 22021 bad byte). */
const CAST_ERRORS = new Set(['22P02', '22007', '22008', '22003', '22009', '22021']);

const badCursor = () =>
  ProblemException.validation('cursor', 'The cursor is malformed or truncated. Use next_cursor exactly as returned.');

/** `timestamptz::text` as PostgreSQL prints it (ISO DateStyle), offset in any session time zone. */
const TIMESTAMPTZ_TEXT =
  /^(\d{4}-\d{2}-\d{2})[T ]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,6})?(Z|[+-](\d{2})(:?[0-5]\d){0,2})$/;

/**
 * Whether a cursor position is a value of the ordering's type in the form next_cursor carries. Checked before
 * the query, so a hand-edited position ("infinity", "now", an offset PostgreSQL refuses, a NUL) is a 400.
 */
function positionFits(value: string, cast: string | undefined): boolean {
  if (unstorable(value)) return false;
  switch (cast) {
    case 'timestamptz': {
      const m = TIMESTAMPTZ_TEXT.exec(value);
      return !!m && isValidDate(m[1]) && (m[4] === 'Z' || Number(m[5]) <= 15);
    }
    case 'uuid':
      return isUuid(value);
    case 'int':
      return /^-?\d{1,10}$/.test(value) && Math.abs(Number(value)) <= INT32_MAX;
    default:
      return true;
  }
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

type ListFilter = ListQuery['filters'][number];

/** The condition of an `eq` or `in` filter on `ref`, a bound value (an array for `in`) already cast. */
function filterCondition(f: ListFilter, op: 'eq' | 'in', ref: string): string {
  if (f.def.sql) return f.def.sql(op, ref, f.value);
  const col = f.def.column ?? f.def.name;
  return op === 'in' ? `${col} = ANY(${ref})` : `${col} = ${ref}`;
}

/**
 * Adds the filter and search conditions of `q` to `where`. The filter `pin` (an `in` filter on the ordering's
 * expression, OrderDef.pinnedBy) only binds its values: the array's reference is returned, for the caller to
 * read the page one value at a time.
 */
export function applyFilters(
  spec: ListSpec,
  q: ListQuery,
  where: string[],
  p: SqlParams,
  pin?: ListFilter,
): string | undefined {
  let pinRef: string | undefined;
  for (const f of q.filters) {
    const cast = SQL_CAST[f.def.type];
    if (f === pin) {
      pinRef = `${p.add(f.value)}::${cast}[]`;
      continue;
    }
    if (f.def.sql) {
      const ref =
        f.op === 'isnull' ? null : f.op === 'in' ? `${p.add(f.value)}::${cast}[]` : `${p.add(f.value)}::${cast}`;
      where.push(f.def.sql(f.op, ref, f.value));
      continue;
    }
    const col = f.def.column ?? f.def.name;
    switch (f.op) {
      case 'eq':
      case 'in':
        where.push(
          filterCondition(f, f.op, f.op === 'in' ? `${p.add(f.value)}::${cast}[]` : `${p.add(f.value)}::${cast}`),
        );
        break;
      case 'isnull':
        where.push(`${col} IS ${f.value ? '' : 'NOT '}NULL`);
        break;
      case 'gte':
        where.push(`${col} >= ${p.add(f.value)}::${cast}`);
        break;
      case 'lte':
        where.push(
          f.def.type === 'datetime'
            ? atOrBefore(col, p.add(f.value), f.value as string)
            : `${col} <= ${p.add(f.value)}::${cast}`,
        );
        break;
    }
  }
  if (q.search && spec.search?.length) {
    const ref = p.add(`%${escapeLike(q.search)}%`);
    where.push(`(${spec.search.map((e) => `${e} ILIKE ${ref}`).join(' OR ')})`);
  }
  return pinRef;
}

/**
 * Runs one list request: filters, keyset or offset pagination with the id tiebreak, and COUNT
 * (offset mode, unless count=false) in parallel. Returns raw rows plus the envelope metadata;
 * callers map rows with their resource mapper and call `envelope`.
 */
export async function runList<R extends Record<string, unknown>>(
  db: Queryable,
  spec: ListSpec,
  q: ListQuery,
  src: ListSource,
): Promise<{ rows: R[]; envelope: <T>(data: T[]) => ListEnvelope<T> }> {
  const p = src.params;
  const ord = spec.orderings[q.orderKey];
  const filters: string[] = [];
  const pin = ord.pinnedBy ? q.filters.find((f) => f.def.name === ord.pinnedBy && f.op === 'in') : undefined;
  const pinRef = applyFilters(spec, q, filters, p, pin);
  const where = [...src.where, ...filters];
  const countWhere = pin && pinRef ? [...where, filterCondition(pin, 'in', pinRef)] : [...where];
  const countParams = [...p.values];

  const dir = q.desc ? 'DESC' : 'ASC';
  const nulls = ord.nullable ? ' NULLS LAST' : '';
  const id = spec.idExpr;
  let select = src.select;
  // A NULL position exists only in the NULLS LAST tail of a nullable ordering; elsewhere the cursor was
  // hand-made (the row comparison with NULL would silently match nothing).
  if (q.cursor && q.cursor.value === null && !ord.nullable) throw badCursor();
  if (q.cursor && q.cursor.value !== null && !positionFits(q.cursor.value, ord.cast)) throw badCursor();
  const cmp = q.desc ? '<' : '>';
  const bind = (v: unknown, cast: string) =>
    src.stablePlan ? `(SELECT ${p.add(v)}::${cast})` : `${p.add(v)}::${cast}`;
  /** Rows after the position (value, id) in the ordering, as next_cursor and offset anchors carry it. */
  const after = (value: string | null, rowId: string): string => {
    const idRef = bind(rowId, 'uuid');
    // Already inside the NULLS LAST tail: only later NULL rows remain.
    if (value === null) return `(${ord.expr} IS NULL AND ${id} ${cmp} ${idRef})`;
    const cond = `(${ord.expr}, ${id}) ${cmp} (${bind(value, ord.cast ?? 'text')}, ${idRef})`;
    // A row comparison with NULL is never true, so the NULLS LAST tail is added explicitly.
    return ord.nullable ? `(${cond} OR ${ord.expr} IS NULL)` : cond;
  };
  if (q.mode === 'cursor') select += `, (${ord.expr})::text AS "__cv"`;
  const cursorConds = q.mode === 'cursor' && q.cursor ? [after(q.cursor.value, q.cursor.id)] : [];
  const orderBy = ord.expr === id ? `${id} ${dir}` : `${ord.expr} ${dir}${nulls}, ${id} ${dir}`;
  const whereOf = (conds: string[]) => (conds.length ? `WHERE ${conds.join(' AND ')}` : '');

  /**
   * `cols` of the first `limit` rows of `from` / `conds` in the ordering, then `offset` (bound) of them skipped. With a
   * pinning filter (OrderDef.pinnedBy) one ordered index range per distinct value is read, each as far as the page
   * can reach, and the few rows read are merged; the extra columns "__pk" and "__pid" carry the ordering key.
   */
  const ordered = (cols: string, from: string, conds: string[], limit: string, offsetRef?: string): string => {
    const skip = offsetRef ? ` OFFSET ${offsetRef}` : '';
    if (!pin || !pinRef)
      return `SELECT ${cols} FROM ${from} ${whereOf(conds)} ORDER BY ${orderBy} LIMIT ${limit}${skip}`;
    const one = `SELECT ${cols}, ${ord.expr} AS "__pk", ${id} AS "__pid" FROM ${from} ${whereOf([...conds, filterCondition(pin, 'eq', '"__pv"."v"')])}
      ORDER BY ${orderBy} LIMIT ${offsetRef ? `${limit} + ${offsetRef}` : limit}`;
    return `SELECT "__pr".* FROM (SELECT DISTINCT "v" FROM unnest(${pinRef}) AS "__u"("v")) "__pv" CROSS JOIN LATERAL (${one}) "__pr"
      ORDER BY "__pr"."__pk" ${dir}, "__pr"."__pid" ${dir} LIMIT ${limit}${skip}`;
  };

  /**
   * The page statement: `take` rows after `conds` (cursor or anchor position) and `offset` skipped rows. The offset is
   * bound, not inlined: a client paging by offset would otherwise make a statement text (and a prepared statement)
   * of every page. The page size stays inlined: it is what lets a plan be generic.
   */
  const pageSql = (conds: string[], offset: number, take: number): string => {
    const walk = src.keyWalk && (offset || src.keyWalk.always) ? src.keyWalk : null;
    if (!walk)
      return ordered(
        select,
        src.from,
        [...where, ...conds],
        String(take),
        offset ? `${p.add(offset)}::int` : undefined,
      );
    const walkConds = [...walk.where, ...filters, ...conds];
    // A bound OFFSET is a guess to the planner (a tenth of the rows), so the cached generic plan looked dearer
    // than one planned per offset and PostgreSQL planned every execution (0.3 ms, more than the page). Under a
    // constant LIMIT at the offset cap the guess is bounded and the generic plan is kept; the walk still stops
    // after offset + page entries.
    // Pinned pages are planned for their values anyway: each range reads only as far as offset + page.
    const keys = !offset
      ? ordered(`${id} AS "__key"`, walk.from, walkConds, String(take))
      : pin
        ? ordered(`${id} AS "__key"`, walk.from, walkConds, String(take), `${p.add(offset)}::int`)
        : `SELECT "__key" FROM (${ordered(`${id} AS "__key"`, walk.from, walkConds, String(OFFSET_MAX + q.perPage + 1))}) "__walk" OFFSET ${p.add(offset)}::int LIMIT ${take}`;
    return `SELECT ${select} FROM ${src.from} JOIN (${keys}) "__keys" ON ${id} = "__keys"."__key" ${whereOf(src.where)} ORDER BY ${orderBy}`;
  };

  const wantCount = q.mode === 'offset' && q.count;
  // A maintained counter is read by the page statement itself (an uncorrelated scalar subquery, run once),
  // saving a round trip; a filtered COUNT(*) runs beside it on another connection.
  const counter = !wantCount
    ? null
    : src.unfilteredCount && !q.filters.length && !q.search
      ? src.unfilteredCount
      : src.filteredCount?.inPage
        ? src.filteredCount
        : null;
  const anchors =
    src.offsetAnchors && q.mode === 'offset' && q.offset > 0 && ord.immutable && !q.filters.length && !q.search
      ? src.offsetAnchors
      : null;
  /** Wraps a page statement with the per-page columns, the counter and (anchored offsets) the live-set generation. */
  const withExtras = (sql: string): string => {
    const extra = [
      src.pageSelect,
      counter ? `(SELECT c FROM (${counter.sql}) total) AS "__total"` : null,
      anchors ? `(SELECT g FROM (${anchors.generation}) generation)::text AS "__gen"` : null,
    ].filter(Boolean);
    // A plain scan of the ordered, limited subquery keeps its order.
    return extra.length ? `SELECT page.*, ${extra.join(', ')} FROM (${sql}) page` : sql;
  };
  const queryPage = (sql: string) =>
    db.query<R[]>(withExtras(sql), p.values).catch((e: { code?: string; driverError?: { code?: string } }) => {
      // A cursor whose position does not cast to the ordering's type was tampered with.
      if (q.cursor && CAST_ERRORS.has(e?.driverError?.code ?? e?.code ?? '')) throw badCursor();
      throw e;
    });

  let pageRows: Promise<R[]>;
  if (anchors) {
    // The ordering key comes back with every row, to anchor the pages after this one.
    select += `, (${ord.expr})::text AS "__cv"`;
    pageRows = offsetPage(
      anchors,
      q,
      p,
      (anchor) =>
        anchor ? pageSql([after(anchor.value, anchor.id)], 0, q.perPage + 1) : pageSql([], q.offset - 1, q.perPage + 2),
      queryPage,
    );
  } else {
    pageRows = queryPage(pageSql(cursorConds, q.offset, q.perPage + 1));
  }
  const countWhereSql = countWhere.length ? `WHERE ${countWhere.join(' AND ')}` : '';
  const [rows, countRows] = await Promise.all([
    pageRows,
    !wantCount || counter
      ? Promise.resolve(null)
      : src.filteredCount
        ? db.query<Array<{ c: number }>>(src.filteredCount.sql, src.filteredCount.params)
        : db.query<Array<{ c: number }>>(`SELECT count(*)::int AS c FROM ${src.from} ${countWhereSql}`, countParams),
  ]);
  let total: number | null = countRows ? (countRows[0]?.c ?? 0) : null;
  if (counter) {
    // An empty page (past the end) carries no row to read the counter from.
    total = rows.length
      ? Number(rows[0].__total)
      : ((await db.query<Array<{ c: number }>>(counter.sql, counter.params))[0]?.c ?? 0);
    for (const r of rows) delete (r as Record<string, unknown>).__total;
  }

  const hasMore = rows.length > q.perPage;
  if (hasMore) rows.length = q.perPage;
  let nextCursor: string | null = null;
  if (q.mode === 'cursor') {
    const last = rows[rows.length - 1];
    if (hasMore && last) {
      nextCursor = encodeCursor({
        order: `${q.desc ? '-' : ''}${q.orderKey}`,
        value: last.__cv as string | null,
        id: String(last.id),
      });
    }
  }
  if (q.mode === 'cursor' || anchors) for (const r of rows) delete (r as Record<string, unknown>).__cv;
  if (pin) {
    for (const r of rows as Record<string, unknown>[]) {
      delete r.__pk;
      delete r.__pid;
    }
  }

  const envelope = <T>(data: T[]): ListEnvelope<T> => {
    if (q.mode === 'cursor')
      return { data, next_cursor: nextCursor, has_more: hasMore, pagination: { style: 'cursor' } };
    // Past the offset cap the next page cannot be requested in offset mode: next is null there, and the
    // caller switches to paginate=cursor (the 400 for an offset over the cap says so).
    const next = q.offset + q.perPage;
    const env: OffsetEnvelope<T> = {
      data,
      next: hasMore && next <= OFFSET_MAX ? next : null,
      previous: q.offset > 0 ? Math.max(0, q.offset - q.perPage) : null,
      pagination: { style: 'offset' },
    };
    if (total !== null) env.total_count = total;
    return env;
  };
  return { rows, envelope };
}

/**
 * An offset page through OffsetAnchors. With an anchor for this offset: the keyset page after it, kept if the
 * live-set generation read by the same statement is the anchor's (otherwise the anchor is dropped and the offset
 * skipped). Without one: the offset is skipped from the row before the page, which becomes this offset's anchor.
 * Either way the page's last row anchors the next offset. Rows keep `__cv` (the ordering key) and lose `__gen`.
 */
async function offsetPage<R extends Record<string, unknown>>(
  anchors: NonNullable<ListSource['offsetAnchors']>,
  q: ListQuery,
  p: SqlParams,
  build: (anchor: OffsetAnchor | null) => string,
  run: (sql: string) => Promise<R[]>,
): Promise<R[]> {
  const keyOf = (offset: number) => `${anchors.scope}:${q.desc ? '-' : ''}${q.orderKey}:${offset}`;
  const remember = (offset: number, row: R | undefined, generation: string | undefined) => {
    if (row && generation !== undefined && offset <= OFFSET_MAX) {
      anchors.cache.set(keyOf(offset), { generation, value: row.__cv as string, id: String(row.id) });
    }
  };
  const mark = p.values.length;
  const cached = anchors.cache.get(keyOf(q.offset));
  let rows: R[] | null = null;
  let generation: string | undefined;
  if (cached) {
    const got = await run(build(cached));
    // No row to read the generation from (the list ended before the anchor): skip the offset to be sure.
    if (got.length && got[0].__gen === cached.generation) {
      rows = got;
      generation = cached.generation;
    } else {
      anchors.cache.delete(keyOf(q.offset));
      p.truncate(mark);
    }
  }
  if (!rows) {
    const got = await run(build(null));
    generation = got[0]?.__gen as string | undefined;
    // The first row is the one before the page (position offset - 1), unless the list is shorter than that.
    const before = got.shift();
    remember(q.offset, before, generation);
    rows = got;
  }
  if (rows.length > q.perPage) remember(q.offset + q.perPage, rows[q.perPage - 1], generation);
  for (const r of rows) delete r.__gen;
  return rows;
}
