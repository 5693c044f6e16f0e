import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import type Redis from 'ioredis';

// Fixed window per key, shared by every instance: INCR + PEXPIRE, and a block key once over the limit.
// The window gets its expiry on the first hit, or again if it somehow has none (never a window for ever).
const SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 or redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
local blocked = redis.call('PTTL', KEYS[2])
if blocked > 0 then return {hits, ttl, 1, blocked} end
if hits > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  return {hits, ttl, 1, tonumber(ARGV[3])}
end
return {hits, ttl, 0, 0}`;

/** A request waits at most this long for the limiter before it is let through. */
const COMMAND_TIMEOUT_MS = 1000;
/** How long a Redis that let a command time out is skipped before it is tried again. */
const SILENT_BACKOFF_MS = 5000;
/** ioredis states of a connection that was lost or refused (not the first connect in progress). */
const LOST = new Set(['reconnecting', 'close', 'end']);

type ThrottleCommand = (
  windowKey: string,
  blockKey: string,
  ttlMs: number,
  limit: number,
  blockMs: number,
) => Promise<number[]>;

/**
 * Throttler storage in Redis so several API instances share one budget per credential.
 * (@nest-lab/throttler-storage-redis does not yet declare NestJS 12 as a peer; this is the same
 * fixed-window algorithm in one atomic script.)
 *
 * When Redis cannot be reached the request is let through (fail open, logged at most once a minute):
 * an outage of the limiter must not become an outage of the API.
 */
export class RedisThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly redis: Redis;
  private readonly logger = new Logger('RedisThrottlerStorage');
  private lastWarning = 0;
  /** Until when a silent Redis is skipped (set by a command timeout). */
  private silentUntil = 0;

  constructor(
    url: string,
    private readonly prefix = 'wt:throttle',
  ) {
    // Loaded here, not at import: without REDIS_URL (the in-memory limiter) the client library is never loaded
    // (0.3 MB of source and code kept in memory: docs/read-path-profile.md, "Peak memory, third pass").
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
    this.redis = new RedisClient(url, {
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      disconnectTimeout: 200,
      enableOfflineQueue: true,
      lazyConnect: false,
    });
    this.redis.on('error', (err: Error) => this.warn(err));
    this.redis.defineCommand('wtThrottle', { numberOfKeys: 2, lua: SCRIPT });
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, name: string) {
    const k = `${this.prefix}:${name}:${key}`;
    let timer: NodeJS.Timeout | undefined;
    // Connection lost (down, reconnecting): fail open at once instead of queueing behind the timeout, so an
    // outage of Redis costs requests nothing (the client reconnects in the background). While the first
    // connection is being made the command waits for it (bounded by the timeout below).
    if (LOST.has(this.redis.status)) return this.unlimited(ttl, new Error(`Redis is ${this.redis.status}`));
    // A Redis that is connected but silent: after a timed-out command, skip it for a while instead of making
    // every request wait out the timeout again.
    if (Date.now() < this.silentUntil) return this.unlimited(ttl, new Error('Redis did not answer recently'));
    try {
      const call = (this.redis as unknown as { wtThrottle: ThrottleCommand }).wtThrottle(
        k,
        `${k}:blocked`,
        ttl,
        limit,
        blockDuration || ttl,
      );
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer from Redis within ${COMMAND_TIMEOUT_MS} ms`)),
          COMMAND_TIMEOUT_MS,
        );
        timer.unref();
      });
      const [hits, ttlMs, blocked, blockMs] = await Promise.race([call, timeout]);
      return {
        totalHits: hits,
        timeToExpire: Math.max(0, Math.ceil(ttlMs / 1000)),
        isBlocked: blocked === 1,
        timeToBlockExpire: Math.max(0, Math.ceil(blockMs / 1000)),
      };
    } catch (err) {
      if ((err as Error)?.message?.startsWith('no answer from Redis'))
        this.silentUntil = Date.now() + SILENT_BACKOFF_MS;
      return this.unlimited(ttl, err as Error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The answer while the limiter is unavailable: not counted, not blocked (warned about once a minute). */
  private unlimited(ttl: number, err: Error) {
    this.warn(err);
    return { totalHits: 0, timeToExpire: Math.ceil(ttl / 1000), isBlocked: false, timeToBlockExpire: 0 };
  }

  private warn(err: Error): void {
    if (Date.now() - this.lastWarning < 60_000) return;
    this.lastWarning = Date.now();
    this.logger.warn({ msg: 'rate-limit storage unavailable; requests are not limited meanwhile', err: err?.message });
  }

  /** After the HTTP server has closed (in-flight requests still count against their budget). */
  async onApplicationShutdown(): Promise<void> {
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}
