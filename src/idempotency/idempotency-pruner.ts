import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository';

/** How often expired stored responses are deleted. */
export const PRUNE_INTERVAL_MS = 10 * 60_000;
/** Rows per DELETE: short statements, so pruning a large backlog never holds locks for long. */
const PRUNE_BATCH = 5000;

/**
 * The job that deletes stored idempotent responses past their 24 hours: every ten minutes on every instance (a
 * DELETE of expired rows is harmless to run twice), in batches until none is left. Replays never depend on it:
 * lookups ignore expired rows, and a new request with an expired key replaces its row.
 */
@Injectable()
export class IdempotencyPruner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('IdempotencyPruner');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(private readonly repo: IdempotencyRepository) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.prune(), PRUNE_INTERVAL_MS).unref();
  }

  /** Deletes every expired row; returns how many (0 when a run is already going). */
  async prune(): Promise<number> {
    if (this.running) return 0;
    this.running = this.pruneAll().catch((err: Error) => {
      this.logger.warn(`could not prune idempotency keys: ${err.message}`);
      return 0;
    });
    try {
      return await this.running;
    } finally {
      this.running = undefined;
    }
  }

  private async pruneAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.repo.pruneExpired(PRUNE_BATCH);
      total += n;
      if (n < PRUNE_BATCH) return total;
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
