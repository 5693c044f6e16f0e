import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ADMIN_ACTOR, AuditActor, AuditService } from '../audit/audit.service';
import { hashSecret, newApiKey } from '../common/auth/credentials';
import { RequestContext } from '../common/auth/request-context';
import { ProblemException } from '../common/errors/problem.exception';
import { isUuid } from '../common/http/validation';
import { Queryable } from '../common/pagination/sql-params';

/** A key as `api-key list` shows it. `last_used_at` is up to 30 s behind (CredentialUsage stamps in batches). */
export interface ApiKeySummary {
  id: string;
  label: string;
  key_prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  expires_at: string | null;
}

type ApiKeyRow = Omit<ApiKeySummary, 'created_at' | 'last_used_at' | 'revoked_at' | 'expires_at'> & {
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  expires_at: Date | null;
};

/**
 * Personal API keys: the secret is returned once and stored only as its SHA-256.
 * Creating and revoking a key are audited (`api_key.created`, `api_key.revoked`, category auth) in every
 * workspace of the key's user, in the same transaction as the change. `actor` defaults to the admin CLI.
 */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly ds: DataSource,
    private readonly audit: AuditService,
  ) {}

  async create(
    userId: string,
    label = '',
    db?: Queryable,
    actor: AuditActor | RequestContext = ADMIN_ACTOR,
  ): Promise<{ id: string; key: string }> {
    const run = async (tx: Queryable) => {
      const key = newApiKey();
      const rows = await tx.query(
        `INSERT INTO api_keys (user_id, key_hash, key_prefix, label) VALUES ($1, $2, $3, $4) RETURNING id, key_prefix, label, expires_at, created_at`,
        [userId, hashSecret(key), key.slice(0, 12), label],
      );
      const k = rows[0];
      await this.audit.recordForUser(tx, actor, userId, {
        event_name: 'api_key.created',
        category: 'auth',
        target_type: 'api_key',
        target_id: k.id,
        target_display_name: k.label || k.key_prefix,
        new_value: {
          id: k.id,
          user_id: userId,
          label: k.label,
          key_prefix: k.key_prefix,
          expires_at: k.expires_at ? new Date(k.expires_at).toISOString() : null,
        },
      });
      return { id: k.id as string, key };
    };
    return db ? run(db) : this.ds.transaction(run);
  }

  /** A user's keys, oldest first, revoked ones included (admin CLI `api-key list`); never the secret or its hash. */
  async listForUser(userId: string): Promise<ApiKeySummary[]> {
    const rows: ApiKeyRow[] = await this.ds.query(
      `SELECT id, label, key_prefix, created_at, last_used_at, revoked_at, expires_at FROM api_keys
        WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
    const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
    return rows.map((r) => ({
      id: r.id,
      label: r.label,
      key_prefix: r.key_prefix,
      created_at: r.created_at.toISOString(),
      last_used_at: iso(r.last_used_at),
      revoked_at: iso(r.revoked_at),
      expires_at: iso(r.expires_at),
    }));
  }

  async revoke(
    id: string,
    db?: Queryable,
    actor: AuditActor | RequestContext = ADMIN_ACTOR,
  ): Promise<{ id: string; user_id: string; revoked_at: string }> {
    if (!isUuid(id)) throw ProblemException.validation('id', 'Must be a valid UUID.');
    const run = async (tx: Queryable) => {
      // TypeORM answers UPDATE ... RETURNING with [rows, rowCount].
      const [rows] = await tx.query(
        `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id, user_id, label, key_prefix, revoked_at`,
        [id],
      );
      if (!rows.length) throw ProblemException.notFound('Active API key');
      const k = rows[0];
      const revokedAt = new Date(k.revoked_at).toISOString();
      await this.audit.recordForUser(tx, actor, k.user_id, {
        event_name: 'api_key.revoked',
        category: 'auth',
        target_type: 'api_key',
        target_id: k.id,
        target_display_name: k.label || k.key_prefix,
        old_value: { revoked_at: null },
        new_value: { revoked_at: revokedAt },
        metadata: { key_prefix: k.key_prefix },
      });
      return { id: k.id as string, user_id: k.user_id as string, revoked_at: revokedAt };
    };
    return db ? run(db) : this.ds.transaction(run);
  }
}
