import { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkItemsComments1795337132188 implements MigrationInterface {
  name = 'WorkItemsComments1795337132188';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "work_items" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "sequence_id" integer NOT NULL, "name" character varying(255) NOT NULL, "description_html" text NOT NULL DEFAULT '', "description_stripped" text NOT NULL DEFAULT '', "priority" character varying(8) NOT NULL DEFAULT 'none', "state_id" uuid NOT NULL, "type_id" uuid, "parent_id" uuid, "estimate_point_id" uuid, "cycle_id" uuid, "start_date" date, "target_date" date, "is_draft" boolean NOT NULL DEFAULT false, "sort_order" double precision NOT NULL DEFAULT '65535', "external_id" character varying(255), "external_source" character varying(255), "custom_values" jsonb NOT NULL DEFAULT '{}', "archived_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "created_by_id" uuid, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_by_id" uuid, "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_afbfa01728533c866eafaf6f160" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_items_estimate" ON "work_items"  ("estimate_point_id") WHERE "estimate_point_id" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_items_target" ON "work_items"  ("project_id", "target_date") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_items_start" ON "work_items"  ("project_id", "start_date") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_items_cycle" ON "work_items"  ("cycle_id") WHERE "deleted_at" IS NULL AND "cycle_id" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_items_parent" ON "work_items"  ("parent_id") WHERE "deleted_at" IS NULL AND "parent_id" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_items_type" ON "work_items"  ("project_id", "type_id") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_items_state" ON "work_items"  ("project_id", "state_id", "created_at", "id") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_items_sort" ON "work_items"  ("project_id", "sort_order", "id") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_items_id" ON "work_items"  ("project_id", "id") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_items_seq" ON "work_items"  ("project_id", "sequence_id", "id") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_items_updated" ON "work_items"  ("project_id", "updated_at", "id") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_items_created" ON "work_items"  ("project_id", "created_at", "id") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_work_items_external" ON "work_items"  ("project_id", "external_source", "external_id") WHERE "deleted_at" IS NULL AND "external_id" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_work_items_sequence" ON "work_items"  ("project_id", "sequence_id") `,
    );
    // Priority ordered by meaning (urgent first), matching PRIORITY_RANK in work-items.repository.ts.
    await queryRunner.query(
      `CREATE INDEX "ix_work_items_priority" ON "work_items" ("project_id", (CASE "priority" WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END), "id") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
    // Rows inserted without a sequence_id (fixtures, imports by SQL) take the next number of their project,
    // exactly as the API does; the API itself always sends one (UPDATE projects ... RETURNING in its transaction).
    await queryRunner.query(`CREATE FUNCTION "work_items_assign_sequence"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.sequence_id IS NULL THEN
    UPDATE projects SET last_sequence_id = last_sequence_id + 1 WHERE id = NEW.project_id RETURNING last_sequence_id INTO NEW.sequence_id;
  END IF;
  RETURN NEW;
END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "trg_work_items_sequence" BEFORE INSERT ON "work_items" FOR EACH ROW WHEN (NEW.sequence_id IS NULL) EXECUTE FUNCTION "work_items_assign_sequence"()`,
    );
    await queryRunner.query(
      `CREATE TABLE "work_item_assignees" ("work_item_id" uuid NOT NULL, "assignee_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_10d606c78193703e61f3700534e" PRIMARY KEY ("work_item_id", "assignee_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_item_assignees_assignee" ON "work_item_assignees"  ("assignee_id", "work_item_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "work_item_labels" ("work_item_id" uuid NOT NULL, "label_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_7074aae12877d30bbcfad890374" PRIMARY KEY ("work_item_id", "label_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_item_labels_label" ON "work_item_labels"  ("label_id", "work_item_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "module_work_items" ("module_id" uuid NOT NULL, "work_item_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_3feb362f04396faa7c429a14c6e" PRIMARY KEY ("module_id", "work_item_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_module_work_items_item" ON "module_work_items"  ("work_item_id", "module_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "work_item_comments" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "project_id" uuid NOT NULL, "work_item_id" uuid NOT NULL, "comment_html" text NOT NULL, "comment_stripped" text NOT NULL DEFAULT '', "access" character varying(8) NOT NULL DEFAULT 'INTERNAL', "actor_id" uuid, "edited_at" TIMESTAMP WITH TIME ZONE, "external_id" character varying(255), "external_source" character varying(255), "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_ab7717036730e7a6f0338eef7be" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_item_comments_id" ON "work_item_comments"  ("work_item_id", "id") WHERE "deleted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_work_item_comments_list" ON "work_item_comments"  ("work_item_id", "created_at", "id") WHERE "deleted_at" IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_work_item_comments_list"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_item_comments_id"`);
    await queryRunner.query(`DROP TABLE "work_item_comments"`);
    await queryRunner.query(`DROP INDEX "public"."ix_module_work_items_item"`);
    await queryRunner.query(`DROP TABLE "module_work_items"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_item_labels_label"`);
    await queryRunner.query(`DROP TABLE "work_item_labels"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_item_assignees_assignee"`);
    await queryRunner.query(`DROP TABLE "work_item_assignees"`);
    await queryRunner.query(`DROP INDEX "public"."uq_work_items_sequence"`);
    await queryRunner.query(`DROP INDEX "public"."uq_work_items_external"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_items_created"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_items_updated"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_items_seq"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_items_id"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_items_sort"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_items_state"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_items_type"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_items_parent"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_items_cycle"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_items_start"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_items_target"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_items_estimate"`);
    await queryRunner.query(`DROP INDEX "public"."ix_work_items_priority"`);
    await queryRunner.query(`DROP TABLE "work_items"`);
    await queryRunner.query(`DROP FUNCTION "work_items_assign_sequence"()`);
  }
}
