import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `api_keys.last_used_at`: when the key last authenticated a request (admin CLI `api-key list`). Servers stamp it
 * in batches (CredentialUsage), so the auth-change trigger of api_keys now fires only on the columns a credential
 * resolves to: a usage stamp must not empty every instance's auth cache.
 */
export class ApiKeyLastUsed1795450000000 implements MigrationInterface {
  name = 'ApiKeyLastUsed1795450000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz`);
    await q.query(`DROP TRIGGER trg_api_keys_auth_changed ON api_keys`);
    await q.query(
      `CREATE TRIGGER trg_api_keys_auth_changed AFTER INSERT OR UPDATE OF user_id, key_hash, expires_at, revoked_at OR DELETE
         ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION wt_notify_auth_changed()`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER trg_api_keys_auth_changed ON api_keys`);
    await q.query(
      `CREATE TRIGGER trg_api_keys_auth_changed AFTER INSERT OR UPDATE OR DELETE
         ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION wt_notify_auth_changed()`,
    );
    await q.query(`ALTER TABLE api_keys DROP COLUMN last_used_at`);
  }
}
