import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RequestContext } from '../common/auth/request-context';
import { fitVarchar } from '../common/database/columns';
import { Metrics } from '../common/metrics/metrics';
import { Queryable, SqlParams } from '../common/pagination/sql-params';
import { FailureAggregator, failureWindowSeconds } from './failure-aggregator';

export type AuditCategory =
  'auth' | 'member' | 'role' | 'settings' | 'integration' | 'webhook' | 'security' | 'instance';
export const AUDIT_CATEGORIES: AuditCategory[] = [
  'auth',
  'member',
  'role',
  'settings',
  'integration',
  'webhook',
  'security',
  'instance',
];
export const AUDIT_OUTCOMES = ['success', 'failure'] as const;

export interface AuditEvent {
  event_name: string;
  category: AuditCategory;
  outcome?: 'success' | 'failure';
  workspace_id: string;
  project_id?: string | null;
  target_type?: string;
  target_id?: string;
  target_display_name?: string;
  old_value?: unknown;
  new_value?: unknown;
  reason?: string;
  metadata?: Record<string, unknown>;
  /** Deduplication key; generated when omitted. */
  event_id?: string;
  /** Extra discriminator of "identical" failures for aggregation (not stored). */
  fingerprint?: string;
}

/** An event about a user rather than a workspace (credentials): recorded in each of the user's workspaces. */
export type UserAuditEvent = Omit<AuditEvent, 'workspace_id' | 'project_id' | 'event_id' | 'fingerprint'>;

/** Who acted, when there is no request context (CLI: source admin; jobs: system). */
export interface AuditActor {
  /** `auth`: the OAuth authorization server and its sign-in and consent pages (src/oauth/). */
  source: 'api' | 'admin' | 'system' | 'auth';
  /** `bot`: an app installation's bot user acting with a client-credentials token. */
  actor_type: 'user' | 'api_token' | 'system' | 'anonymous' | 'bot';
  actor_id: string | null;
  actor_display_name: string;
  actor_email: string;
  ip_address: string | null;
  user_agent: string;
}

/** audit_logs.ip_address is varchar(64). */
const IP_ADDRESS_MAX = 64;

/**
 * The one text form of a client address, used both when an entry is stored and for the `ip_address` filter:
 * an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, `::ffff:a00:1`, an IPv4 client on a dual-stack socket) is
 * its IPv4 address `10.0.0.1`; any other IPv6 address is its canonical RFC 5952 form (lower case, zeros
 * compressed: `2001:DB8:0::1` is `2001:db8::1`). Anything else (IPv4, a value that is no address) is kept
 * as given, trimmed, and a non-address is cut to the column. Empty is null.
 */
