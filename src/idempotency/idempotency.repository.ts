import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { DataSource } from 'typeorm';

export interface StoredResponse {
  fingerprint: string;
  status_code: number;
  body: string | null;
}

/** How long a stored response is replayed (Stripe: 24 hours). */
export const IDEMPOTENCY_TTL_HOURS = 24;

/** The SQL of `idempotency_keys`. Statements taking a client run in the request's transaction scope. */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * Takes the key for the rest of the transaction, or answers false when another transaction (a request still
   * running, on this instance or another) holds it. A hash collision with another key only makes a concurrent
   * request of that key wait its turn (409): the stored row is always looked up by credential and key.
   */
  async tryLock(client: PoolClient, credential: string, key: string): Promise<boolean> {
    const res = await client.query<{ ok: boolean }>(
      `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 23)) AS ok`,
      [`idempotency\n${credential}\n${key}`],
    );
    return res.rows[0].ok;
  }

  async find(client: PoolClient, credential: string, key: string): Promise<StoredResponse | null> {
    const res = await client.query<StoredResponse>(
      `SELECT fingerprint, status_code, body FROM idempotency_keys
        WHERE credential = $1 AND key = $2 AND expires_at > now()`,
      [credential, key],
    );
    return res.rows[0] ?? null;
  }

  /** Stores the response; an expired row of the same key (not pruned yet) is replaced. */
  async save(client: PoolClient, credential: string, key: string, stored: StoredResponse): Promise<void> {
    await client.query(
      `INSERT INTO idempotency_keys (credential, key, fingerprint, status_code, body, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(hours => $6))
       ON CONFLICT (credential, key) DO UPDATE
          SET fingerprint = EXCLUDED.fingerprint, status_code = EXCLUDED.status_code, body = EXCLUDED.body,
              created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
        WHERE idempotency_keys.expires_at <= now()`,
      [credential, key, stored.fingerprint, stored.status_code, stored.body, IDEMPOTENCY_TTL_HOURS],
    );
  }

  /** Deletes up to `limit` expired rows; returns how many went. */
  async pruneExpired(limit: number): Promise<number> {
    const [, count] = await this.ds.query<[unknown, number]>(
      `DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM idempotency_keys WHERE expires_at <= now() ORDER BY expires_at LIMIT $1))`,
      [limit],
    );
    return count;
  }
}
