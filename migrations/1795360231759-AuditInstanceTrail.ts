import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The instance trail (docs/audit.md, "Instance trail"): audit entries that belong to no workspace have
 * `workspace_id` NULL. Today these are the user-level credential events (`api_key.created`, `api_key.revoked`,
 * `token.issued`) of a user who is an active member of no workspace, which before left no entry at all.
 * The workspace API never serves them (it reads `workspace_id = $1`).
 *
 * `audit_logs_sequence` treats the instance trail as one more trail: its own advisory lock and its own
 * strictly increasing created_at, so it keeps the commit-order invariants of a workspace trail. The existing
 * indexes lead with workspace_id and serve `workspace_id IS NULL` like any other value.
 *
 * down: fails while instance entries exist (SET NOT NULL), and the table is append-only by design.
 */
export class AuditInstanceTrail1795360231759 implements MigrationInterface {
  name = 'AuditInstanceTrail1795360231759';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "audit_logs" ALTER COLUMN "workspace_id" DROP NOT NULL`);
    await q.query(`CREATE OR REPLACE FUNCTION audit_logs_sequence() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  last_at timestamptz;
BEGIN
  -- One writer per trail (a workspace, or the instance trail when workspace_id is NULL) from here until its
  -- transaction ends (commit or rollback).
  PERFORM pg_advisory_xact_lock(1096107081, hashtext(coalesce(NEW.workspace_id::text, 'instance')));
  IF NEW.workspace_id IS NULL THEN
    SELECT max(created_at) INTO last_at FROM audit_logs WHERE workspace_id IS NULL;
  ELSE
    SELECT max(created_at) INTO last_at FROM audit_logs WHERE workspace_id = NEW.workspace_id;
  END IF;
  NEW.sequence_number := nextval('audit_logs_sequence_number_seq');
  NEW.created_at := greatest(clock_timestamp(), last_at + interval '1 microsecond');
  NEW.id := audit_log_id(NEW.created_at, NEW.sequence_number);
  RETURN NEW;
END
$fn$`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE OR REPLACE FUNCTION audit_logs_sequence() RETURNS trigger LANGUAGE plpgsql AS $fn$
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
    await q.query(`ALTER TABLE "audit_logs" ALTER COLUMN "workspace_id" SET NOT NULL`);
  }
}
