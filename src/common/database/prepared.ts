import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { Queryable } from '../pagination/sql-params';
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
 */
export function poolReader(ds: DataSource): Queryable {
  return {
    query: async <T>(sql: string, params?: unknown[]): Promise<T> =>
      (await target(ds).query(sql, params as unknown[])).rows as T,
  };
}
