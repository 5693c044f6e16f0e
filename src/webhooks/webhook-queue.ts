import { Inject, Injectable, Logger, BeforeApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { Db, Job, PgBoss, SendOptions } from 'pg-boss';
import { DataSource } from 'typeorm';
import { Queryable } from '../common/pagination/sql-params';
import { WEBHOOK_SETTINGS } from './webhook-tokens';
import { WebhookSettings } from './webhook-settings';

export const DISPATCH_QUEUE = 'webhook-dispatch';
export const DELIVER_QUEUE = 'webhook-deliver';
export const MAINTAIN_QUEUE = 'webhook-maintain';
export const WEBHOOK_QUEUES = [DISPATCH_QUEUE, DELIVER_QUEUE, MAINTAIN_QUEUE];

/** Runs statements of pg-boss inside the caller's transaction, so a job commits or rolls back with the change. */
export function inTransaction(db: Queryable): Db {
  return {
    executeSql: async (text, values) => {
      const res = await db.query(text, values);
      // TypeORM answers an UPDATE or DELETE with [rows, count], anything else with the rows.
      const counted = res.length === 2 && Array.isArray(res[0]) && typeof res[1] === 'number';
      return { rows: counted ? res[0] : res };
    },
  };
}

/** How often an instance without the job engine looks for webhook work that needs one (a webhook, an event). */
const IDLE_CHECK_MS = 60_000;

/**
 * The job engine behind webhook delivery: pg-boss, with its jobs in the service's own PostgreSQL (schema
 * `pgboss`, installed and migrated by pg-boss at start). Workers of every instance fetch with SKIP LOCKED, so a job
 * runs in one of them at a time; LISTEN/NOTIFY wakes an idle worker as soon as a job commits (polling
 * remains the floor where NOTIFY cannot reach, e.g. behind a transaction-mode pooler).
 *
 * pg-boss (with luxon, cron-parser and rrule, about 3 MB of heap, and its own connections) is loaded and started
 * only where there is webhook work (peak RSS, issue 27): at start when any webhook or webhook event exists, else by
 * the first of: a webhook created or updated here, an event this instance records (the outbox), or the minute's
 * check finding a webhook another instance registered. Until then nothing can need it: no webhook means no event
 * and no delivery.
 */
@Injectable()
export class WebhookQueue implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private boss: PgBoss | undefined;
  private starting: Promise<void> | undefined;
  private stopping = false;
  private idleCheck: NodeJS.Timeout | undefined;
  private readonly onStart: Array<() => Promise<void>> = [];

  constructor(
    private readonly ds: DataSource,
    @Inject(WEBHOOK_SETTINGS) private readonly settings: WebhookSettings,
  ) {}

  get started(): boolean {
    return this.boss !== undefined;
  }

  async onModuleInit(): Promise<void> {
    if (await this.webhookWorkExists()) return this.ensureStarted();
    this.idleCheck = setInterval(() => void this.startIfWork(), IDLE_CHECK_MS);
    this.idleCheck.unref();
  }

  /** Runs `fn` once the engine has started (at once when it runs already): the workers' start. */
  async whenStarted(fn: () => Promise<void>): Promise<void> {
    this.onStart.push(fn);
    if (this.boss) await fn();
  }

  /** Starts the engine unless it runs or is starting; resolves once it runs. */
  ensureStarted(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    this.starting ??= this.start().catch((err: unknown) => {
      this.starting = undefined;
      throw err;
    });
    return this.starting;
  }

  /** Starts the engine in the background (a failure is logged; the next need, or the minute's check, tries again). */
  startInBackground(): void {
    if (this.boss) return;
    this.ensureStarted().catch((err: Error) => this.logger.warn(`job engine: could not start: ${err.message}`));
  }

  private async webhookWorkExists(): Promise<boolean> {
    const [r] = await this.ds.query<Array<{ found: boolean }>>(
      // Marked as the job engine's (tests' statement recorders leave pgboss statements out as background work).
      `SELECT /* pgboss: needed? */ EXISTS (SELECT 1 FROM webhooks) OR EXISTS (SELECT 1 FROM webhook_events) AS found`,
    );
    return r.found;
  }

  private async startIfWork(): Promise<void> {
    if (this.boss || this.starting) return;
    const found = await this.webhookWorkExists().catch(() => false);
    if (found) this.startInBackground();
  }

  private async start(): Promise<void> {
    const url = (this.ds.options as { url?: string }).url;
    if (!url) throw new Error('webhooks: the data source has no connection URL for the job engine');
    // Loaded here, not at the top: an instance without webhook work never loads it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { PgBoss } = require('pg-boss') as typeof import('pg-boss');
    const boss = new PgBoss({
      connectionString: url,
      max: this.settings.poolSize,
      application_name: 'work-tracking-api-jobs',
      useListenNotify: true,
    });
    // Errors of pg-boss's own loops (maintenance, a lost connection): logged, never thrown at a request.
    boss.on('error', (err: Error) => this.logger.warn(`job engine: ${err.message}`));
    await boss.start();
    try {
      await this.ensureQueues(boss);
    } catch (err) {
      await boss.stop({ graceful: false }).catch(() => undefined);
      throw err;
    }
    clearInterval(this.idleCheck);
    this.boss = boss;
    // Started: a listener's failure (a worker that could not subscribe) is logged, the engine stays up for the rest.
    for (const fn of this.onStart) {
      await fn().catch((err: Error) => this.logger.warn(`job engine: ${err.message}`));
    }
  }

  private async ensureQueues(boss: PgBoss): Promise<void> {
    await this.ensureQueue(boss, DISPATCH_QUEUE, { retryLimit: 20, retryDelay: 5, retryBackoff: true });
    // A delivery job retries by itself only when its worker died or the database failed mid-job; receiver
    // failures are rescheduled as new jobs with the webhook backoff (WebhookDeliverer).
    await this.ensureQueue(boss, DELIVER_QUEUE, {
      retryLimit: 10,
      retryDelay: 10,
      retryBackoff: true,
      expireInSeconds: Math.ceil(this.settings.timeoutMs / 1000) + 60,
    });
    await this.ensureQueue(boss, MAINTAIN_QUEUE, { retryLimit: 0 });
  }

  private async ensureQueue(boss: PgBoss, name: string, options: Omit<SendOptions, 'db'>): Promise<void> {
    await boss.createQueue(name, { notify: true, ...options });
  }

  /** Adds a job; with `db`, inside that transaction. */
  async send(name: string, data: object, options: SendOptions = {}, db?: Queryable): Promise<void> {
    if (!this.boss) throw new Error('webhooks: the job engine is not started');
    await this.boss.send(name, data, db ? { ...options, db: inTransaction(db) } : options);
  }

  /** Adds several jobs of one queue in one statement, inside the transaction `db`. */
  async insert(name: string, jobs: object[], db: Queryable): Promise<void> {
    if (!this.boss) throw new Error('webhooks: the job engine is not started');
    await this.boss.insert(
      name,
      jobs.map((data) => ({ data })),
      { db: inTransaction(db) },
    );
  }

  /** Runs `handler` for each job of `name`, `concurrency` at a time in this instance. */
  async work<T extends object>(name: string, handler: (job: Job<T>) => Promise<void>, concurrency = 1): Promise<void> {
    if (!this.boss) throw new Error('webhooks: the job engine is not started');
    await this.boss.work<T>(
      name,
      {
        pollingIntervalSeconds: this.settings.pollIntervalSeconds,
        notifyPollingIntervalSeconds: this.settings.pollIntervalSeconds,
        localConcurrency: concurrency,
      },
      async (jobs) => {
        for (const job of jobs) await handler(job);
      },
    );
  }

  async schedule(name: string, cron: string): Promise<void> {
    await this.boss?.schedule(name, cron);
  }

  /**
   * Statements on the job engine's own pool (WEBHOOK_DB_POOL_SIZE), or null before it starts: for reads that must
   * not take a connection of the API's pool, such as the queue-depth metric read while /metrics reports that pool.
   */
  ownPool(): Queryable | null {
    const boss = this.boss;
    if (!boss) return null;
    return {
      query: async <T>(text: string, values?: unknown[]) => (await boss.getDb().executeSql(text, values)).rows as T,
    };
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.idleCheck);
    await this.starting?.catch(() => undefined);
    const boss = this.boss;
    this.boss = undefined;
    await boss?.stop({ graceful: true, timeout: this.settings.timeoutMs + 1000 });
  }
}