export function normalizeIp(ip: string | null | undefined): string | null {
  const s = ip?.trim();
  if (!s) return null;
  const kind = isIP(s);
  // Not an address (behind TRUST_PROXY, X-Forwarded-For is whatever the client wrote): kept, cut to the column.
  if (kind === 0) return fitVarchar(s, IP_ADDRESS_MAX);
  if (kind === 4) return s;
  let canonical: string;
  try {
    canonical = new URL(`http://[${s}]`).hostname.slice(1, -1);
  } catch {
    return fitVarchar(s.toLowerCase(), IP_ADDRESS_MAX); // e.g. a zone id (fe80::1%eth0), which URLs do not accept
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return canonical;
  const [hi, lo] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

export function actorFromContext(ctx: RequestContext): AuditActor {
  return {
    source: 'api',
    actor_type: ctx.principal.kind === 'api_key' ? 'api_token' : ctx.principal.kind === 'bot' ? 'bot' : 'user',
    actor_id: ctx.principal.userId,
    actor_display_name: ctx.principal.displayName,
    actor_email: ctx.principal.email,
    ip_address: normalizeIp(ctx.ip),
    user_agent: ctx.userAgent ?? '',
  };
}

export const SYSTEM_ACTOR: AuditActor = {
  source: 'system',
  actor_type: 'system',
  actor_id: null,
  actor_display_name: 'system',
  actor_email: '',
  ip_address: null,
  user_agent: '',
};

/** Operator actions (admin CLI, first-start bootstrap): source `admin`, no user identity. */
export const ADMIN_ACTOR: AuditActor = {
  source: 'admin',
  actor_type: 'system',
  actor_id: null,
  actor_display_name: 'admin',
  actor_email: '',
  ip_address: null,
  user_agent: 'admin-cli',
};

/** Casts of the inserted columns, by position (event_id, …, actor_id, …, the three jsonb, …, workspace_id, project_id). */
const COLUMN_CASTS: Record<number, string> = {
  0: '::uuid',
  6: '::uuid',
  12: '::jsonb',
  13: '::jsonb',
  15: '::jsonb',
  18: '::uuid',
  19: '::uuid',
};

/**
 * The one way to write the audit trail. Call `record` with the transaction (`db`) of the change it records,
 * so the change and its entry commit or roll back together, and preferably as the last statement of that
 * transaction: the insert takes the workspace's audit lock (docs/audit.md), held until commit.
 * Append-only: nothing here updates or deletes entries (the database refuses it too).
 */
@Injectable()
export class AuditService implements OnModuleDestroy {
  private readonly failures: FailureAggregator;
  private readonly writeFailures: { inc(labels: { write: 'entry' | 'aggregate_count' }): void } | undefined;

  /** `metrics`: absent in the CLI, which serves no scrapes. */
  constructor(
    private readonly ds: DataSource,
    @Optional() metrics?: Metrics,
  ) {
    this.writeFailures = metrics?.counter({
      name: 'audit_write_failures_total',
      help:
        'Audit trail statements that failed, by what they wrote: an entry (the change it records was rolled back, ' +
        'or a refused request went unrecorded) or the counter of an aggregated failure.',
      labelNames: ['write'] as const,
    });
    this.failures = new FailureAggregator(
      ds,
      failureWindowSeconds(),
      (db, actor, e) => this.record(db, actor, e),
      () => this.writeFailures?.inc({ write: 'aggregate_count' }),
    );
  }

  record(db: Queryable, actor: AuditActor | RequestContext, e: AuditEvent): Promise<void> {
    return this.insert(db, actor, [e]);
  }

  /** Several entries of one change (e.g. one per project membership it touched), in one statement, in order. */
  recordMany(db: Queryable, actor: AuditActor | RequestContext, events: AuditEvent[]): Promise<void> {
    return this.insert(db, actor, events);
  }

  /**
   * Records outside any transaction: failed and rejected attempts, which have no change to commit with.
   * Failures are aggregated (one entry per identical failure and window, the repeats counted beside it);
   * successes are written at once.
   */
  recordNow(actor: AuditActor | RequestContext, e: AuditEvent): Promise<void> {
    if ((e.outcome ?? 'success') === 'failure') {
      return this.failures.submit('principal' in actor ? actorFromContext(actor) : actor, e);
    }
    return this.record(this.ds, actor, e);
  }

  /**
   * Records a user-level event (API key, token) in every workspace the user is an active member of, in
   * workspace id order (the order the workspace audit locks are taken). A user who is an active member of no
   * workspace gets the entry in the instance trail (workspace_id NULL, docs/audit.md), so a credential is never
   * issued or revoked without its entry. Returns the number of entries written (at least one).
   */
  async recordForUser(
    db: Queryable,
    actor: AuditActor | RequestContext,
    userId: string,
    e: UserAuditEvent,
  ): Promise<number> {
    const users: Array<{ email: string; display_name: string }> = await db.query(
      `SELECT email, display_name FROM users WHERE id = $1`,
      [userId],
    );
    const workspaces: Array<{ workspace_id: string }> = await db.query(
      `SELECT wm.workspace_id
         FROM workspace_members wm
         JOIN workspaces w ON w.id = wm.workspace_id AND w.deleted_at IS NULL
        WHERE wm.member_id = $1 AND wm.deleted_at IS NULL AND wm.is_active
        ORDER BY wm.workspace_id`,
      [userId],
    );
    const metadata = {
      ...(e.metadata ?? {}),
      user_id: userId,
      user_email: users[0]?.email ?? '',
      user_display_name: users[0]?.display_name ?? '',
      scope: 'user',
    };
    const trails: Array<string | null> = workspaces.length ? workspaces.map((r) => r.workspace_id) : [null];
    await this.insert(
      db,
      actor,
      trails.map((workspaceId) => ({ ...e, workspace_id: workspaceId, metadata })),
    );
    return trails.length;
  }

  /**
   * Records an operator action on the instance itself, outside any workspace (e.g. `user.created`): one entry in
   * the instance trail (workspace_id NULL, docs/audit.md), inside `db`'s transaction like `record`.
   */
  recordInstance(db: Queryable, actor: AuditActor | RequestContext, e: UserAuditEvent): Promise<void> {
    return this.insert(db, actor, [{ ...e, workspace_id: null }]);
  }

  /** Adds the failure repeats counted in this process to the database (before reads, at shutdown). */
  flushAggregates(): Promise<void> {
    return this.failures.flush();
  }

  get failureWindowSeconds(): number {
    return this.failures.windowSeconds;
  }

  /**
   * The one INSERT into the trail: one statement for all `events`, rows in the given order (the trigger
   * numbers them in that order). `workspace_id` null writes to the instance trail (recordForUser, recordInstance).
   */
  private async insert(
    db: Queryable,
    actor: AuditActor | RequestContext,
    events: Array<Omit<AuditEvent, 'workspace_id'> & { workspace_id: string | null }>,
  ): Promise<void> {
    if (!events.length) return;
    const a = 'principal' in actor ? actorFromContext(actor) : actor;
    const params = new SqlParams();
    const rows = events.map((e) => {
      const values = [
        e.event_id ?? randomUUID(),
        e.event_name,
        e.category,
        e.outcome ?? 'success',
        a.source,
        a.actor_type,
        a.actor_id,
        fitVarchar(a.actor_display_name ?? ''),
        fitVarchar(a.actor_email ?? '', 320),
        fitVarchar(e.target_type ?? '', 64),
        fitVarchar(e.target_id ?? ''),
        fitVarchar(e.target_display_name ?? ''),
        e.old_value === undefined ? null : JSON.stringify(e.old_value),
        e.new_value === undefined ? null : JSON.stringify(e.new_value),
        e.reason ?? '',
        JSON.stringify(e.metadata ?? {}),
        normalizeIp(a.ip_address),
        a.user_agent ?? '',
        e.workspace_id,
        e.project_id ?? null,
      ];
      // Typed placeholders: in a multi-row VALUES list PostgreSQL does not take the types from the columns.
      return `(${values.map((v, i) => `${params.add(v)}${COLUMN_CASTS[i] ?? ''}`).join(', ')})`;
    });
    await this.insertRows(db, rows, params.values);
  }

  private async insertRows(db: Queryable, rows: string[], values: unknown[]): Promise<void> {
    try {
      await db.query(
        `INSERT INTO audit_logs (event_id, event_name, category, outcome, source, actor_type, actor_id, actor_display_name, actor_email,
         target_type, target_id, target_display_name, old_value, new_value, reason, metadata, ip_address, user_agent,
         workspace_id, project_id)
       VALUES ${rows.join(', ')}`,
        values,
      );
    } catch (err) {
      this.writeFailures?.inc({ write: 'entry' });
      throw err;
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.failures.close();
  }
}
