import { dataSourceOptions } from '../../src/common/database/data-source';
import {
  inTransactionScope,
  ScopedDataSource,
  TransactionScopeEndedError,
} from '../../src/common/database/transaction-scope';
import { PreparingClient } from '../../src/common/database/statement-cache';
import { createTestDatabase } from '../helpers/database';

/**
 * The request-level transaction scope (src/common/database/transaction-scope.ts) on real PostgreSQL: parallel
 * work in a scope reaches the connection one statement at a time, and a branch that outlives its scope's failure
 * cannot write on its own after the ROLLBACK.
 */
/** The most statements in flight at once on pooled clients while `run` runs (pg queues a query sent while another
 * runs, a use it deprecates and removes in pg 9). */
async function mostInFlight(run: () => Promise<unknown>): Promise<number> {
  const original = PreparingClient.prototype.query;
  let inFlight = 0;
  let most = 0;
  const spy = jest.spyOn(PreparingClient.prototype, 'query').mockImplementation(function (
    this: PreparingClient,
    ...args: unknown[]
  ) {
    most = Math.max(most, ++inFlight);
    const sent = (original as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    void Promise.resolve(sent).then(
      () => inFlight--,
      () => inFlight--,
    );
    return sent;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return most;
}

/** A branch that writes after 0.3 s: 'written', or the error its INSERT got. */
function sleepThenInsert(query: (sql: string) => Promise<unknown>): Promise<unknown> {
  return query('SELECT pg_sleep(0.3)')
    .then(() => query('INSERT INTO scope_probe (n) VALUES (9)'))
    .then(
      () => 'written',
      (err: unknown) => err,
    );
}

describe('transaction scope', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: ScopedDataSource;

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await new ScopedDataSource(dataSourceOptions(db.url, 2)).initialize();
    await ds.query('CREATE TABLE scope_probe (n int NOT NULL)');
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });
  beforeEach(async () => {
    await ds.query('TRUNCATE scope_probe');
  });

  const count = async (): Promise<number> => Number((await ds.query('SELECT count(*) AS n FROM scope_probe'))[0].n);

  it('parallel statements of a scope commit together, sent to the connection one at a time', async () => {
    const most = await mostInFlight(async () => {
      await inTransactionScope(ds, async () => {
        await Promise.all(
          [1, 2, 3, 4].map((n) => ds.query('INSERT INTO scope_probe (n) SELECT $1 FROM pg_sleep(0.01)', [n])),
        );
      });
    });
    expect(await count()).toBe(4);
    expect(most).toBe(1);
  });

  it("a branch still running when its sibling fails cannot write after the scope's ROLLBACK", async () => {
    let lateBranch: Promise<unknown> = Promise.resolve();
    const failed = inTransactionScope(ds, async () => {
      lateBranch = sleepThenInsert((sql) => ds.query(sql));
      // Fails while the other branch's first statement still runs: the scope rolls back behind that statement.
      await new Promise((r) => setTimeout(r, 20));
      throw new Error('the request failed');
    });
    await expect(failed).rejects.toThrow('the request failed');
    // TypeORM wraps the driver's error.
    expect(await lateBranch).toMatchObject({ driverError: expect.any(TransactionScopeEndedError) });
    expect(await count()).toBe(0);
  });

  it('ds.transaction outside a scope is gated alike: one statement at a time, nothing after its ROLLBACK', async () => {
    const most = await mostInFlight(async () => {
      await ds.transaction((tx) =>
        Promise.all([1, 2, 3].map((n) => tx.query('INSERT INTO scope_probe (n) SELECT $1 FROM pg_sleep(0.01)', [n]))),
      );
    });
    expect(await count()).toBe(3);
    expect(most).toBe(1);

    let lateBranch: Promise<unknown> = Promise.resolve();
    const failed = ds.transaction(async (tx) => {
      lateBranch = sleepThenInsert((sql) => tx.query(sql));
      await new Promise((r) => setTimeout(r, 20));
      throw new Error('the request failed');
    });
    await expect(failed).rejects.toThrow('the request failed');
    expect(await lateBranch).toMatchObject({ driverError: expect.any(TransactionScopeEndedError) });
    expect(await count()).toBe(3);
  });

  it('the connection goes back to the pool with its own query method', async () => {
    let client: object | undefined;
    await inTransactionScope(ds, async (c) => {
      client = c;
      await ds.query('SELECT 1');
    });
    expect(Object.prototype.hasOwnProperty.call(client, 'query')).toBe(false);
    await expect(
      inTransactionScope(ds, async (c) => {
        client = c;
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(Object.prototype.hasOwnProperty.call(client, 'query')).toBe(false);
  });
});
