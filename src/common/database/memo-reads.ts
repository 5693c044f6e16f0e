import { Queryable } from '../pagination/sql-params';

/**
 * Reads of a batch's checks, memoized by statement and parameters: rows naming one state, one type or one cycle
 * read it once, so a batch makes one round trip per distinct read rather than one per row. Only for reads (and
 * locks, held until commit anyway) whose answer cannot change within the batch: its writes come after them.
 */
export function memoReads(db: Queryable): Queryable {
  const seen = new Map<string, Promise<unknown>>();
  return {
    query: (sql: string, params?: unknown[]) => {
      const key = `${sql}\u0000${JSON.stringify(params ?? [])}`;
      if (!seen.has(key)) seen.set(key, db.query(sql, params));
      return seen.get(key) as Promise<never>;
    },
  };
}
