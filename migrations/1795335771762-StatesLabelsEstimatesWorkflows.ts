import { MigrationInterface, QueryRunner } from 'typeorm';

/** Labels (project and workspace level), estimates and their points, workflows with their states and transitions. */
export class StatesLabelsEstimatesWorkflows1795335771762 implements MigrationInterface {
  name = 'StatesLabelsEstimatesWorkflows1795335771762';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "labels" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid, "name" character varying(255) NOT NULL, "description" text NOT NULL DEFAULT '', "color" character varying(255), "sort_order" double precision NOT NULL, "parent_id" uuid, "external_id" character varying(255), "external_source" character varying(255), "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_c0c4e97f76f1f3a268c7a70b925" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_labels_parent" ON "labels"  ("parent_id")`);
    await queryRunner.query(
      `CREATE INDEX "ix_labels_created" ON "labels"  ("workspace_id", "project_id", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_labels_list" ON "labels"  ("workspace_id", "project_id", "sort_order", "id")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_labels_workspace_name" ON "labels"  ("workspace_id", "name") WHERE "deleted_at" IS NULL AND "project_id" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_labels_project_name" ON "labels"  ("project_id", "name") WHERE "deleted_at" IS NULL AND "project_id" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "estimates" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "name" character varying(255) NOT NULL, "description" text NOT NULL DEFAULT '', "type" character varying(16) NOT NULL DEFAULT 'categories', "is_active" boolean NOT NULL DEFAULT false, "last_used" boolean NOT NULL DEFAULT false, "external_id" character varying(255), "external_source" character varying(255), "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_447af75b2f6025adf7f80703810" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_estimates_created" ON "estimates"  ("project_id", "created_at", "id")`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_estimates_name" ON "estimates"  ("project_id", "name") WHERE "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_estimates_active" ON "estimates"  ("project_id") WHERE "is_active" AND "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "estimate_points" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "estimate_id" uuid NOT NULL, "key" integer NOT NULL, "value" character varying(255) NOT NULL, "description" text NOT NULL DEFAULT '', "external_id" character varying(255), "external_source" character varying(255), "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_af783b2f9d7261bbc74bf4b076e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_estimate_points_created" ON "estimate_points"  ("estimate_id", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_estimate_points_list" ON "estimate_points"  ("estimate_id", "key", "id")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_estimate_points_value" ON "estimate_points"  ("estimate_id", "value") WHERE "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "workflows" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "name" character varying(255) NOT NULL, "description" text NOT NULL DEFAULT '', "is_active" boolean NOT NULL DEFAULT false, "is_default" boolean NOT NULL DEFAULT false, "work_item_type_ids" uuid array NOT NULL, "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_5b5757cc1cd86268019fef52e0c" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_workflows_created" ON "workflows"  ("project_id", "created_at", "id")`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_workflows_default" ON "workflows"  ("project_id") WHERE "is_default" AND "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_workflows_active" ON "workflows"  ("project_id") WHERE "is_active" AND "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_workflows_name" ON "workflows"  ("project_id", "name") WHERE "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "workflow_states" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "workflow_id" uuid NOT NULL, "state_id" uuid NOT NULL, "allow_issue_creation" boolean NOT NULL DEFAULT true, "is_default" boolean NOT NULL DEFAULT false, "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_d495dad7ebe116fb8f989f1e144" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_workflow_states_state" ON "workflow_states"  ("state_id")`);
    await queryRunner.query(
      `CREATE INDEX "ix_workflow_states_created" ON "workflow_states"  ("workflow_id", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_workflow_states_default" ON "workflow_states"  ("workflow_id") WHERE "is_default" AND "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_workflow_states_state" ON "workflow_states"  ("workflow_id", "state_id") WHERE "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "workflow_state_transitions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "workflow_id" uuid NOT NULL, "workflow_state_id" uuid NOT NULL, "transition_state_id" uuid NOT NULL, "rejection_state_id" uuid, "required_approvals" integer NOT NULL DEFAULT '0', "member_ids" uuid array NOT NULL, "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_e79d6964859e69a2111a773e7d0" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_workflow_transitions_target" ON "workflow_state_transitions"  ("transition_state_id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_workflow_transitions_created" ON "workflow_state_transitions"  ("workflow_id", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_workflow_transitions_pair" ON "workflow_state_transitions"  ("workflow_state_id", "transition_state_id") WHERE "deleted_at" IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_workflow_transitions_pair"`);
    await queryRunner.query(`DROP INDEX "public"."ix_workflow_transitions_created"`);
    await queryRunner.query(`DROP INDEX "public"."ix_workflow_transitions_target"`);
    await queryRunner.query(`DROP TABLE "workflow_state_transitions"`);
    await queryRunner.query(`DROP INDEX "public"."uq_workflow_states_state"`);
    await queryRunner.query(`DROP INDEX "public"."uq_workflow_states_default"`);
    await queryRunner.query(`DROP INDEX "public"."ix_workflow_states_created"`);
    await queryRunner.query(`DROP INDEX "public"."ix_workflow_states_state"`);
    await queryRunner.query(`DROP TABLE "workflow_states"`);
    await queryRunner.query(`DROP INDEX "public"."uq_workflows_name"`);
    await queryRunner.query(`DROP INDEX "public"."uq_workflows_active"`);
    await queryRunner.query(`DROP INDEX "public"."uq_workflows_default"`);
    await queryRunner.query(`DROP INDEX "public"."ix_workflows_created"`);
    await queryRunner.query(`DROP TABLE "workflows"`);
    await queryRunner.query(`DROP INDEX "public"."uq_estimate_points_value"`);
    await queryRunner.query(`DROP INDEX "public"."ix_estimate_points_list"`);
    await queryRunner.query(`DROP INDEX "public"."ix_estimate_points_created"`);
    await queryRunner.query(`DROP TABLE "estimate_points"`);
    await queryRunner.query(`DROP INDEX "public"."uq_estimates_active"`);
    await queryRunner.query(`DROP INDEX "public"."uq_estimates_name"`);
    await queryRunner.query(`DROP INDEX "public"."ix_estimates_created"`);
    await queryRunner.query(`DROP TABLE "estimates"`);
    await queryRunner.query(`DROP INDEX "public"."uq_labels_project_name"`);
    await queryRunner.query(`DROP INDEX "public"."uq_labels_workspace_name"`);
    await queryRunner.query(`DROP INDEX "public"."ix_labels_list"`);
    await queryRunner.query(`DROP INDEX "public"."ix_labels_created"`);
    await queryRunner.query(`DROP INDEX "public"."ix_labels_parent"`);
    await queryRunner.query(`DROP TABLE "labels"`);
  }
}
