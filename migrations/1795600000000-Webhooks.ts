import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (issue 21): the registrations, the transactional outbox of events (written in the transaction of the
 * change it reports), one delivery per event and webhook (unique, so a dispatch that runs twice adds nothing), and
 * one log row per attempt. Every table is a tenant table: workspace_id first in the primary key and every unique
 * index. The job engine (pg-boss) keeps its own schema `pgboss`: installed here, in this migration's transaction,
 * so a start finds it ready (and a template database carries it); pg-boss migrates it to a newer version at start.
 */
export class Webhooks1795600000000 implements MigrationInterface {
  name = 'Webhooks1795600000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE webhooks (
      workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      name varchar(255),
      url varchar(2048) NOT NULL,
      is_active boolean NOT NULL DEFAULT true,
      content_type varchar(64) NOT NULL DEFAULT 'application/json',
      scopes text[] NOT NULL,
      version varchar(8) NOT NULL DEFAULT 'v2',
      secret_key varchar(128) NOT NULL,
      failing_since timestamptz,
      disabled_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      created_by_id uuid,
      PRIMARY KEY (workspace_id, id))`);
    await q.query(`CREATE INDEX ix_webhooks_list ON webhooks (workspace_id, created_at, id)`);
    await q.query(`CREATE INDEX ix_webhooks_active ON webhooks (workspace_id) WHERE is_active`);

    await q.query(`CREATE TABLE webhook_events (
      workspace_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      event varchar(64) NOT NULL,
      entity_type varchar(32) NOT NULL,
      entity_id uuid NOT NULL,
      project_id uuid,
      actor_id uuid,
      data jsonb NOT NULL,
      previous_attributes jsonb,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      dispatched_at timestamptz,
      PRIMARY KEY (workspace_id, id))`);
    await q.query(
      `CREATE INDEX ix_webhook_events_undispatched ON webhook_events (created_at) WHERE dispatched_at IS NULL`,
    );
    await q.query(`CREATE INDEX ix_webhook_events_created ON webhook_events (created_at)`);

    await q.query(`CREATE TABLE webhook_deliveries (
      workspace_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      webhook_id uuid NOT NULL,
      event_id uuid NOT NULL,
      status varchar(16) NOT NULL DEFAULT 'pending',
      attempts int NOT NULL DEFAULT 0,
      first_attempt_at timestamptz,
      next_attempt_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (workspace_id, id),
      FOREIGN KEY (workspace_id, webhook_id) REFERENCES webhooks (workspace_id, id) ON DELETE CASCADE,
      FOREIGN KEY (workspace_id, event_id) REFERENCES webhook_events (workspace_id, id) ON DELETE CASCADE)`);
    await q.query(
      `CREATE UNIQUE INDEX uq_webhook_deliveries_event ON webhook_deliveries (workspace_id, event_id, webhook_id)`,
    );
    await q.query(
      `CREATE INDEX ix_webhook_deliveries_webhook ON webhook_deliveries (workspace_id, webhook_id, status)`,
    );
    await q.query(
      `CREATE INDEX ix_webhook_deliveries_pending ON webhook_deliveries (created_at) WHERE status = 'pending'`,
    );
    await q.query(
      `CREATE INDEX ix_webhook_deliveries_done ON webhook_deliveries (created_at) WHERE status <> 'pending'`,
    );

    await q.query(`CREATE TABLE webhook_logs (
      workspace_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      webhook_id uuid NOT NULL,
      delivery_id uuid NOT NULL,
      event_id uuid NOT NULL,
      event_type varchar(64) NOT NULL,
      attempt int NOT NULL,
      request_method varchar(8) NOT NULL DEFAULT 'POST',
      request_headers text,
      request_body text,
      response_status int,
      response_headers text,
      response_body text,
      status_text varchar(32) NOT NULL,
      error_message text NOT NULL DEFAULT '',
      duration_ms int,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (workspace_id, id),
      FOREIGN KEY (workspace_id, webhook_id) REFERENCES webhooks (workspace_id, id) ON DELETE CASCADE)`);
    await q.query(`CREATE INDEX ix_webhook_logs_list ON webhook_logs (workspace_id, webhook_id, created_at, id)`);
    await q.query(`CREATE INDEX ix_webhook_logs_created ON webhook_logs (created_at)`);
    await installJobEngine(q);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_logs`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhook_events`);
    await q.query(`DROP TABLE webhooks`);
    await q.query(`DROP SCHEMA IF EXISTS pgboss CASCADE`);
  }
}

/**
 * pg-boss's own installation script, without its BEGIN and COMMIT (the migration runs in a transaction). Should a
 * later pg-boss word its script otherwise, nothing is installed here and pg-boss installs its schema at start.
 */
async function installJobEngine(q: QueryRunner): Promise<void> {
  // Loaded here only: the admin CLI reads every migration at start and should not load the job engine for that.
  const { getConstructionPlans } = await import('pg-boss');
  const plan = getConstructionPlans('pgboss').trim();
  const body = /^BEGIN;([\s\S]*)COMMIT;$/.exec(plan)?.[1];
  if (body && !/\b(BEGIN|COMMIT);/.test(body)) await q.query(body);
}
