import { MigrationInterface, QueryRunner } from 'typeorm';

export class Foundation1795323810286 implements MigrationInterface {
  name = 'Foundation1795323810286';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "users" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "email" character varying(320) NOT NULL, "display_name" character varying(255) NOT NULL, "first_name" character varying(255) NOT NULL DEFAULT '', "last_name" character varying(255) NOT NULL DEFAULT '', "avatar_url" text, "is_active" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_users_email" ON "users"  ("email") WHERE "deleted_at" IS NULL`);
    await queryRunner.query(
      `CREATE TABLE "workspaces" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "slug" character varying(48) NOT NULL, "name" character varying(255) NOT NULL, "owner_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_098656ae401f3e1a4586f47fd8e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_workspaces_slug" ON "workspaces"  ("slug") WHERE "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "workspace_members" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "member_id" uuid NOT NULL, "role" character varying(64) NOT NULL, "is_active" boolean NOT NULL DEFAULT true, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_22ab43ac5865cd62769121d2bc4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_workspace_members_user" ON "workspace_members"  ("member_id") `);
    await queryRunner.query(
      `CREATE INDEX "ix_workspace_members_list" ON "workspace_members"  ("workspace_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_workspace_members_member" ON "workspace_members"  ("workspace_id", "member_id") WHERE "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "project_members" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "member_id" uuid NOT NULL, "role" character varying(64) NOT NULL, "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_0b2f46f804be4aea9234c78bcc9" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_project_members_user" ON "project_members"  ("workspace_id", "member_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_project_members_list" ON "project_members"  ("project_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_project_members_member" ON "project_members"  ("project_id", "member_id") WHERE "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "api_keys" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "user_id" uuid NOT NULL, "key_hash" character(64) NOT NULL, "key_prefix" character varying(16) NOT NULL, "label" character varying(255) NOT NULL DEFAULT '', "expires_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_api_keys_user" ON "api_keys"  ("user_id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_api_keys_hash" ON "api_keys"  ("key_hash") `);
    await queryRunner.query(
      `CREATE TABLE "oauth_tokens" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "user_id" uuid NOT NULL, "token_hash" character(64) NOT NULL, "scopes" text array NOT NULL, "client_name" character varying(255) NOT NULL DEFAULT '', "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "revoked_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_71c8b8060826696206f973554fd" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_oauth_tokens_user" ON "oauth_tokens"  ("user_id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_oauth_tokens_hash" ON "oauth_tokens"  ("token_hash") `);
    await queryRunner.query(
      `CREATE TABLE "projects" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "name" character varying(255) NOT NULL, "identifier" character varying(12) NOT NULL, "description" text NOT NULL DEFAULT '', "default_assignee_id" uuid, "project_lead_id" uuid, "logo_props" jsonb NOT NULL DEFAULT '{}', "last_sequence_id" integer NOT NULL DEFAULT '0', "external_id" character varying(255), "external_source" character varying(255), "archived_at" TIMESTAMP WITH TIME ZONE, "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_6271df0a7aed1d6c0691ce6ac50" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_projects_list" ON "projects"  ("workspace_id", "created_at", "id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_projects_name" ON "projects"  ("workspace_id", "name") WHERE "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_projects_identifier" ON "projects"  ("workspace_id", "identifier") WHERE "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "states" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "name" character varying(255) NOT NULL, "description" text NOT NULL DEFAULT '', "color" character varying(255) NOT NULL, "group" character varying(16) NOT NULL DEFAULT 'backlog', "sequence" double precision NOT NULL, "is_default" boolean NOT NULL DEFAULT false, "is_triage" boolean NOT NULL DEFAULT false, "external_id" character varying(255), "external_source" character varying(255), "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_09ab30ca0975c02656483265f4f" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_states_created" ON "states"  ("project_id", "created_at", "id") `);
    await queryRunner.query(`CREATE INDEX "ix_states_list" ON "states"  ("project_id", "sequence", "id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_states_default" ON "states"  ("project_id") WHERE "is_default" AND "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_states_name" ON "states"  ("project_id", "name") WHERE "deleted_at" IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_states_name"`);
    await queryRunner.query(`DROP INDEX "public"."uq_states_default"`);
    await queryRunner.query(`DROP INDEX "public"."ix_states_list"`);
    await queryRunner.query(`DROP INDEX "public"."ix_states_created"`);
    await queryRunner.query(`DROP TABLE "states"`);
    await queryRunner.query(`DROP INDEX "public"."uq_projects_identifier"`);
    await queryRunner.query(`DROP INDEX "public"."uq_projects_name"`);
    await queryRunner.query(`DROP INDEX "public"."ix_projects_list"`);
    await queryRunner.query(`DROP TABLE "projects"`);
    await queryRunner.query(`DROP INDEX "public"."uq_oauth_tokens_hash"`);
    await queryRunner.query(`DROP INDEX "public"."ix_oauth_tokens_user"`);
    await queryRunner.query(`DROP TABLE "oauth_tokens"`);
    await queryRunner.query(`DROP INDEX "public"."uq_api_keys_hash"`);
    await queryRunner.query(`DROP INDEX "public"."ix_api_keys_user"`);
    await queryRunner.query(`DROP TABLE "api_keys"`);
    await queryRunner.query(`DROP INDEX "public"."uq_project_members_member"`);
    await queryRunner.query(`DROP INDEX "public"."ix_project_members_list"`);
    await queryRunner.query(`DROP INDEX "public"."ix_project_members_user"`);
    await queryRunner.query(`DROP TABLE "project_members"`);
    await queryRunner.query(`DROP INDEX "public"."uq_workspace_members_member"`);
    await queryRunner.query(`DROP INDEX "public"."ix_workspace_members_list"`);
    await queryRunner.query(`DROP INDEX "public"."ix_workspace_members_user"`);
    await queryRunner.query(`DROP TABLE "workspace_members"`);
    await queryRunner.query(`DROP INDEX "public"."uq_workspaces_slug"`);
    await queryRunner.query(`DROP TABLE "workspaces"`);
    await queryRunner.query(`DROP INDEX "public"."uq_users_email"`);
    await queryRunner.query(`DROP TABLE "users"`);
  }
}
