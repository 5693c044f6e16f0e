import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAuth 2.0 for apps (issue 22): apps registered in a workspace and their installation (with its bot user), the
 * authorization server's own records (codes, refresh tokens, grants, sign-in sessions, interactions), the columns
 * that tie an access token to its app, grant and workspace, and passwords for the sign-in page.
 */
export class OAuthApps1795430000000 implements MigrationInterface {
  name = 'OAuthApps1795430000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE users ADD COLUMN password_hash text, ADD COLUMN password_updated_at timestamptz,
         ADD COLUMN is_bot boolean NOT NULL DEFAULT false`,
    );
    await q.query(`CREATE TABLE apps (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      workspace_id uuid NOT NULL,
      name varchar(255) NOT NULL,
      client_id varchar(64) NOT NULL,
      client_secret_hash char(64),
      redirect_uris text[] NOT NULL,
      scopes text[] NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz)`);
    await q.query(`CREATE UNIQUE INDEX uq_apps_client_id ON apps (client_id)`);
    await q.query(`CREATE INDEX ix_apps_workspace ON apps (workspace_id)`);
    await q.query(`CREATE TABLE app_installations (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      app_id uuid NOT NULL,
      workspace_id uuid NOT NULL,
      bot_user_id uuid NOT NULL,
      status varchar(16) NOT NULL DEFAULT 'installed',
      created_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE UNIQUE INDEX uq_app_installations_app_workspace ON app_installations (app_id, workspace_id)`);
    await q.query(`CREATE INDEX ix_app_installations_workspace ON app_installations (workspace_id)`);
    // The authorization server's records (oidc-provider's adapter): keyed by the SHA-256 of their id, which for
    // codes, refresh tokens and sessions is the secret itself.
    await q.query(`CREATE TABLE oauth_artifacts (
      kind varchar(48) NOT NULL,
      id_hash char(64) NOT NULL,
      payload jsonb NOT NULL,
      grant_id varchar(128),
      uid varchar(128),
      expires_at timestamptz,
      consumed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (kind, id_hash))`);
    await q.query(`CREATE INDEX ix_oauth_artifacts_grant ON oauth_artifacts (grant_id) WHERE grant_id IS NOT NULL`);
    await q.query(`CREATE INDEX ix_oauth_artifacts_uid ON oauth_artifacts (kind, uid) WHERE uid IS NOT NULL`);
    await q.query(`CREATE INDEX ix_oauth_artifacts_expires ON oauth_artifacts (expires_at)`);
    await q.query(
      `ALTER TABLE oauth_tokens ADD COLUMN client_id varchar(64), ADD COLUMN grant_id varchar(128),
         ADD COLUMN workspace_id uuid, ADD COLUMN app_installation_id uuid,
         ADD COLUMN principal_kind varchar(16) NOT NULL DEFAULT 'oauth', ADD COLUMN payload jsonb`,
    );
    await q.query(`CREATE INDEX ix_oauth_tokens_grant ON oauth_tokens (grant_id) WHERE grant_id IS NOT NULL`);
    // Secrets every instance shares (the key that signs the sign-in cookies and the CSRF tokens): made once.
    await q.query(`CREATE TABLE oauth_server_secrets (
      name varchar(32) PRIMARY KEY,
      value text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now())`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE oauth_server_secrets`);
    await q.query(`DROP INDEX ix_oauth_tokens_grant`);
    await q.query(
      `ALTER TABLE oauth_tokens DROP COLUMN client_id, DROP COLUMN grant_id, DROP COLUMN workspace_id,
         DROP COLUMN app_installation_id, DROP COLUMN principal_kind, DROP COLUMN payload`,
    );
    await q.query(`DROP TABLE oauth_artifacts`);
    await q.query(`DROP TABLE app_installations`);
    await q.query(`DROP TABLE apps`);
    await q.query(`ALTER TABLE users DROP COLUMN password_hash, DROP COLUMN password_updated_at, DROP COLUMN is_bot`);
  }
}
