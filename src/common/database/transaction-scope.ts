import { AsyncLocalStorage } from 'node:async_hooks';
import type { PoolClient } from 'pg';
import { DataSource, QueryRunner, ReplicationMode } from 'typeorm';

/**
 * A request-level transaction that the service code it runs joins without knowing it.
 *
 * Inside `inTransactionScope(ds, fn)` every statement of `fn` and of what it calls runs on one connection, in
 * one transaction that commits when `fn` resolves and rolls back when it throws: `ds.transaction(...)` becomes a
 * savepoint of it (ScopedDataSource hands out the scope's query runner), `ds.query(...)` and repositories run
 * on it, and so do `poolReader` / `preparedQuery` (prepared.ts). A mechanism can therefore write a record of its
 * own in the same transaction as the change a service makes (the idempotency record of a POST, the version
 * check of a conditional PATCH), so that either both commit or neither does.
 *
 * Outside a scope nothing changes. Statements of one scope share a connection: work the service runs in
 * parallel (`Promise.all`) is queued on it, and a failed statement outside a savepoint aborts the scope.
 */
interface Scope {
  runner: QueryRunner;
  client: PoolClient;
}

const scopes = new AsyncLocalStorage<Scope>();

/** The pg client of the current scope, for code that talks to the pool directly (prepared.ts). */
export function scopedClient(): PoolClient | undefined {
  return scopes.getStore()?.client;
}

/** Whether the caller runs inside a transaction scope. */
export function inScope(): boolean {
  return scopes.getStore() !== undefined;
}

/**
 * Runs `fn` in a transaction scope (see above) and commits when it resolves. Nested calls join the outer scope.
 * `fn` gets the scope's pg client for statements of its own.
 */
export async function inTransactionScope<T>(ds: DataSource, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const outer = scopes.getStore();
  if (outer) return fn(outer.client);
  // The base class's runner: a scoped data source would hand out the (absent) scope's.
  const runner = DataSource.prototype.createQueryRunner.call(ds, 'master');
  const release = runner.release.bind(runner);
  // Code in the scope "releases" the runner it was handed after each statement: the scope releases it once, at its end.
  runner.release = async () => undefined;
  try {
    const client = (await runner.connect()) as PoolClient;
    await runner.startTransaction();
    const result = await scopes.run({ runner, client }, () => fn(client));
    await runner.commitTransaction();
    return result;
  } catch (err) {
    if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
    throw err;
  } finally {
    await release();
  }
}

/**
 * The application's DataSource: hands the current scope's query runner to everything that asks for one (TypeORM's
 * `transaction`, `query`, repositories and query builders all do), a fresh one outside scopes.
 */
export class ScopedDataSource extends DataSource {
  override createQueryRunner(mode: ReplicationMode = 'master'): QueryRunner {
    return scopes.getStore()?.runner ?? super.createQueryRunner(mode);
  }
}
