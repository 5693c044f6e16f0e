import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { Series } from './fast-histogram';
import { LATENCY_BUCKETS, Metrics } from './metrics';

type Callback = (err: Error | null, res: unknown) => void;
type QueryFn = (...args: unknown[]) => unknown;

/**
 * Times every statement a pooled client runs: TypeORM's query runners, the hot reads that go straight to the
 * pool (common/database/prepared.ts) and transactions alike, since all of them take a client from the pool.
 * A client is wrapped once, the first time it is handed out. pg's query() answers by callback (pg-pool's own
 * query() passes one) or by promise; a promise call is made a callback call with a promise of our own, as pg
 * would have made one, so timing adds no promise. Streams (submittables) are not timed.
 */
function timeQueries(client: PoolClient, ok: Series, failed: Series): void {
  const original = (client as unknown as { query: QueryFn }).query;
  const timed = function (this: PoolClient, ...args: unknown[]): unknown {
    if (typeof (args[0] as { submit?: unknown } | undefined)?.submit === 'function') return original.apply(this, args);
    const start = performance.now();
    const last = args.length - 1;
    const observed =
      (callback: Callback): Callback =>
      (err, res) => {
        (err ? failed : ok).observe((performance.now() - start) / 1000);
        callback(err, res);
      };
    if (typeof args[last] === 'function') {
      args[last] = observed(args[last] as Callback);
      return original.apply(this, args);
    }
    // query(text), query(text, values), query(config): values stays in its place, the callback comes third.
    return new Promise((resolve, reject) => {
      const callback: Callback = (err, res) => (err ? reject(err) : resolve(res));
      original.call(this, args[0], args[1], observed(callback));
    });
  };
  (client as unknown as { query: QueryFn }).query = timed;
}

/**
 * The database pool as Prometheus sees it: its size, open, idle and waiting counts read at scrape time (one
 * pool per instance, DB_POOL_SIZE connections) and the latency of every statement (db_query_duration_seconds,
 * by outcome only: a statement's text would be a series per text).
 */
@Injectable()
export class DbMetrics implements OnApplicationBootstrap {
  private readonly timed = new WeakSet<PoolClient>();

  constructor(
    private readonly metrics: Metrics,
    private readonly ds: DataSource,
  ) {}

  onApplicationBootstrap(): void {
    const pool = (this.ds.driver as unknown as { master: Pool }).master;
    // Read the pool once the scrape's own statements (webhook_queue_depth's, when this instance runs no job engine)
    // have their connections: pg-pool queues a request until its next tick even with idle connections, so read in
    // the same tick the scrape itself showed as a caller waiting for the pool.
    const gauge = (name: string, help: string, read: () => number) =>
      this.metrics.gauge({
        name,
        help,
        async collect() {
          await new Promise<void>((resolve) => setImmediate(resolve));
          this.set(read());
        },
      });
    gauge('db_pool_max_connections', 'Connections the pool may open (DB_POOL_SIZE).', () => pool.options.max ?? 10);
    gauge('db_pool_connections', 'Connections the pool holds open, busy or idle.', () => pool.totalCount);
    gauge('db_pool_idle_connections', 'Open connections no request is using.', () => pool.idleCount);
    gauge('db_pool_waiting_requests', 'Callers waiting for a connection (the pool is exhausted).', () => {
      return pool.waitingCount;
    });
    const duration = this.metrics.fastHistogram({
      name: 'db_query_duration_seconds',
      help: 'Time from sending a statement on a pooled connection to its result, by outcome (ok, error).',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
    });
    const ok = duration.series({ outcome: 'ok' });
    const failed = duration.series({ outcome: 'error' });
    pool.on('acquire', (client: PoolClient) => {
      if (this.timed.has(client)) return;
      this.timed.add(client);
      timeQueries(client, ok, failed);
    });
  }
}
