import { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkItemTypesAndProperties1795335818299 implements MigrationInterface {
  name = 'WorkItemTypesAndProperties1795335818299';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "work_item_types" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid, "name" character varying(255) NOT NULL, "description" text NOT NULL DEFAULT '', "is_active" boolean NOT NULL DEFAULT true, "is_default" boolean NOT NULL DEFAULT false, "is_epic" boolean NOT NULL DEFAULT false, "level" integer NOT NULL DEFAULT '0', "logo_props" jsonb NOT NULL DEFAULT '{}', "external_id" character varying(255), "external_source" character varying(255), "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_644775dc1ff27875b5c738198cd" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_wit_owner" ON "work_item_types"  ("workspace_id", "project_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_wit_workspace_external" ON "work_item_types"  ("workspace_id", "external_source", "external_id") WHERE "external_id" IS NOT NULL AND "deleted_at" IS NULL AND "project_id" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_wit_project_external" ON "work_item_types"  ("project_id", "external_source", "external_id") WHERE "external_id" IS NOT NULL AND "deleted_at" IS NULL AND "project_id" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_wit_workspace_default" ON "work_item_types"  ("workspace_id") WHERE "is_default" AND "deleted_at" IS NULL AND "project_id" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_wit_project_default" ON "work_item_types"  ("project_id") WHERE "is_default" AND "deleted_at" IS NULL AND "project_id" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "project_work_item_types" ("project_id" uuid NOT NULL, "type_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_66beac1196506d652c01ff8850b" PRIMARY KEY ("project_id", "type_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_pwit_type" ON "project_work_item_types"  ("type_id") `);
    await queryRunner.query(
      `CREATE TABLE "work_item_type_properties" ("type_id" uuid NOT NULL, "property_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "sort_order" double precision NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_89c50a0c0e2858c73862fbbf7b4" PRIMARY KEY ("type_id", "property_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_witp_order" ON "work_item_type_properties"  ("type_id", "sort_order") `);
    await queryRunner.query(`CREATE INDEX "ix_witp_property" ON "work_item_type_properties"  ("property_id") `);
    await queryRunner.query(
      `CREATE TABLE "work_item_properties" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid, "name" character varying(255) NOT NULL, "display_name" character varying(255) NOT NULL, "description" text NOT NULL DEFAULT '', "property_type" character varying(16) NOT NULL, "relation_type" character varying(16), "is_multi" boolean NOT NULL DEFAULT false, "is_required" boolean NOT NULL DEFAULT false, "is_active" boolean NOT NULL DEFAULT true, "default_value" jsonb NOT NULL DEFAULT '[]', "settings" jsonb NOT NULL DEFAULT '{}', "validation_rules" jsonb NOT NULL DEFAULT '{}', "logo_props" jsonb NOT NULL DEFAULT '{}', "external_id" character varying(255), "external_source" character varying(255), "sort_order" double precision NOT NULL, "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_5b183534ae4b87c9661b74bf451" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_wip_owner" ON "work_item_properties"  ("workspace_id", "project_id", "sort_order", "id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_wip_workspace_name" ON "work_item_properties"  ("workspace_id", "name") WHERE "deleted_at" IS NULL AND "project_id" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_wip_project_name" ON "work_item_properties"  ("project_id", "name") WHERE "deleted_at" IS NULL AND "project_id" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "work_item_property_options" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "property_id" uuid NOT NULL, "name" character varying(255) NOT NULL, "description" text NOT NULL DEFAULT '', "is_default" boolean NOT NULL DEFAULT false, "sort_order" double precision NOT NULL, "external_id" character varying(255), "external_source" character varying(255), "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_7d46711c66c3b92f2dc0162bba4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_wipo_order" ON "work_item_property_options"  ("property_id", "sort_order", "id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_wipo_default" ON "work_item_property_options"  ("property_id") WHERE "is_default" AND "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "work_item_property_contexts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "property_id" uuid NOT NULL, "name" character varying(255) NOT NULL, "is_required" boolean NOT NULL DEFAULT false, "is_multi" boolean NOT NULL DEFAULT false, "is_default" boolean NOT NULL DEFAULT false, "default_value" jsonb NOT NULL DEFAULT '[]', "settings" jsonb NOT NULL DEFAULT '{}', "sort_order" double precision NOT NULL, "applies_to_all_projects" boolean NOT NULL DEFAULT false, "applies_to_all_work_item_types" boolean NOT NULL DEFAULT false, "external_id" character varying(255), "external_source" character varying(255), "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_df9b34c9f4c0ea821846266f944" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_wipc_order" ON "work_item_property_contexts"  ("property_id", "sort_order", "id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_wipc_external" ON "work_item_property_contexts"  ("property_id", "external_source", "external_id") WHERE "external_id" IS NOT NULL AND "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_wipc_all_projects" ON "work_item_property_contexts"  ("property_id") WHERE "applies_to_all_projects" AND "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "work_item_property_context_projects" ("context_id" uuid NOT NULL, "project_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, CONSTRAINT "PK_4791896c37563e4020d17de8298" PRIMARY KEY ("context_id", "project_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_wipcp_project" ON "work_item_property_context_projects"  ("project_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "work_item_property_context_types" ("context_id" uuid NOT NULL, "type_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, CONSTRAINT "PK_aa72068c8c7e67bcb3f8b5c0e3b" PRIMARY KEY ("context_id", "type_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_wipct_type" ON "work_item_property_context_types"  ("type_id") `);
    await queryRunner.query(
      `CREATE TABLE "work_item_property_context_options" ("context_id" uuid NOT NULL, "option_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "sort_order" double precision NOT NULL, "is_default" boolean NOT NULL DEFAULT false, CONSTRAINT "PK_bbbe5f203629741e14115dc8c64" PRIMARY KEY ("context_id", "option_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_wipco_option" ON "work_item_property_context_options"  ("option_id") `);
    // Case-insensitive name uniqueness (expression indexes; entities mark them synchronize: false).
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_wit_project_name" ON "work_item_types" ("project_id", lower("name")) WHERE "deleted_at" IS NULL AND "project_id" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_wit_workspace_name" ON "work_item_types" ("workspace_id", lower("name")) WHERE "deleted_at" IS NULL AND "project_id" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_wipc_name" ON "work_item_property_contexts" ("property_id", lower("name")) WHERE "deleted_at" IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_wipc_name"`);
    await queryRunner.query(`DROP INDEX "public"."uq_wit_workspace_name"`);
    await queryRunner.query(`DROP INDEX "public"."uq_wit_project_name"`);
    await queryRunner.query(`DROP INDEX "public"."ix_wipco_option"`);
    await queryRunner.query(`DROP TABLE "work_item_property_context_options"`);
    await queryRunner.query(`DROP INDEX "public"."ix_wipct_type"`);
    await queryRunner.query(`DROP TABLE "work_item_property_context_types"`);
    await queryRunner.query(`DROP INDEX "public"."ix_wipcp_project"`);
    await queryRunner.query(`DROP TABLE "work_item_property_context_projects"`);
    await queryRunner.query(`DROP INDEX "public"."uq_wipc_all_projects"`);
    await queryRunner.query(`DROP INDEX "public"."uq_wipc_external"`);
    await queryRunner.query(`DROP INDEX "public"."ix_wipc_order"`);
    await queryRunner.query(`DROP TABLE "work_item_property_contexts"`);
    await queryRunner.query(`DROP INDEX "public"."uq_wipo_default"`);
    await queryRunner.query(`DROP INDEX "public"."ix_wipo_order"`);
    await queryRunner.query(`DROP TABLE "work_item_property_options"`);
    await queryRunner.query(`DROP INDEX "public"."uq_wip_project_name"`);
    await queryRunner.query(`DROP INDEX "public"."uq_wip_workspace_name"`);
    await queryRunner.query(`DROP INDEX "public"."ix_wip_owner"`);
    await queryRunner.query(`DROP TABLE "work_item_properties"`);
    await queryRunner.query(`DROP INDEX "public"."ix_witp_property"`);
    await queryRunner.query(`DROP INDEX "public"."ix_witp_order"`);
    await queryRunner.query(`DROP TABLE "work_item_type_properties"`);
    await queryRunner.query(`DROP INDEX "public"."ix_pwit_type"`);
    await queryRunner.query(`DROP TABLE "project_work_item_types"`);
    await queryRunner.query(`DROP INDEX "public"."uq_wit_project_default"`);
    await queryRunner.query(`DROP INDEX "public"."uq_wit_workspace_default"`);
    await queryRunner.query(`DROP INDEX "public"."uq_wit_project_external"`);
    await queryRunner.query(`DROP INDEX "public"."uq_wit_workspace_external"`);
    await queryRunner.query(`DROP INDEX "public"."ix_wit_owner"`);
    await queryRunner.query(`DROP TABLE "work_item_types"`);
  }
}
