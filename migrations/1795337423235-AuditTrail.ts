import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Audit trail (issue 6, docs/audit.md):
 * - `audit_logs_sequence` (BEFORE INSERT): takes a transaction-scoped advisory lock on the entry's workspace,
 *   then assigns sequence_number (nextval), created_at (strictly increasing per workspace) and a time-ordered
 *   id. The lock is held until the writing transaction ends, so within a workspace the three are increasing
 *   in commit order and a keyset walk over (created_at, id) never skips an entry that commits late.
 * - `audit_logs_append_only`: UPDATE, DELETE and TRUNCATE of audit_logs fail.
 * - one index per list filter (entity), the trigram index for `search` (here, synchronize: false),
 *   and `audit_aggregates`, the counters of aggregated failures.
 */
export class AuditTrail1795337423235 implements MigrationInterface {
  name = 'AuditTrail1795337423235';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit_aggregates" ("workspace_id" uuid NOT NULL, "fingerprint" character(64) NOT NULL, "window_start" TIMESTAMP WITH TIME ZONE NOT NULL, "event_id" uuid NOT NULL, "occurrences" integer NOT NULL DEFAULT '1', "last_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_9673385f2b92d53261a6b7714a5" PRIMARY KEY ("workspace_id", "fingerprint", "window_start"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_audit_aggregates_event" ON "audit_aggregates"  ("workspace_id", "event_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_audit_logs_ip" ON "audit_logs"  ("workspace_id", "ip_address", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_audit_logs_target_id" ON "audit_logs"  ("workspace_id", "target_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_audit_logs_target_type" ON "audit_logs"  ("workspace_id", "target_type", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_audit_logs_outcome" ON "audit_logs"  ("workspace_id", "outcome", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_audit_logs_category" ON "audit_logs"  ("workspace_id", "category", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_audit_logs_event_name" ON "audit_logs"  ("workspace_id", "event_name", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_audit_logs_actor" ON "audit_logs"  ("workspace_id", "actor_id", "created_at", "id") `,
    );
    await queryRunner.query(`CREATE INDEX "ix_audit_logs_id" ON "audit_logs"  ("workspace_id", "id") `);

    // search: case-insensitive substring over event name, actor name, actor email, target name (ILIKE '%x%').
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await queryRunner.query(
      `CREATE INDEX "ix_audit_logs_search" ON "audit_logs" USING gin ("event_name" gin_trgm_ops, "actor_display_name" gin_trgm_ops, "actor_email" gin_trgm_ops, "target_display_name" gin_trgm_ops)`,
    );

    // A UUIDv7 layout: 48-bit Unix milliseconds, version 7, the microseconds within the millisecond
    // (12 bits), variant 10, then the sequence number (62 bits). Byte order = (created_at, sequence_number).
    await queryRunner.query(`CREATE FUNCTION audit_log_id(ts timestamptz, seq bigint) RETURNS uuid LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT (lpad(to_hex(us / 1000), 12, '0') || '7' || lpad(to_hex((us % 1000)::int), 3, '0')
          || to_hex(8 + ((seq >> 60) & 3)::int) || lpad(to_hex(seq & 1152921504606846975), 15, '0'))::uuid
    FROM (SELECT (extract(epoch FROM ts) * 1000000)::bigint AS us) t
$fn$`);
    await queryRunner.query(`CREATE FUNCTION audit_logs_sequence() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  last_at timestamptz;
BEGIN
  -- One writer per workspace from here until its transaction ends (commit or rollback).
  PERFORM pg_advisory_xact_lock(1096107081, hashtext(NEW.workspace_id::text));
  SELECT max(created_at) INTO last_at FROM audit_logs WHERE workspace_id = NEW.workspace_id;
  NEW.sequence_number := nextval('audit_logs_sequence_number_seq');
  NEW.created_at := greatest(clock_timestamp(), last_at + interval '1 microsecond');
  NEW.id := audit_log_id(NEW.created_at, NEW.sequence_number);
  RETURN NEW;
END
$fn$`);
    await queryRunner.query(
      `CREATE TRIGGER audit_logs_sequence BEFORE INSERT ON audit_logs FOR EACH ROW EXECUTE FUNCTION audit_logs_sequence()`,
    );
    await queryRunner.query(`CREATE FUNCTION audit_logs_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'audit_logs is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$fn$`);
    await queryRunner.query(
      `CREATE TRIGGER audit_logs_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_logs FOR EACH STATEMENT EXECUTE FUNCTION audit_logs_append_only()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER audit_logs_append_only ON audit_logs`);
    await queryRunner.query(`DROP FUNCTION audit_logs_append_only()`);
    await queryRunner.query(`DROP TRIGGER audit_logs_sequence ON audit_logs`);
    await queryRunner.query(`DROP FUNCTION audit_logs_sequence()`);
    await queryRunner.query(`DROP FUNCTION audit_log_id(timestamptz, bigint)`);
    await queryRunner.query(`DROP INDEX "public"."ix_audit_logs_search"`);
    await queryRunner.query(`DROP INDEX "public"."ix_audit_logs_id"`);
    await queryRunner.query(`DROP INDEX "public"."ix_audit_logs_actor"`);
    await queryRunner.query(`DROP INDEX "public"."ix_audit_logs_event_name"`);
    await queryRunner.query(`DROP INDEX "public"."ix_audit_logs_category"`);
    await queryRunner.query(`DROP INDEX "public"."ix_audit_logs_outcome"`);
    await queryRunner.query(`DROP INDEX "public"."ix_audit_logs_target_type"`);
    await queryRunner.query(`DROP INDEX "public"."ix_audit_logs_target_id"`);
    await queryRunner.query(`DROP INDEX "public"."ix_audit_logs_ip"`);
    await queryRunner.query(`DROP INDEX "public"."uq_audit_aggregates_event"`);
    await queryRunner.query(`DROP TABLE "audit_aggregates"`);
  }
}
