import {
  CallHandler,
  ExecutionContext,
  Inject,
  Injectable,
  Logger,
  NestInterceptor,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  Optional,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import { Client } from 'pg';
import { Observable, tap } from 'rxjs';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { Metrics } from '../metrics/metrics';
import type { ResolvedAuthRow } from './auth.repository';

/** The channel the auth tables' triggers notify on commit (migration AuthChangeNotify). */
export const AUTH_CHANGED_CHANNEL = 'wt_auth_changed';
/** More entries than this (credentials x workspaces x projects in use) and the cache starts over. */
const MAX_ENTRIES = 10_000;
const RECONNECT_MS = [1_000, 2_000, 5_000, 10_000];

interface Entry {
  row: ResolvedAuthRow;
  /** Epoch ms after which the entry is not used (AUTH_CACHE_TTL_SECONDS). */
  until: number;
  /** The credential's own expiry (epoch ms), checked on every hit; null: it has none. */
  credentialExpires: number | null;
}

/**
 * Resolved credentials (user, workspace role, project role: AuthRepository's one row) kept for a few seconds,
 * so a request does not wait a round trip to PostgreSQL before its own statement. A fifth of the CPU of a
 * list request went to that round trip.
 *
 * Every change of the tables the row is read from (api_keys, oauth_tokens, users, workspaces,
 * workspace_members, projects, project_members) notifies AUTH_CHANGED_CHANNEL on commit, from a statement
 * trigger, whoever makes it (this instance, another one, the CLI, an operator in psql), and every instance
 * listening empties its cache: a change made elsewhere holds here within the time the notification takes to
 * arrive (well under a millisecond to a few), not AUTH_CACHE_TTL_SECONDS. Writes made by this process empty it
 * themselves once committed (InvalidatesAuthCache, AdminService), before their response is sent, so they hold
 * for the very next request. A lookup that started before an invalidation does not store its row (the
 * generation moved on). While the listening connection is down nothing is cached. Only successful
 * resolutions are kept: an unknown credential is looked up every time.
 */
@Injectable()
export class AuthCache implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AuthCache');
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private generation = 0;
  private listener: Client | null = null;
  private listening = false;
  private stopped = false;
  private attempts = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly hits: { inc(): void } | undefined;
  private readonly misses: { inc(): void } | undefined;

  constructor(
    @Inject(APP_CONFIG) cfg: AppConfig,
    private readonly ds: DataSource,
    @Optional() metrics?: Metrics,
  ) {
    this.ttlMs = cfg.authCacheTtlSeconds * 1000;
    this.hits = metrics?.counter({ name: 'auth_cache_hits_total', help: 'Credentials resolved from the auth cache.' });
    this.misses = metrics?.counter({
      name: 'auth_cache_misses_total',
      help: 'Credentials looked up in the database (not cached, expired, invalidated, or the cache is off).',
    });
    const entries = this.entries;
    metrics?.gauge({
      name: 'auth_cache_entries',
      help: 'Resolved credentials the auth cache holds.',
      collect() {
        this.set(entries.size);
      },
    });
  }

  /** Whether entries are kept: the listening connection is up (and the TTL is not 0). */
  get active(): boolean {
    return this.listening && this.ttlMs > 0;
  }

  /** Entries held (some may be past their time). */
  get size(): number {
    return this.entries.size;
  }

  /** The cached row of `key`, if it is still good. */
  get(key: string, now = Date.now()): ResolvedAuthRow | undefined {
    if (!this.listening) return undefined;
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until <= now || (e.credentialExpires !== null && e.credentialExpires <= now)) {
      this.entries.delete(key);
      return undefined;
    }
    return e.row;
  }

  /**
   * Resolves through the cache: `load` runs on a miss and its row is kept, unless an invalidation happened
   * while it ran (its snapshot may predate the change).
   */
  async resolve(key: string, load: () => Promise<ResolvedAuthRow | null>): Promise<ResolvedAuthRow | null> {
    const hit = this.get(key);
    if (hit) {
      this.hits?.inc();
      return hit;
    }
    this.misses?.inc();
    const generation = this.generation;
    const row = await load();
    if (row && this.active && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      const expires = row.credential_expires_at ? new Date(row.credential_expires_at).getTime() : null;
      this.entries.set(key, { row, until: Date.now() + this.ttlMs, credentialExpires: expires });
    }
    return row;
  }

  /**
   * Resolves once every change committed before the call has reached this cache: PostgreSQL sends a listening
   * connection its pending notifications before the answer to its next query.
   */
  async sync(): Promise<void> {
    await this.listener?.query('SELECT 1').catch(() => undefined);
  }

  /** Forgets every entry; lookups in flight do not store theirs. */
  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.ttlMs > 0) await this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.down();
    await this.listener?.end().catch(() => undefined);
  }

  private down(): void {
    this.listening = false;
    this.invalidate();
  }

  /** A connection of its own, LISTENing; on any failure the cache is off until it is back. */
  private async listen(): Promise<void> {
    const url = (this.ds.options as { url?: string }).url;
    const client = new Client({
      connectionString: url,
      connectionTimeoutMillis: 10_000,
      application_name: 'work-tracking-api:auth-cache',
    });
    this.listener = client;
    client.on('notification', (msg) => {
      if (msg.channel === AUTH_CHANGED_CHANNEL) this.invalidate();
    });
    const lost = (err?: Error) => {
      if (this.listener !== client) return;
      this.listener = null;
      this.down();
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn({
        msg: 'auth cache listener lost; credentials are looked up on every request until it is back',
        err: err?.message,
      });
      this.reconnectLater();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${AUTH_CHANGED_CHANNEL}`);
      // Whatever changed while nobody listened is not in the (empty) cache.
      this.invalidate();
      this.listening = true;
      this.attempts = 0;
    } catch (err) {
      lost(err as Error);
    }
  }

  private reconnectLater(): void {
    const delay = RECONNECT_MS[Math.min(this.attempts++, RECONNECT_MS.length - 1)];
    this.timer = setTimeout(() => void this.listen(), delay);
    this.timer.unref();
  }
}

/** Empties the auth cache once a write handler has finished (its transaction committed), before the response. */
@Injectable()
export class AuthCacheInvalidator implements NestInterceptor {
  /** Absent in the CLI's context, which serves no requests. */
  constructor(@Optional() private readonly cache?: AuthCache) {}
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const method = context.switchToHttp().getRequest<{ method: string }>().method;
    if (method === 'GET' || method === 'HEAD') return next.handle();
    const invalidate = () => this.cache?.invalidate();
    return next.handle().pipe(tap({ next: invalidate, error: invalidate }));
  }
}

/** On a controller whose writes change memberships, roles or projects (what AuthRepository resolves). */
export const InvalidatesAuthCache = () => UseInterceptors(AuthCacheInvalidator);

/** Metadata key of ChangesResolvedCredentials. */
export const CHANGES_CREDENTIALS_META = 'wt:changes-resolved-credentials';

/**
 * On a service whose writes change what a credential resolves to (projects, memberships, roles). Every controller
 * that injects one and has a write route must carry InvalidatesAuthCache, or a client's next request may still
 * see the old row until the notification arrives (route-guards.spec checks it).
 */
export const ChangesResolvedCredentials = (): ClassDecorator => SetMetadata(CHANGES_CREDENTIALS_META, true);
