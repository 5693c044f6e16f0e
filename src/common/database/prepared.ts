import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { Queryable } from '../pagination/sql-params';
import { ISO_TIMESTAMP_TYPES } from './iso-timestamps';
import { statementName } from './statement-cache';
import { scopedClient } from './transaction-scope';

const poolOf = (ds: DataSource): Pool => (ds.driver as unknown as { master: Pool }).master;

/** The current transaction scope's connection (transaction-scope.ts), else the pool. */
const target = (ds: DataSource): Pick<Pool, 'query'> => scopedClient() ?? poolOf(ds);

/**
 * Runs a hot statement whose text never varies (the credential lookup of every request) as a named
 * prepared statement: each pooled connection parses it once and, after a few runs, reuses a generic
 * plan, where an unnamed statement is parsed and planned on every call. Only for fixed texts: a name
 * stays prepared on every connection of the pool for its lifetime.
 */
export async function preparedQuery<T>(ds: DataSource, name: string, text: string, values: unknown[]): Promise<T[]> {
  const res = await target(ds).query({ name, text, values });
  return res.rows as T[];
}

/**
 * A Queryable for hot reads outside transactions that goes straight to the pool: TypeORM's
 * `DataSource.query` sets up a query runner per statement, which costs more than the short reads of
 * a list page. Returns the rows of a SELECT (writes keep using the DataSource or a transaction).
 * Inside a transaction scope it reads on the scope's connection, so it sees the scope's writes.
 * `isoTimestamps`: timestamptz columns arrive as the API's ISO strings (iso-timestamps.ts), for readers whose
 * rows only feed a mapper; the statement is still named as PreparingClient names it.
 */
export function poolReader(ds: DataSource, opts: { isoTimestamps?: boolean } = {}): Queryable {
  if (opts.isoTimestamps) {
    return {
      query: async <T>(sql: string, params?: unknown[]): Promise<T> => {
        const values = params ?? [];
        const name = values.length ? statementName(sql) : undefined;
        return (await target(ds).query({ name, text: sql, values, types: ISO_TIMESTAMP_TYPES })).rows as T;
      },
    };
  }
  return {
    query: async <T>(sql: string, params?: unknown[]): Promise<T> =>
      (await target(ds).query(sql, params as unknown[])).rows as T,
  };
}
