import { ProblemException } from '../errors/problem.exception';
import { encodeCursor } from './cursor';
import { INT32_MAX } from '../database/columns';
import { PLANNED_PER_REQUEST } from '../database/statement-cache';
import { unstorable } from '../http/request-sanity';
import { isUuid } from '../http/validation';
import { atOrBefore, isValidDate, ListQuery, OFFSET_MAX } from './list-query';
import { FilterDef, ListSpec, OrderDef, SQL_CAST } from './list-spec';
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

/** ListSource.keyWalk: where a page's keys are counted off, and how its rows are then read. */
export interface KeyWalk {
  from: string;
  where: string[];
  always?: boolean;
  /**
   * How the page's rows are read once its keys are known: `table` (aliased `alias`) probed for each key
   * (`"__keys"."__key"`) by `on`, which must pin its primary key, then checked against `where`. The keys are a
   * MATERIALIZED CTE carrying the ordering value (`"__o"`), walked once whatever the planner thinks of the tables'
   * sizes, and the page is ordered by what the walk read. Without it the page joins `from` / `where` of the source
   * to the walk.
   */
  lookup?: { table: string; alias: string; on: string; where: string[] };
  /**
   * One ordered range of the walk per value of the bound array `values` (`cond` the condition of one value `v`),
   * each read only as far as the page reaches, merged and de-duplicated (a row may lie in several ranges); with `by`,
   * one per pair of a value and one of `by.values`.
   */
  ranges?: Ranges;
}

/** Values read one ordered range each (KeyWalk.ranges, OrderDef.pinnedBy), or pairs of values with `by`. */
export interface Ranges {
  values: string;
  cond: (v: string) => string;
  by?: { values: string; cond: (v: string) => string };
  /** Ranges may share rows (link rows of one item under two keys): each row kept once. */
  distinct?: boolean;
  /**
   * The ranges' conditions written out, one per range, their values constants of the text or bound one each
   * (FilterDef.pinned): each range is then a branch of a UNION ALL, not a LATERAL over `values`, so the planner sees
   * each range's bounds (a bound it cannot see is guessed a small share of the rows even with statistics, and
   * PostgreSQL then read a whole priority's items and sorted them; a rare type was guessed a third of the project).
   */
  each?: string[];
  /**
   * Each range's value bound on its own when the page statement is built (after the total's parameters were taken,
   * so the total's statement names none it does not use): `cond` of the value's reference is one range, with `by`
   * one per pair. The planner then sizes each range from the value's own statistics (a LATERAL element is guessed
   * from the column's distinct count), as FilterDef.pinned's bound values are. Replaces `values` / `cond`.
   */
  bound?: { values: unknown[]; cast: string; cond: (ref: string) => string; by?: string[] };
}

