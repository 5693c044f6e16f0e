import { OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';

interface Window {
  hits: number;
  /** When this window ends (epoch ms). */
  endsAt: number;
  /** Until when the key is blocked (epoch ms); 0 when it is not. */
  blockedUntil: number;
}

/** How often windows that ended (and blocks that lapsed) are dropped. */
const SWEEP_MS = 60_000;

/**
 * Throttler storage of one process: the fixed-window algorithm of RedisThrottlerStorage (a counter per key
 * and window, a block once over the limit), so limits behave the same with and without REDIS_URL.
 *
 * @nestjs/throttler's ThrottlerStorageService keeps one timestamp per hit and filters the whole list on every
 * request (sliding window): O(hits in the window) per request, a tenth of the service's CPU once a client
 * sends a few thousand requests a minute under a raised RATE_LIMIT_MAX. This is O(1) per request.
 */
export class MemoryThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(Date.now()), SWEEP_MS);
    this.sweeper.unref();
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, name: string) {
    const now = Date.now();
    const k = `${name}:${key}`;
    let w = this.windows.get(k);
    if (!w) {
      w = { hits: 0, endsAt: now + ttl, blockedUntil: 0 };
      this.windows.set(k, w);
    } else if (w.endsAt <= now) {
      w.hits = 0;
      w.endsAt = now + ttl;
    }
    w.hits++;
    const timeToExpire = Math.max(0, Math.ceil((w.endsAt - now) / 1000));
    if (w.blockedUntil <= now && w.hits > limit) w.blockedUntil = now + (blockDuration || ttl);
    const isBlocked = w.blockedUntil > now;
    return {
      totalHits: w.hits,
      timeToExpire,
      isBlocked,
      timeToBlockExpire: isBlocked ? Math.max(0, Math.ceil((w.blockedUntil - now) / 1000)) : 0,
    };
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (w.endsAt <= now && w.blockedUntil <= now) this.windows.delete(k);
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }
}
