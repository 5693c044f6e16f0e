import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every change of what a credential resolves to (AuthRepository: the credential, its user, the workspace and
 * membership, the project and project membership) notifies `wt_auth_changed` when it commits, whoever makes it,
 * so every instance's AuthCache forgets what it resolved. A statement trigger: one notification per statement
 * at most (PostgreSQL also folds identical notifications of a transaction into one). On `projects` only the
 * columns the resolution reads: taking a work item number updates `last_sequence_id` on every create.
 */
const TABLES: Array<{ table: string; on: string }> = [
  { table: 'api_keys', on: 'INSERT OR UPDATE OR DELETE' },
  { table: 'oauth_tokens', on: 'INSERT OR UPDATE OR DELETE' },
  { table: 'users', on: 'INSERT OR UPDATE OR DELETE' },
  { table: 'workspaces', on: 'INSERT OR UPDATE OR DELETE' },
  { table: 'workspace_members', on: 'INSERT OR UPDATE OR DELETE' },
  {
    table: 'projects',
    on: 'INSERT OR UPDATE OF workspace_id, identifier, name, default_assignee_id, deleted_at OR DELETE',
  },
  { table: 'project_members', on: 'INSERT OR UPDATE OR DELETE' },
];

export class AuthChangeNotify1795366000000 implements MigrationInterface {
  name = 'AuthChangeNotify1795366000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION wt_notify_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('wt_auth_changed', '');
        RETURN NULL;
      END $$`);
    for (const { table, on } of TABLES) {
      await q.query(
        `CREATE TRIGGER trg_${table}_auth_changed AFTER ${on} ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION wt_notify_auth_changed()`,
      );
      await q.query(
        `CREATE TRIGGER trg_${table}_auth_truncated AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION wt_notify_auth_changed()`,
      );
    }
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const { table } of TABLES) {
      await q.query(`DROP TRIGGER trg_${table}_auth_truncated ON ${table}`);
      await q.query(`DROP TRIGGER trg_${table}_auth_changed ON ${table}`);
    }
    await q.query(`DROP FUNCTION wt_notify_auth_changed()`);
  }
}
