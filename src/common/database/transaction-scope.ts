import { AsyncLocalStorage } from 'node:async_hooks';
import type { PoolClient } from 'pg';
import { DataSource, EntityManager, QueryRunner, ReplicationMode } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel';

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
 * parallel (`Promise.all`) is sent one statement at a time (pg's own queueing of concurrent `client.query` calls
 * is deprecated and goes in pg 9), and a failed statement outside a savepoint aborts the scope. Once the scope
 * ends, a statement that a still-running branch sends (the other half of a `Promise.all` whose first half
 * failed) is refused: sent after ROLLBACK it would run, and commit, on its own. `ds.transaction(...)` outside a
 * scope gets the same gate (ScopedDataSource.transaction), without becoming a scope.
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
  return gatedTransaction(ds, undefined, (runner, client) => scopes.run({ runner, client }, () => fn(client)));
}

/**
 * One transaction on a runner of its own whose statements are gated (gateClient): sent one at a time, none after
 * the transaction ended. Commits when `fn` resolves, rolls back when it throws.
 */
async function gatedTransaction<T>(
  ds: DataSource,
  level: IsolationLevel | undefined,
  fn: (runner: QueryRunner, client: PoolClient) => Promise<T>,
): Promise<T> {
  // The base class's runner: a scoped data source would hand out the (absent) scope's.
  const runner = DataSource.prototype.createQueryRunner.call(ds, 'master');
  const release = runner.release.bind(runner);
  // Code in the scope "releases" the runner it was handed after each statement: the scope releases it once, at its end.
  runner.release = async () => undefined;
  let gate: ScopeGate | undefined;
  try {
    const client = (await runner.connect()) as PoolClient;
    gate = gateClient(client);
    await runner.startTransaction(level);
    const result = await fn(runner, client);
    gate.close();
    await runner.commitTransaction();
    return result;
  } catch (err) {
    gate?.close();
    // ROLLBACK itself, not rollbackTransaction(): a branch still inside a savepoint would make that a ROLLBACK TO
    // SAVEPOINT. (A connection lost meanwhile is discarded by the runner's error listener.)
    if (gate && runner.isTransactionActive) await gate.rollback();
    throw err;
  } finally {
    gate?.restore();
    await release();
  }
}

/** Thrown to a statement sent after its scope ended. */
export class TransactionScopeEndedError extends Error {
  constructor() {
    super('statement sent after its transaction scope ended');
  }
}

interface ScopeGate {
  /** From now on only the scope's own COMMIT or ROLLBACK goes through. */
  close(): void;
  /** Sends ROLLBACK after the statements already issued (its failure is not the caller's error). */
  rollback(): Promise<void>;
  /** Gives the client its own `query` back (before it returns to the pool). */
  restore(): void;
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Sends the scope's statements to `client` one at a time, in the order they were issued, and refuses those
 * issued after `close()` (see the header). Callback and submittable (cursor) forms pass straight through.
 */
function gateClient(client: PoolClient): ScopeGate {
  const target = client as unknown as { query: QueryFn };
  const own = Object.prototype.hasOwnProperty.call(target, 'query');
  const query = target.query;
  let open = true;
  let tail: Promise<unknown> = Promise.resolve();
  target.query = function gated(this: unknown, ...args: unknown[]): unknown {
    const first = args[0] as { submit?: unknown } | undefined;
    if (typeof args[args.length - 1] === 'function' || typeof first?.submit === 'function') {
      return query.apply(client, args);
    }
    const sent = tail.then(() => {
      if (!open && args[0] !== 'COMMIT' && args[0] !== 'ROLLBACK') throw new TransactionScopeEndedError();
      return query.apply(client, args);
    });
    tail = sent.catch(() => undefined);
    return sent;
  };
  return {
    close: () => (open = false),
    rollback: async () => {
      await Promise.resolve(target.query('ROLLBACK')).catch(() => undefined);
    },
    restore: () => {
      if (own) target.query = query;
      else delete (target as { query?: QueryFn }).query;
    },
  };
}

/** Attempts of a statement or transaction that PostgreSQL rolled back for a deadlock or a serialization failure. */
export const CONFLICT_ATTEMPTS = 3;
const CONFLICT_CODES = new Set(['40P01', '40001']);

function isConflict(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string } } | null;
  return CONFLICT_CODES.has(e?.driverError?.code ?? e?.code ?? '');
}

/**
 * Runs `attempt` again (at most CONFLICT_ATTEMPTS in all, after a short random pause) when PostgreSQL rolled it back
 * for a deadlock (40P01) or a serialization failure (40001). Only for work that is all one transaction, so that the
 * failed attempt left nothing behind: a single statement outside a transaction, or a whole transaction.
 */
export async function retryConflicts<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n >= CONFLICT_ATTEMPTS || !isConflict(err)) throw err;
      // Apart, so the two sides of a deadlock do not meet again in the same order.
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * n));
    }
  }
}

/**
 * The application's DataSource: hands the current scope's query runner to everything that asks for one (TypeORM's
 * `transaction`, `query`, repositories and query builders all do), a fresh one outside scopes.
 *
 * Outside a scope, a statement (`ds.query`) and a transaction (`ds.transaction`) that PostgreSQL rolls back for a
 * deadlock or a serialization failure are run again (retryConflicts) before the client hears of it: each is all one
 * transaction, so nothing of the failed attempt remains. Concurrent writers meet in the counter rows (docs/work-items-
 * plans.md, "What to change next" 9), and a client would otherwise get 409 "retry it". Inside a scope (a request
 * with Idempotency-Key or If-Match, v1) the conflict ends the scope's transaction and still reaches the client.
 */
export class ScopedDataSource extends DataSource {
  override createQueryRunner(mode: ReplicationMode = 'master'): QueryRunner {
    return scopes.getStore()?.runner ?? super.createQueryRunner(mode);
  }

  /** A statement; outside a scope and without a runner of the caller's, run again on a deadlock (see above). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeORM's own signature (its callers rely on `any`).
  override query<T = any>(query: string, parameters?: unknown[], queryRunner?: QueryRunner): Promise<T> {
    if (queryRunner || inScope()) return super.query<T>(query, parameters, queryRunner);
    return retryConflicts(() => super.query<T>(query, parameters));
  }

  /**
   * `ds.transaction(...)`: inside a scope, a savepoint of it (TypeORM's own nesting); outside, a transaction whose
   * statements are gated as a scope's are (see the header: parallel work sent one statement at a time, nothing
   * sent after its COMMIT or ROLLBACK runs on its own).
   */
  override transaction<T>(fn: (manager: EntityManager) => Promise<T>): Promise<T>;
  override transaction<T>(level: IsolationLevel, fn: (manager: EntityManager) => Promise<T>): Promise<T>;
  override transaction<T>(
    levelOrFn: IsolationLevel | ((manager: EntityManager) => Promise<T>),
    maybeFn?: (manager: EntityManager) => Promise<T>,
  ): Promise<T> {
    const [level, fn] = typeof levelOrFn === 'function' ? [undefined, levelOrFn] : [levelOrFn, maybeFn!];
    if (inScope()) return level === undefined ? super.transaction(fn) : super.transaction(level, fn);
    return retryConflicts(() => gatedTransaction(this, level, (runner) => fn(runner.manager)));
  }
}
