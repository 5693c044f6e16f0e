/**
 * Declarative description of one list endpoint: its filters, search, orderings and default.
 * The same spec drives query parsing (ListParams), SQL building (runList) and the OpenAPI
 * parameters (ApiListQuery), so the three cannot disagree.
 */
export type FilterType = 'uuid' | 'string' | 'int' | 'bool' | 'date' | 'datetime' | 'enum';
export type FilterOp = 'eq' | 'in' | 'isnull' | 'gte' | 'lte';

export interface FilterDef {
  /** Query parameter base name (`state_id` gives `state_id`, `state_id__in`, ...). */
  name: string;
  type: FilterType;
  ops: FilterOp[];
  values?: readonly string[];
  /** SQL expression compared by the default operators. */
  column?: string;
  /**
   * Custom SQL for relation filters. `ref` is the bound parameter (an array for `in`),
   * or null for `isnull`, where `value` says true or false.
   */
  sql?: (op: FilterOp, ref: string | null, value: unknown) => string;
  /**
   * One value's condition when this filter pins the list's ordering (OrderDef.pinnedBy, rangedBy) and the page reads
   * that value's range of an index: the rows of its `eq`, each range a branch of its own. Written either with
   * constants derived from the (validated) `value`, never the value itself, so that the ordering's key is not equated
   * (pinnedBy: equated, the key drops out of the ordering the planner must produce, so any index of the scope in id
   * order gives the range's order as well, and a planner without statistics may walk that one filtering every row of
   * the scope); or with the value bound on its own, `bind(value)` (rangedBy: the planner sizes each range from the
   * value's own statistics, where one array's element is guessed from the column's distinct count). Default: the
   * `eq` condition over the bound array, one LATERAL range per element.
   */
  pinned?: (value: string, bind: (value: string) => string) => string;
  /**
   * One value's condition when this filter is one of an ordering's `rangedBy` and its `pinned` form (written for
   * `pinnedBy`) keeps the filter's key an ordering key: the range's rows are in the ordering's order only when the
   * filter's key is equated, which a `BETWEEN` of constants does not do (PostgreSQL sorted the range's rows instead).
   * Written with constants derived from the (validated) value, like `pinned`, which a filter with `ranged` has too.
   * Default: `pinned`.
   */
  ranged?: (value: string, bind: (value: string) => string) => string;
  /**
   * One value (`eq`) of this filter is one range of an index ordered like the list's default ordering (the list's
   * scope, the filter's value, the ordering's key, id), so a page in that ordering reads that range whatever the value
   * and whatever the planner guesses of its size. In a source whose plan is stable (ListSource.stablePlan) the value is
   * bound as a one-row subquery the planner does not look at, so PostgreSQL keeps the statement's generic plan. Not
   * for several values or other orderings: there the plan (walk the ordering, or read and sort the matches) depends on
   * how many rows match, which only the values tell.
   */
  opaque?: boolean;
  description?: string;
}

export interface OrderDef {
  /** SQL expression ordered by. */
  expr: string;
  /** Unique and monotonic together with the id tiebreak: usable as a keyset cursor. */
  cursor: boolean;
  /** SQL type to cast the cursor value back to. */
  cast?: string;
  nullable?: boolean;
  /**
   * A live row's key in this ordering never changes (created_at, sequence_id, id): only rows entering or leaving the
   * list move positions, which a source's live-set change counter sees (ListSource.offsetAnchors).
   */
  immutable?: boolean;
  /**
   * The filter whose `eq` form pins this ordering's expression to one value (an index range ordered by the rest
   * of the ordering). With its `in` form the page is merged from one such range per value: PostgreSQL 15 cannot
   * read several ranges of one index in order, and sorted every matching row instead.
   */
  pinnedBy?: string;
  /**
   * Filters with an index of (the list's scope, the filter's column, this ordering's key, id): their `in` form is
   * read as one range of it per value, merged, as for `pinnedBy` (never analyzed, PostgreSQL walked the ordering's
   * index past every row instead, or sorted every match). The values' ranges must be disjoint (one value per row).
   */
  rangedBy?: string[];
}

export interface ListSpec {
  filters: FilterDef[];
  /** SQL expressions matched case-insensitively by `search`. */
  search?: string[];
  orderings: Record<string, OrderDef>;
  /** Default ordering, `-` prefix for descending. */
  defaultOrder: string;
  /** SQL expression of the row id, the tiebreak of every ordering. */
  idExpr: string;
}

export const SQL_CAST: Record<FilterType, string> = {
  uuid: 'uuid',
  string: 'text',
  int: 'int',
  bool: 'boolean',
  date: 'date',
  datetime: 'timestamptz',
  enum: 'text',
};

/**
 * The later edition's `?name=` filter (gap-reference 9.5): the rows whose `column` equals the value, compared
 * case-insensitively and exactly (no substring match: that is `search`). Lists with it are scoped to one project
 * or workspace, so it filters a small range of the list's own index.
 */
export function nameFilter(column: string): FilterDef {
  return {
    name: 'name',
    type: 'string',
    ops: ['eq'],
    sql: (_op, ref) => `lower(${column}) = lower(${ref})`,
    description: 'Exact name, case-insensitive (`search` matches substrings).',
  };
}