/** The FROM item of the ranges' values (one row per distinct value or pair, aliased "__pv") and a range's conditions. */
export function rangeValues(ranges: Ranges): { from: string; conds: string[] } {
  const { values, cond, by } = ranges;
  if (!by)
    return { from: `(SELECT DISTINCT "v" FROM unnest(${values}) AS "__u"("v")) "__pv"`, conds: [cond('"__pv"."v"')] };
  return {
    from: `(SELECT DISTINCT "v", "w" FROM unnest(${values}) AS "__u"("v") CROSS JOIN unnest(${by.values}) AS "__b"("w")) "__pv"`,
    conds: [cond('"__pv"."v"'), by.cond('"__pv"."w"')],
  };
}

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
   * Optional SQL of one value computed once over the rows of a page statement (the CTE `page`, its `pageSelect`
   * columns included), returned as the run's `once`: what the rows share, such as the objects they refer to, which
   * as a `pageSelect` column would be read and sent again for every row. It rides on the statement's first row only.
   */
  pageOnce?: string;
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
  keyWalk?: KeyWalk;
  /**
   * The plan never depends on the values bound (no filters, or only FilterDef.opaque ones in the ordering they are
   * opaque for: a walk of the ordering's index, or one range of the filter's): the cursor position and those filters'
   * values are bound as one-row subqueries the planner does not look at, so PostgreSQL keeps the statement's cached
   * generic plan instead of planning it again for every position or value.
   */
  stablePlan?: boolean;
  /**
   * Every statement of the request is sent unnamed (statement-cache.ts, PLANNED_PER_REQUEST), so PostgreSQL plans it
   * for the values bound each time: for a list whose right plan depends on them in a way a cached generic plan, made
   * once for whichever values came first, cannot follow.
   */
  planPerRequest?: boolean;
  /**
   * An expression every row of the list shares, put first in ORDER BY, with the source's condition on it written so
   * that the planner cannot take it for a constant (`w.project_id = ANY(ARRAY[$2::uuid])`: an array forms no
   * equivalence): only an index led by it then gives the order. For an ordering that a wider index also holds (the
   * primary key (workspace_id, id) holds id order for the whole workspace), which PostgreSQL would otherwise walk
   * past every other project's rows for a project holding most of its workspace.
   */
  leadingOrder?: string;
  /**
   * Offset pages translated to keyset pages (OffsetAnchors) for orderings whose keys never change, when the request
   * has no filter and no search: `generation` is SQL returning the list's live-set change counter as `g` (binding
   * the same leading params as `where`, like `unfilteredCount`); `scope` names the list in the cache (tenant ids).
   */
  offsetAnchors?: { cache: OffsetAnchors; scope: string; generation: string };
  /**
   * `search` read by its own index (issue 27: never analyzed, the planner walked the ordering's index past every
   * row instead). `candidates(cond)` is a FROM item aliased `alias`, the tenant's rows matching the search condition
   * `cond` read by that index alone (a fenced subquery: no other index can serve it). A page first walks the
   * ordering, `budget` rows past the offset (SearchWalk); when they hold the page (a common term) it is served
   * from them, else from the candidates (a rare term: few of them), sorted. The count alike: a sample of `budget`
   * rows tells a common term (counted on the walk of its matches) from a rare one (counted off the candidates).
   * Terms shorter than `minLength` (no trigram to look up) stay a filter of the walk.
   */
  searchIndex?: { alias: string; candidates: (cond: string) => string; budget: number; minLength: number };
  /**
   * A filter read as an indexed search is (searchIndex), when the request has no such search: `cond` (on the rows
   * of `from`) is kept out of the walk's conditions and marks the rows the walk passes; `candidates` is a FROM item
   * of the tenant's rows that meet it, read by their own index (fenced). The caller leaves the filter out of the
   * request's filters and counts it itself (`filteredCount`).
   */
  candidateFilter?: Probe;
}

/**
 * A condition a page reads first off `budget` rows of the ordering, then off its `candidates` (ListSource.searchIndex):
 * both, and `cond`, name the rows `alias`.
 */
