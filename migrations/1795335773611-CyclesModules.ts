import { MigrationInterface, QueryRunner } from 'typeorm';

export class CyclesModules1795335773611 implements MigrationInterface {
  name = 'CyclesModules1795335773611';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "cycles" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "name" character varying(255) NOT NULL, "description" text NOT NULL DEFAULT '', "start_date" TIMESTAMP WITH TIME ZONE, "end_date" TIMESTAMP WITH TIME ZONE, "timezone" character varying(64) NOT NULL DEFAULT 'UTC', "owned_by_id" uuid NOT NULL, "sort_order" double precision NOT NULL, "logo_props" jsonb NOT NULL DEFAULT '{}', "external_id" character varying(255), "external_source" character varying(255), "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_52e5eeb9c7c6e4ad1aed657967a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_cycles_sort" ON "cycles"  ("project_id", "sort_order", "id") `);
    await queryRunner.query(`CREATE INDEX "ix_cycles_created" ON "cycles"  ("project_id", "created_at", "id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_cycles_name" ON "cycles"  ("project_id", "name") WHERE "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "modules" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "name" character varying(255) NOT NULL, "description" text NOT NULL DEFAULT '', "status" character varying(16) NOT NULL DEFAULT 'planned', "start_date" date, "target_date" date, "lead_id" uuid, "sort_order" double precision NOT NULL, "logo_props" jsonb NOT NULL DEFAULT '{}', "external_id" character varying(255), "external_source" character varying(255), "archived_at" TIMESTAMP WITH TIME ZONE, "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_7dbefd488bd96c5bf31f0ce0c95" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_modules_created" ON "modules"  ("project_id", "created_at", "id") `);
    await queryRunner.query(`CREATE INDEX "ix_modules_sort" ON "modules"  ("project_id", "sort_order", "id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_modules_name" ON "modules"  ("project_id", "name") WHERE "deleted_at" IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_modules_name"`);
    await queryRunner.query(`DROP INDEX "public"."ix_modules_sort"`);
    await queryRunner.query(`DROP INDEX "public"."ix_modules_created"`);
    await queryRunner.query(`DROP TABLE "modules"`);
    await queryRunner.query(`DROP INDEX "public"."uq_cycles_name"`);
    await queryRunner.query(`DROP INDEX "public"."ix_cycles_created"`);
    await queryRunner.query(`DROP INDEX "public"."ix_cycles_sort"`);
    await queryRunner.query(`DROP TABLE "cycles"`);
  }
}
