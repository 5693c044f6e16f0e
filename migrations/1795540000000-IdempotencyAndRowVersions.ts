import { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables whose rows carry a version: the resources with a single-record GET, PATCH and DELETE. */
export const VERSIONED_TABLES = [
  'work_items',
  'projects',
  'states',
  'labels',
  'cycles',
  'modules',
  'work_item_comments',
  'estimates',
  'estimate_points',
  'workflows',
  'workflow_states',
  'workflow_state_transitions',
  'work_item_types',
  'work_item_properties',
  'work_item_property_options',
  'work_item_property_contexts',
];

/**
 * Issue 23. `idempotency_keys`: the stored response of a POST sent with an `Idempotency-Key`, per credential and
 * key, written in the transaction of the change and kept 24 hours. `version` on every versioned table: 1 at
 * insert, bumped by a trigger on every UPDATE, so it changes whatever path writes the row; ETags carry it and
 * `If-Match` is compared against it inside an UPDATE. Adding a column with a constant default rewrites nothing.
 */
export class IdempotencyAndRowVersions1795540000000 implements MigrationInterface {
  name = 'IdempotencyAndRowVersions1795540000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE idempotency_keys (
      credential varchar(100) NOT NULL,
      key varchar(255) NOT NULL,
      fingerprint char(64) NOT NULL,
      status_code smallint NOT NULL,
      body text,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      CONSTRAINT pk_idempotency_keys PRIMARY KEY (credential, key)
    )`);
    await q.query(`CREATE INDEX ix_idempotency_keys_expires ON idempotency_keys (expires_at)`);
    await q.query(`CREATE FUNCTION wt_bump_row_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.version := OLD.version + 1;
        RETURN NEW;
      END $$`);
    for (const t of VERSIONED_TABLES) await addRowVersion(q, t);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const t of VERSIONED_TABLES) await dropRowVersion(q, t);
    await q.query(`DROP FUNCTION wt_bump_row_version()`);
    await q.query(`DROP TABLE idempotency_keys`);
  }
}

/** A `version` column (1 at insert) and the trigger that bumps it on every UPDATE; later migrations reuse it. */
export async function addRowVersion(q: QueryRunner, table: string): Promise<void> {
  await q.query(`ALTER TABLE ${table} ADD COLUMN version integer NOT NULL DEFAULT 1`);
  await q.query(
    `CREATE TRIGGER trg_${table}_version BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION wt_bump_row_version()`,
  );
}

export async function dropRowVersion(q: QueryRunner, table: string): Promise<void> {
  await q.query(`DROP TRIGGER trg_${table}_version ON ${table}`);
  await q.query(`ALTER TABLE ${table} DROP COLUMN version`);
}