export interface Probe {
  cond: string;
  candidates: string;
  /** Rows of the ordering walked first: a number, or an SQL expression of one (a scalar subquery, run once). */
  budget: number | string;
  alias: string;
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
 * The most ranges a statement writes as UNION ALL branches, each planned on its own (FilterDef.pinned, Ranges.bound,
 * and their users): past it, a LATERAL over the values' array, so a long URL cannot make PostgreSQL plan hundreds.
 */
export const BRANCHES_MAX = 16;

/** The distinct values of an `eq` or `in` filter. */
export function distinctValues(f: ListFilter): string[] {
  return [...new Set(([] as string[]).concat(f.value as string | string[]))];
}

/**
 * Whether the pinning filter `f` is written one condition per value (FilterDef.pinned): a branch per value, each
 * planned on its own, so a request of hundreds of values (a long URL) would plan hundreds of branches.
 */
function writesEach(f: ListFilter): boolean {
  return !!f.def.pinned && distinctValues(f).length <= BRANCHES_MAX;
}

/**
 * The condition of one value of the pinning filter `f` in ordering `ord`: FilterDef.pinned where `f` pins the
 * ordering's own key (pinnedBy), else (rangedBy) FilterDef.ranged when the filter has one.
 */
function rangeForm(ord: OrderDef, f: ListFilter): NonNullable<FilterDef['pinned']> | undefined {
  return ord.pinnedBy === f.def.name ? f.def.pinned : (f.def.ranged ?? f.def.pinned);
}

/**
 * Adds the filter and search conditions of `q` to `where` (the search's to `searchOut` when given). The filter `pin`
 * (an `eq` or `in` filter on the ordering's expression, OrderDef.pinnedBy) is left to the caller, who reads the page
 * one value at a time: its values are bound as an array and the reference returned, unless the filter writes its
 * ranges one condition each (FilterDef.pinned), which binds what it needs itself. With `stable`, the `eq` value of a
 * FilterDef.opaque filter is bound as a one-row subquery (ListSource.stablePlan).
 */
export function applyFilters(
  spec: ListSpec,
  q: ListQuery,
  where: string[],
  p: SqlParams,
  pin?: ListFilter,
  searchOut: string[] = where,
  stable = false,
): string | undefined {
  let pinRef: string | undefined;
  for (const f of q.filters) {
    const cast = SQL_CAST[f.def.type];
    if (f === pin) {
      // A filter that writes its ranges one condition each (FilterDef.pinned) binds no array: an unused parameter's
      // type cannot be determined.
      if (!writesEach(f)) pinRef = `${p.add(f.op === 'in' ? f.value : [f.value])}::${cast}[]`;
      continue;
    }
    const bound = () => {
      const ref = `${p.add(f.value)}::${cast}${f.op === 'in' ? '[]' : ''}`;
      return stable && f.def.opaque && f.op === 'eq' ? `(SELECT ${ref})` : ref;
    };
    if (f.def.sql) {
      where.push(f.def.sql(f.op, f.op === 'isnull' ? null : bound(), f.value));
      continue;
    }
    const col = f.def.column ?? f.def.name;
    switch (f.op) {
      case 'eq':
      case 'in':
        where.push(filterCondition(f, f.op, bound()));
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
    searchOut.push(`(${spec.search.map((e) => `${e} ILIKE ${ref}`).join(' OR ')})`);
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
): Promise<ListRunResult<R>> {
  const reader: Queryable = src.planPerRequest
    ? { query: <T>(sql: string, params?: unknown[]) => db.query<T>(PLANNED_PER_REQUEST + sql, params) }
    : db;
  return new ListRun<R>(reader, spec, q, src).run();
}

/** A list page's rows, its envelope, and (ListSource.pageOnce) the value computed once over them. */
export interface ListRunResult<R> {
  rows: R[];
  envelope: <T>(data: T[]) => ListEnvelope<T>;
  once?: unknown;
}

type Ordering = ListSpec['orderings'][string];

/** One list request's statement parts, built once (runList); the order of `p.add` calls is the statement's. */
class ListRun<R extends Record<string, unknown>> {
  private readonly p: SqlParams;
  private readonly ord: Ordering;
  private readonly filters: string[] = [];
  private readonly pin: ListFilter | undefined;
  private readonly pinRef: string | undefined;
  /** The ranges of the pinning filter (pinRanges), built once: a value bound per range binds its parameter once. */
  private readonly ranges: Ranges | undefined;
  private readonly where: string[];
  private readonly countWhere: string[];
  private readonly countParams: unknown[];
  private readonly dir: 'ASC' | 'DESC';
  private readonly orderBy: string;
  private readonly wantCount: boolean;
  /** A maintained counter read by the page statement itself (ListSource.unfilteredCount / filteredCount.inPage). */
  private readonly counter: { sql: string; params: unknown[] } | null;
  private readonly anchors: ListSource['offsetAnchors'] | null;
  private readonly select: string;
  /**
   * The search condition when the source's search index answers it (ListSource.searchIndex), or the source's
   * candidate filter, kept out of `where`.
   */
  private readonly search: Probe | undefined;
  /** Whether rows carry their ordering key as text (`__cv`): cursor pages and anchored offset pages. */
  private cv = false;
  /** The last page statement's ListSource.pageOnce value. */
  private once: unknown;

  constructor(
    private readonly db: Queryable,
    private readonly spec: ListSpec,
    private readonly q: ListQuery,
    private readonly src: ListSource,
  ) {
    this.p = src.params;
    this.ord = spec.orderings[q.orderKey];
    const ord = this.ord;
    // The first `in` filter of the ordering's key (pinnedBy) or of an index ending in it (rangedBy) is read by range;
    // so is an `eq` of the ordering's key (one range, written as FilterDef.pinned says).
    const ranged = (f: ListFilter) => f.def.name === ord.pinnedBy || !!ord.rangedBy?.includes(f.def.name);
    const pinning = (f: ListFilter) => f.op === 'in' || (f.op === 'eq' && f.def.name === ord.pinnedBy);
    this.pin = q.filters.find((f) => pinning(f) && ranged(f));
    const indexed = src.searchIndex && q.search && q.search.length >= src.searchIndex.minLength;
    const searched: string[] = [];
    this.pinRef = applyFilters(
      spec,
      q,
      this.filters,
      this.p,
      this.pin,
      indexed ? searched : this.filters,
      src.stablePlan,
    );
    const index = src.searchIndex;
    this.search =
      index && searched[0]
        ? { cond: searched[0], candidates: index.candidates(searched[0]), budget: index.budget, alias: index.alias }
        : src.candidateFilter;
    this.where = [...src.where, ...this.filters];
    this.countWhere =
      this.pin && this.pinRef ? [...this.where, filterCondition(this.pin, 'in', this.pinRef)] : [...this.where];
    // Ranges written one condition each (FilterDef.pinned) bound no array: the count asks their conditions.
    this.ranges = this.rangesOfPin();
    const each = this.ranges?.each;
    if (each) this.countWhere.push(`(${each.join(' OR ')})`);
    this.countParams = [...this.p.values];
    this.dir = q.desc ? 'DESC' : 'ASC';
    const id = spec.idExpr;
    const nulls = ord.nullable ? ' NULLS LAST' : '';
    const lead = src.leadingOrder ? `${src.leadingOrder} ${this.dir}, ` : '';
    this.orderBy =
      lead + (ord.expr === id ? `${id} ${this.dir}` : `${ord.expr} ${this.dir}${nulls}, ${id} ${this.dir}`);
    this.select = src.select;
    this.wantCount = q.mode === 'offset' && q.count;
    // A maintained counter is read by the page statement itself (an uncorrelated scalar subquery, run once),
    // saving a round trip; a filtered COUNT(*) runs beside it on another connection.
    this.counter = !this.wantCount
      ? null
      : src.unfilteredCount && !q.filters.length && !q.search
        ? src.unfilteredCount
        : src.filteredCount?.inPage
          ? src.filteredCount
          : null;
    this.anchors =
      src.offsetAnchors && q.mode === 'offset' && q.offset > 0 && ord.immutable && !q.filters.length && !q.search
        ? src.offsetAnchors
        : null;
  }

  async run(): Promise<ListRunResult<R>> {
    const { q } = this;
    const [rows, countRows] = await Promise.all([this.pageRows(), this.countRows()]);
    let total: number | null = countRows ? (countRows[0]?.c ?? 0) : null;
    if (this.counter) {
      // An empty page (past the end) carries no row to read the counter from.
      total = rows.length
        ? Number(rows[0].__total)
        : ((await this.db.query<Array<{ c: number }>>(this.counter.sql, this.counter.params))[0]?.c ?? 0);
      for (const r of rows) (r as Record<string, unknown>).__total = undefined;
    }
    const hasMore = rows.length > q.perPage;
    if (hasMore) rows.length = q.perPage;
    const nextCursor = q.mode === 'cursor' ? this.nextCursor(rows, hasMore) : null;
    // The helper columns are blanked, not deleted: JSON leaves undefined out alike, and a row that loses a
    // property falls into V8's slow dictionary mode, which every mapper's reads of the row then pay for.
    for (const r of rows as Record<string, unknown>[]) {
      if (q.mode === 'cursor' || this.anchors) r.__cv = undefined;
      if (this.pin || this.search) {
        r.__pk = undefined;
        r.__pid = undefined;
      }
      if (this.search) r.__hit = undefined;
    }
    const envelope = <T>(data: T[]) => envelopeOf(q, data, { hasMore, nextCursor, total });
    return this.src.pageOnce ? { rows, envelope, once: this.once } : { rows, envelope };
  }

  private nextCursor(rows: R[], hasMore: boolean): string | null {
    const last = rows[rows.length - 1];
    if (!hasMore || !last) return null;
    return encodeCursor({
      order: `${this.q.desc ? '-' : ''}${this.q.orderKey}`,
      value: last.__cv as string | null,
      id: String(last.id),
    });
  }

  /** The page's rows (one more than the page, to tell whether more follow). */
  private pageRows(): Promise<R[]> {
    const { q, ord } = this;
    // A NULL position exists only in the NULLS LAST tail of a nullable ordering; elsewhere the cursor was
    // hand-made (the row comparison with NULL would silently match nothing).
    if (q.cursor && q.cursor.value === null && !ord.nullable) throw badCursor();
    if (q.cursor && q.cursor.value !== null && !positionFits(q.cursor.value, ord.cast)) throw badCursor();
    if (q.mode === 'cursor') this.cv = true;
    const cursorConds = q.mode === 'cursor' && q.cursor ? [this.after(q.cursor.value, q.cursor.id)] : [];
    if (!this.anchors) return this.queryPage(this.pageSql(cursorConds, q.offset, q.perPage + 1));
    // The ordering key comes back with every row, to anchor the pages after this one.
    this.cv = true;
    return offsetPage(
      this.anchors,
      q,
      this.p,
      (anchor) =>
        anchor
          ? this.pageSql([this.after(anchor.value, anchor.id)], 0, q.perPage + 1)
          : this.pageSql([], q.offset - 1, q.perPage + 2),
      (sql) => this.queryPage(sql),
    );
  }

  /** The filtered COUNT(*) when one is wanted and no counter answers it in the page statement. */
  private countRows(): Promise<Array<{ c: number }> | null> {
    const { src, db } = this;
    if (!this.wantCount || this.counter) return Promise.resolve(null);
    if (src.filteredCount) return db.query<Array<{ c: number }>>(src.filteredCount.sql, src.filteredCount.params);
    if (this.search) return db.query<Array<{ c: number }>>(this.searchCountSql(this.search), this.countParams);
    const ranges = this.ranges;
    // A ranged filter (OrderDef.pinnedBy / rangedBy) counts one range of its index per distinct value: an `= ANY`
    // on an index's second column, never analyzed, was read as a filter over the project's whole range instead.
    const values = ranges && !ranges.each && rangeValues(ranges);
    const countOf = (conds: string[]) => `SELECT count(*) AS n FROM ${src.from} ${whereOf([...this.where, ...conds])}`;
    const sql = ranges?.each
      ? `SELECT coalesce(sum(k.n), 0)::int AS c FROM (${ranges.each.map((c) => countOf([c])).join(' UNION ALL ')}) k`
      : values
        ? `SELECT coalesce(sum(k.n), 0)::int AS c FROM ${values.from} CROSS JOIN LATERAL (${countOf(values.conds)}) k`
        : `SELECT count(*)::int AS c FROM ${src.from} ${whereOf(this.countWhere)}`;
    return db.query<Array<{ c: number }>>(sql, this.countParams);
  }

  /**
   * The count of a search its index answers (ListSource.searchIndex): a sample of the first `budget` rows of the
   * walk tells a common term (a tenth of the sample or more) from a rare one, or holds the whole list. A
   * common term is counted on the walk (its matches are a good part of the rows read); a rare one off the index's
   * candidates. The CASE runs only the subquery of the branch taken. With a KeyWalk.lookup the sample's keys are
   * read first, then each row by its key: with the project guessed smaller than the sample (the statistics of a
   * workspace of many projects), the sample of whole rows was read off another index and sorted, every item of the
   * project (985,000 rows, 0.66 s at a million items), where the keys alone are a walk of the ordering's index.
   */
  private searchCountSql({ cond: search, budget, candidates, alias }: Probe): string {
    const { src, countWhere } = this;
    const lookup = src.keyWalk?.lookup;
    const first = (cols: string) =>
      `SELECT ${cols} FROM ${src.from} ${whereOf(countWhere)} ORDER BY ${this.orderBy} LIMIT ${budget}`;
    const sample = lookup
      ? `SELECT "__row".* FROM (${first(`${this.spec.idExpr} AS "__key"`)}) "__keys" CROSS JOIN LATERAL (SELECT ${lookup.alias}.* FROM ${probeByKey(lookup.table, lookup.alias, lookup.on)} ${whereOf(lookup.where)}) "__row"`
      : first('*');
    // A list shorter than the sample is all in it: its matches are counted. Counted again on the list, a small
    // project's total read the workspace's trigram matches (19 ms for 25 items beside a million; "Many small projects").
    return `WITH "__sample" AS MATERIALIZED (SELECT count(*) AS n, count(*) FILTER (WHERE ${search}) AS hits FROM (${sample}) ${alias})
      SELECT (CASE WHEN (SELECT n < ${budget} FROM "__sample") THEN (SELECT hits FROM "__sample")
        WHEN (SELECT hits * 10 >= n FROM "__sample")
        THEN (SELECT count(*) FROM ${src.from} ${whereOf([...countWhere, search])})
        ELSE (SELECT count(*) FROM ${candidates} ${whereOf(countWhere)}) END)::int AS c`;
  }

  /**
   * A page of a search its index answers (ListSource.searchIndex), or of a candidate filter (candidateFilter): the
   * ordering walked at most `budget` rows past the offset, each row marked whether it matches; when the walk holds
   * the page (offset + take matches) or the whole list, the page is read from it; otherwise from the candidates,
   * sorted. Either way at most the budget, the offset and the matches are read, whatever the statistics say. The
   * walk and the candidates carry only the ordering key, the id and the mark, so neither forms nor sorts whole rows
   * (a date range's candidates are thousands of rows); the page's keys are picked, then only its rows are read, each
   * by its primary key (KeyWalk.lookup, which such a source must have).
   */
  private searchPageSql(probe: Probe, conds: string[], offset: number, take: number): string {
    const lookup = this.src.keyWalk?.lookup;
    if (!lookup) throw new Error('a searched or candidate-filtered list needs ListSource.keyWalk.lookup');
    const { src, p, ord, dir, orderBy } = this;
    const { cond: search, budget, candidates } = probe;
    const keyCols = `${ord.expr} AS "__pk", ${this.spec.idExpr} AS "__pid"`;
    const offRef = `${p.add(offset)}::int`;
    const all = [...this.countWhere, ...conds];
    const read = `SELECT ${keyCols}, true AS "__hit" FROM ${candidates} ${whereOf(all)} ORDER BY ${orderBy} LIMIT ${offRef} + ${take}`;
    const nulls = ord.nullable ? ' NULLS LAST' : '';
    const pick = (from: string) =>
      `SELECT "__r".*, "__r"."__pid" AS "__key" FROM (${from}) "__r"
      ORDER BY "__r"."__pk" ${dir}${nulls}, "__r"."__pid" ${dir} LIMIT ${take} OFFSET ${offRef}`;
    const cv = this.cv ? `, ("__keys"."__pk")::text AS "__cv"` : '';
    const page = this.rowsOfKeys(
      lookup,
      `${cv}, "__keys"."__pk", "__keys"."__pid", "__keys"."__hit"`,
      `"__keys"."__pk" ${dir}${nulls}, "__keys"."__pid" ${dir}`,
    );
    // No walk (a filter naming its few rows): the candidates alone.
    if (!budget) return `WITH "__keys" AS MATERIALIZED (${pick(read)}) ${page}`;
    // The walk stops at the page's last match (Limit nodes pull rows lazily), or after `budget` rows past the offset;
    // it keeps its last row (numbered budget + offset) too, which tells that the list goes on past the walk. A
    // budget read off counters is computed once (a CTE), not once per use of it.
    const counted = typeof budget === 'string';
    const last = counted ? `(SELECT "n" FROM "__budget") + ${offRef}` : `(${budget}) + ${offRef}`;
    const walked = `SELECT ${keyCols}, ${search} AS "__hit" FROM ${src.from} ${whereOf(all)} ORDER BY ${orderBy} LIMIT ${last}`;
    const walk = `SELECT * FROM (SELECT *, row_number() OVER () AS "__n" FROM (${walked}) "__w0") "__w" WHERE "__hit" OR "__n" = ${last} LIMIT ${offRef} + ${take}`;
    // The walk holds the page when it found the page's matches, or every match (the list ended within it).
    const held = `count(*) FILTER (WHERE "__hit") >= ${offRef} + ${take} OR NOT coalesce(bool_or("__n" = ${last}), false)`;
    const either = `SELECT "__pk", "__pid", "__hit" FROM "__walk" WHERE "__hit" AND (SELECT ok FROM "__held")
        UNION ALL SELECT * FROM (${read}) "__c" WHERE NOT (SELECT ok FROM "__held")`;
    const budgetCte = counted ? `"__budget" AS MATERIALIZED (SELECT (${budget}) AS "n"), ` : '';
    return `WITH ${budgetCte}"__walk" AS MATERIALIZED (${walk}), "__held" AS MATERIALIZED (SELECT ${held} AS ok FROM "__walk"),
      "__keys" AS MATERIALIZED (${pick(either)}) ${page}`;
  }

  private bind(v: unknown, cast: string): string {
    return this.src.stablePlan ? `(SELECT ${this.p.add(v)}::${cast})` : `${this.p.add(v)}::${cast}`;
  }

  /** Rows after the position (value, id) in the ordering, as next_cursor and offset anchors carry it. */
  private after(value: string | null, rowId: string): string {
    const { ord } = this;
    const id = this.spec.idExpr;
    const cmp = this.q.desc ? '<' : '>';
    const idRef = this.bind(rowId, 'uuid');
    // Already inside the NULLS LAST tail: only later NULL rows remain.
    if (value === null) return `(${ord.expr} IS NULL AND ${id} ${cmp} ${idRef})`;
    const cond = `(${ord.expr}, ${id}) ${cmp} (${this.bind(value, ord.cast ?? 'text')}, ${idRef})`;
    // A row comparison with NULL is never true, so the NULLS LAST tail is added explicitly.
    return ord.nullable ? `(${cond} OR ${ord.expr} IS NULL)` : cond;
  }

  /**
   * `cols` of the first `limit` rows of `from` / `conds` in the ordering, then `offset` (bound) of them skipped. With a
   * pinning filter (OrderDef.pinnedBy) one ordered index range per distinct value is read, each as far as the page
   * can reach, and the few rows read are merged; the extra columns "__pk" and "__pid" carry the ordering key.
   */
  private ordered(
    cols: string,
    from: string,
    conds: string[],
    limit: string,
    offsetRef?: string,
    ranges = this.ranges,
  ): string {
    const { orderBy, dir, ord } = this;
    const id = this.spec.idExpr;
    const skip = offsetRef ? ` OFFSET ${offsetRef}` : '';
    if (!ranges) return `SELECT ${cols} FROM ${from} ${whereOf(conds)} ORDER BY ${orderBy} LIMIT ${limit}${skip}`;
    const one = (rangeConds: string[]) => `SELECT ${cols}, ${ord.expr} AS "__pk", ${id} AS "__pid"
      FROM ${from} ${whereOf([...conds, ...rangeConds])} ORDER BY ${orderBy} LIMIT ${offsetRef ? `${limit} + ${offsetRef}` : limit}`;
    const merged = `ORDER BY "__pr"."__pk" ${dir}, "__pr"."__pid" ${dir} LIMIT ${limit}${skip}`;
    const each = ranges.bound ? this.boundRanges(ranges.bound) : ranges.each;
    if (each) return `SELECT "__pr".* FROM (${each.map((c) => `(${one([c])})`).join(' UNION ALL ')}) "__pr" ${merged}`;
    const values = rangeValues(ranges);
    // Ranges that may share rows (link rows of one item under two keys) keep each row once.
    const distinct = ranges.distinct ? `DISTINCT ON ("__pr"."__pk", "__pr"."__pid") ` : '';
    return `SELECT ${distinct}"__pr".* FROM ${values.from} CROSS JOIN LATERAL (${one(values.conds)}) "__pr" ${merged}`;
  }

  /** Ranges.bound's conditions: each value bound now, crossed with `by`'s conditions when given. */
  private boundRanges(bound: NonNullable<Ranges['bound']>): string[] {
    const conds = bound.values.map((v) => bound.cond(`${this.p.add(v)}::${bound.cast}`));
    return bound.by ? conds.flatMap((c) => bound.by!.map((b) => `${c} AND ${b}`)) : conds;
  }

  /**
   * The ranges a pinning filter (OrderDef.pinnedBy / rangedBy) splits the page into: one per value, disjoint. Built
   * once, in the constructor: a FilterDef.pinned that binds its value binds it here, before the count's parameters
   * are taken.
   */
  private rangesOfPin(): Ranges | undefined {
    const { pin, pinRef } = this;
    const pinned = pin && rangeForm(this.ord, pin);
    // One condition per distinct value, each its own branch (`values` / `cond` unused: no array is bound).
    if (pin && pinned && writesEach(pin)) {
      const bind = (v: string) => `${this.p.add(v)}::${SQL_CAST[pin.def.type]}`;
      return { values: '', cond: (v) => pinned(v, bind), each: distinctValues(pin).map((v) => pinned(v, bind)) };
    }
    return pin && pinRef ? { values: pinRef, cond: (v) => filterCondition(pin, 'eq', v) } : undefined;
  }

  /**
   * The page statement: `take` rows after `conds` (cursor or anchor position) and `offset` skipped rows. The offset is
   * bound, not inlined: a client paging by offset would otherwise make a statement text (and a prepared statement)
   * of every page. The page size stays inlined: it is what lets a plan be generic.
   */
  private pageSql(conds: string[], offset: number, take: number): string {
    const { src, p, ord } = this;
    const id = this.spec.idExpr;
    if (this.search) return this.searchPageSql(this.search, conds, offset, take);
    const walk = src.keyWalk && (offset || src.keyWalk.always) ? src.keyWalk : null;
    const cv = this.cv ? `, (${ord.expr})::text AS "__cv"` : '';
    if (!walk)
      return this.ordered(
        this.select + cv,
        src.from,
        [...this.where, ...conds],
        String(take),
        offset ? `${p.add(offset)}::int` : undefined,
      );
    const walkConds = [...walk.where, ...this.filters, ...conds];
    const keyCols = walk.lookup ? `${id} AS "__key", ${ord.expr} AS "__o"` : `${id} AS "__key"`;
    const ranges = walk.ranges ? { ...walk.ranges, distinct: true } : this.ranges;
    // A bound OFFSET is a guess to the planner (a tenth of the rows), so the cached generic plan looked dearer
    // than one planned per offset and PostgreSQL planned every execution (0.3 ms, more than the page). Under a
    // constant LIMIT at the offset cap the guess is bounded and the generic plan is kept; the walk still stops
    // after offset + page entries.
    // Ranged pages are planned for their values anyway: each range reads only as far as offset + page.
    const keys = !offset
      ? this.ordered(keyCols, walk.from, walkConds, String(take), undefined, ranges)
      : ranges
        ? this.ordered(keyCols, walk.from, walkConds, String(take), `${p.add(offset)}::int`, ranges)
        : `SELECT * FROM (${this.ordered(keyCols, walk.from, walkConds, String(OFFSET_MAX + this.q.perPage + 1), undefined, ranges)}) "__walk" OFFSET ${p.add(offset)}::int LIMIT ${take}`;
    if (!walk.lookup)
      return `SELECT ${this.select}${cv} FROM ${src.from} JOIN (${keys}) "__keys" ON ${id} = "__keys"."__key" ${whereOf(src.where)} ORDER BY ${this.orderBy}`;
    // The keys are read once (MATERIALIZED), then each page row by its primary key (probeByKey): with statistics
    // missing, the planner's guess of one matching item made it scan the items first and re-read the keys for each
    // (a join filter over every item).
    const nulls = ord.nullable ? ' NULLS LAST' : '';
    const order =
      ord.expr === id
        ? `"__keys"."__key" ${this.dir}`
        : `"__keys"."__o" ${this.dir}${nulls}, "__keys"."__key" ${this.dir}`;
    const keyCv = this.cv ? `, ("__keys"."__o")::text AS "__cv"` : '';
    return `WITH "__keys" AS MATERIALIZED (${keys}) ${this.rowsOfKeys(walk.lookup, keyCv, order)}`;
  }

  /**
   * The page's rows, each read by its primary key (KeyWalk.lookup, probeByKey) for a key of the CTE "__keys"
   * (`"__keys"."__key"`), with `extra` columns of "__keys" after the row's, in `order`.
   */
  private rowsOfKeys(lookup: NonNullable<KeyWalk['lookup']>, extra: string, order: string): string {
    const { table, alias, on, where } = lookup;
    const row = `SELECT ${this.select} FROM ${probeByKey(table, alias, on)} ${whereOf(where)}`;
    return `SELECT "__row".*${extra} FROM "__keys" CROSS JOIN LATERAL (${row}) "__row" ORDER BY ${order}`;
  }

  /** Wraps a page statement with the per-page columns, the counter and (anchored offsets) the live-set generation. */
  private withExtras(sql: string): string {
    const extra = [
      this.src.pageSelect,
      this.counter ? `(SELECT c FROM (${this.counter.sql}) total) AS "__total"` : null,
      this.anchors ? `(SELECT g FROM (${this.anchors.generation}) generation)::text AS "__gen"` : null,
    ].filter(Boolean);
    // A plain scan of the ordered, limited subquery (or of the CTE, under a window without an order) keeps its order.
    const rows = extra.length ? `SELECT page.*, ${extra.join(', ')} FROM (${sql}) page` : sql;
    const once = this.src.pageOnce;
    if (!once) return rows;
    // The value computed once is an InitPlan the CASE runs for the first row only.
    const first = `CASE WHEN row_number() OVER () = 1 THEN (${once}) END AS "__once"`;
    return `WITH page AS MATERIALIZED (${rows}) SELECT page.*, ${first} FROM page`;
  }

  private queryPage(sql: string): Promise<R[]> {
    const { q } = this;
    return this.db
      .query<R[]>(this.withExtras(sql), this.p.values)
      .then((rows) => {
        if (this.src.pageOnce) {
          this.once = rows[0]?.__once ?? null;
          for (const r of rows as Record<string, unknown>[]) r.__once = undefined;
        }
        return rows;
      })
      .catch((e: { code?: string; driverError?: { code?: string } }) => {
        // A cursor whose position does not cast to the ordering's type was tampered with.
        if (q.cursor && CAST_ERRORS.has(e?.driverError?.code ?? e?.code ?? '')) throw badCursor();
        throw e;
      });
  }
}

/**
 * `table` as `alias`, reduced to the row(s) `on` selects (a primary key probe, referencing an outer row): a subquery
 * that OFFSET 0 keeps PostgreSQL from flattening into a join or from pushing other conditions into. Conditions on
 * `alias` outside it then only check the probed row: with them inside, a planner without statistics guesses that
 * any index they match returns one row and may scan the project's range of one for each outer row instead.
 */
export function probeByKey(table: string, alias: string, on: string): string {
  return `(SELECT * FROM ${table} ${alias} WHERE ${on} OFFSET 0) ${alias}`;
}

function whereOf(conds: string[]): string {
  return conds.length ? `WHERE ${conds.join(' AND ')}` : '';
}

/** The list envelope of a page: cursor or offset style, as the request asked. */
function envelopeOf<T>(
  q: ListQuery,
  data: T[],
  page: { hasMore: boolean; nextCursor: string | null; total: number | null },
): ListEnvelope<T> {
  if (q.mode === 'cursor')
    return { data, next_cursor: page.nextCursor, has_more: page.hasMore, pagination: { style: 'cursor' } };
  // Past the offset cap the next page cannot be requested in offset mode: next is null there, and the
  // caller switches to paginate=cursor (the 400 for an offset over the cap says so).
  const next = q.offset + q.perPage;
  const env: OffsetEnvelope<T> = {
    data,
    next: page.hasMore && next <= OFFSET_MAX ? next : null,
    previous: q.offset > 0 ? Math.max(0, q.offset - q.perPage) : null,
    pagination: { style: 'offset' },
  };
  if (page.total !== null) env.total_count = page.total;
  return env;
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
  for (const r of rows) (r as Record<string, unknown>).__gen = undefined;
  return rows;
}
