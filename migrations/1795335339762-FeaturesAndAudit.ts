import { MigrationInterface, QueryRunner } from 'typeorm';

export class FeaturesAndAudit1795335339762 implements MigrationInterface {
  name = 'FeaturesAndAudit1795335339762';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "workspace_features" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "is_work_item_types_enabled" boolean NOT NULL DEFAULT false, "work_item_type_default_level" integer NOT NULL DEFAULT '0', "is_workitem_hierarchy_enabled" boolean NOT NULL DEFAULT false, "is_project_grouping_enabled" boolean NOT NULL DEFAULT false, "is_teams_enabled" boolean NOT NULL DEFAULT false, "is_wiki_enabled" boolean NOT NULL DEFAULT false, "is_initiative_enabled" boolean NOT NULL DEFAULT false, "is_customer_enabled" boolean NOT NULL DEFAULT false, "is_release_enabled" boolean NOT NULL DEFAULT false, "is_state_duration_enabled" boolean NOT NULL DEFAULT false, "is_pi_enabled" boolean NOT NULL DEFAULT false, "is_custom_properties_enabled" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6691afc4c3d0a8c7ce270789c85" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_workspace_features_ws" ON "workspace_features"  ("workspace_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "project_features" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "is_workflow_enabled" boolean NOT NULL DEFAULT false, "is_cycles_enabled" boolean NOT NULL DEFAULT true, "is_modules_enabled" boolean NOT NULL DEFAULT true, "is_estimates_enabled" boolean NOT NULL DEFAULT true, "is_automated_cycle_enabled" boolean NOT NULL DEFAULT false, "is_epic_enabled" boolean NOT NULL DEFAULT false, "is_manually_start_end_cycles_enabled" boolean NOT NULL DEFAULT false, "is_milestone_enabled" boolean NOT NULL DEFAULT false, "is_parallel_cycles_enabled" boolean NOT NULL DEFAULT false, "is_project_updates_enabled" boolean NOT NULL DEFAULT false, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_2db649d8e93189cab9b2e53376a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_project_features_project" ON "project_features"  ("project_id") `);
    await queryRunner.query(
      `CREATE TABLE "audit_logs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "event_id" uuid NOT NULL, "sequence_number" BIGSERIAL NOT NULL, "event_name" character varying(128) NOT NULL, "category" character varying(32) NOT NULL, "outcome" character varying(16) NOT NULL, "source" character varying(32) NOT NULL, "actor_type" character varying(32) NOT NULL, "actor_id" uuid, "actor_display_name" character varying(255) NOT NULL DEFAULT '', "actor_email" character varying(320) NOT NULL DEFAULT '', "target_type" character varying(64) NOT NULL DEFAULT '', "target_id" character varying(255) NOT NULL DEFAULT '', "target_display_name" character varying(255) NOT NULL DEFAULT '', "old_value" jsonb, "new_value" jsonb, "reason" text NOT NULL DEFAULT '', "metadata" jsonb NOT NULL DEFAULT '{}', "ip_address" character varying(64), "user_agent" text NOT NULL DEFAULT '', "workspace_id" uuid NOT NULL, "project_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1bb179d048bbc581caa3b013439" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_audit_logs_created" ON "audit_logs"  ("workspace_id", "created_at", "id") `,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_audit_logs_event" ON "audit_logs"  ("event_id") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_audit_logs_event"`);
    await queryRunner.query(`DROP INDEX "public"."ix_audit_logs_created"`);
    await queryRunner.query(`DROP TABLE "audit_logs"`);
    await queryRunner.query(`DROP INDEX "public"."uq_project_features_project"`);
    await queryRunner.query(`DROP TABLE "project_features"`);
    await queryRunner.query(`DROP INDEX "public"."uq_workspace_features_ws"`);
    await queryRunner.query(`DROP TABLE "workspace_features"`);
  }
}
