import { SqlParams } from '../pagination/sql-params';

/** How one writable column stores what a PATCH sends. */
export interface ColumnRule {
  /** Stored in place of an explicit null (`''` for a description, `{}` for logo_props). */
  nullAs?: unknown;
  /** A jsonb column: the value is bound as JSON text and cast (so an array stays an array). */
  json?: boolean;
  /** A cast of the bound value, e.g. `uuid[]`. */
  cast?: string;
}

/**
 * A resource's allow-list: one rule per key of its write type (the compiler checks none is missing). Only
 * these names ever reach the SQL text; a key outside the list is a programming error, never interpolated.
 */
export type UpdatableColumns<W> = { readonly [K in keyof Required<W>]: ColumnRule };

export interface PartialUpdate<W> {
  /** The table, with an alias if `returning` uses one (`work_item_types t`). */
  table: string;
  columns: UpdatableColumns<W>;
  /** The row's conditions over the parameters the caller bound first (`id = $1 AND workspace_id = $2`). */
  where: string;
  /** Assignments every update makes (default `updated_at = now()`). */
  stamps?: readonly string[];
  returning?: string;
  /** Run (the stamps alone) when no column was sent; by default there is then no statement. */
  always?: boolean;
}

const COLUMN_NAME = /^[a-z_][a-z0-9_]*$/;

/** `"column" = $n` for every key of `values` that is defined, checked against `columns`; binds into `p`. */
export function assignments<W extends object>(columns: UpdatableColumns<W>, values: W, p: SqlParams): string[] {
  const rules = columns as Readonly<Record<string, ColumnRule>>;
  const sets: string[] = [];
  for (const [column, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const rule = Object.hasOwn(rules, column) ? rules[column] : undefined;
    if (!rule || !COLUMN_NAME.test(column)) throw new Error(`not an updatable column: ${column}`);
    const stored = value === null && rule.nullAs !== undefined ? rule.nullAs : value;
    const ref = rule.json
      ? `${p.add(JSON.stringify(stored))}::jsonb`
      : rule.cast
        ? `${p.add(stored)}::${rule.cast}`
        : p.add(stored);
    sets.push(`"${column}" = ${ref}`);
  }
  return sets;
}

/**
 * The UPDATE of the columns `values` sends (a partial update: undefined keys are left alone), or null when it
 * sends none and the update is not `always`. The caller binds the `where` parameters in `p` first.
 */
export function partialUpdateSql<W extends object>(u: PartialUpdate<W>, values: W, p: SqlParams): string | null {
  const sets = assignments(u.columns, values, p);
  if (!sets.length && !u.always) return null;
  const all = [...sets, ...(u.stamps ?? ['updated_at = now()'])];
  return `UPDATE ${u.table} SET ${all.join(', ')} WHERE ${u.where}${u.returning ? ` RETURNING ${u.returning}` : ''}`;
}

/** Runs a partial update: the query result, or undefined when nothing was sent (and no statement ran). */
export async function runPartialUpdate<W extends object>(
  db: { query(sql: string, params?: unknown[]): Promise<unknown> },
  u: PartialUpdate<W>,
  values: W,
  p: SqlParams,
): Promise<unknown> {
  const sql = partialUpdateSql(u, values, p);
  return sql === null ? undefined : db.query(sql, p.values);
}

/**
 * The columns a row of a batch partial update sent (its defined keys), checked against `columns`: a key outside
 * the allow-list is a programming error, never interpolated.
 */
export function sentColumns<W extends object>(columns: UpdatableColumns<W>, values: W): string[] {
  const sent = Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
  for (const column of sent)
    if (!Object.hasOwn(columns, column) || !COLUMN_NAME.test(column))
      throw new Error(`not an updatable column: ${column}`);
  return sent;
}

/**
 * The SET clause of a batch partial update, one statement for many rows: the rows come from a recordset `source`
 * (one column per allow-listed column, plus `sent`, the names each row sent: sentColumns); each column of `target`
 * takes the row's value where the row sent it and keeps its own elsewhere. `stamps` are added as they are.
 */
export function batchSetClause<W extends object>(
  columns: UpdatableColumns<W>,
  target: string,
  source: string,
  stamps: readonly string[],
): string {
  const sets = Object.keys(columns).map(
    (c) => `"${c}" = CASE WHEN '${c}' = ANY(${source}.sent) THEN ${source}."${c}" ELSE ${target}."${c}" END`,
  );
  return `SET ${[...sets, ...stamps].join(', ')}`;
}
