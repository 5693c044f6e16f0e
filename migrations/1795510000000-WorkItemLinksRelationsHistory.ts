import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Work item links, relations (workspace relation definitions, typed dependencies) and the activity history
 * (docs/work-item-links-relations-history.md).
 *
 * History is written by statement-level AFTER triggers with transition tables: one INSERT ... SELECT per
 * statement that changed work items, their assignee/label/module memberships, comments, links or relations,
 * inside that statement's transaction. A rolled-back change leaves no history, a committed one always has it,
 * and a bulk statement records every row like a single one, whatever code path wrote it. The actor is the
 * transaction-local setting `wt.actor_id` when the service set it (common/database/activity-actor.ts), else
 * the row's own author column (updated_by_id, created_by_id, actor_id).
 */
const ACTOR = (fallback: string) => `COALESCE(NULLIF(current_setting('wt.actor_id', true), '')::uuid, ${fallback})`;
/**
 * Columns every trigger fills besides the change itself: the transaction's time (ms) and id group one change.
 * STAMP, COLS and TRIGGERS are exported for ActivityTimeOrderedIds, which rewrites the bodies; this migration's SQL is as it was.
 */
export const STAMP = `(extract(epoch FROM now()) * 1000)::bigint, pg_current_xact_id()::text::bigint, clock_timestamp()`;
export const COLS = `(workspace_id, project_id, work_item_id, verb, field, old_value, new_value, old_identifier_id,
  new_identifier_id, issue_comment_id, actor_id, epoch, xact_id, created_at)`;

/** One row per changed field of each updated work item (the VALUES list is the set of recorded fields). */
const WORK_ITEM_UPDATE = `
  INSERT INTO work_item_activities ${COLS}
  SELECT n.workspace_id, n.project_id, n.id, f.verb, f.field, f.old_value, f.new_value, f.old_id, f.new_id, NULL,
         ${ACTOR('n.updated_by_id')}, ${STAMP}
    FROM old_rows o JOIN new_rows n ON n.id = o.id
   CROSS JOIN LATERAL (VALUES
     (1, 'updated', 'name', o.name::text, n.name::text, NULL::uuid, NULL::uuid, o.name IS DISTINCT FROM n.name),
     (2, 'updated', 'description', o.description_html, n.description_html, NULL, NULL, o.description_html IS DISTINCT FROM n.description_html),
     (3, 'updated', 'priority', o.priority::text, n.priority::text, NULL, NULL, o.priority IS DISTINCT FROM n.priority),
     (4, 'updated', 'state', o.state_id::text, n.state_id::text, o.state_id, n.state_id, o.state_id IS DISTINCT FROM n.state_id),
     (5, 'updated', 'type', o.type_id::text, n.type_id::text, o.type_id, n.type_id, o.type_id IS DISTINCT FROM n.type_id),
     (6, 'updated', 'parent', o.parent_id::text, n.parent_id::text, o.parent_id, n.parent_id, o.parent_id IS DISTINCT FROM n.parent_id),
     (7, 'updated', 'estimate_point', o.estimate_point_id::text, n.estimate_point_id::text, o.estimate_point_id, n.estimate_point_id, o.estimate_point_id IS DISTINCT FROM n.estimate_point_id),
     (8, 'updated', 'cycle', o.cycle_id::text, n.cycle_id::text, o.cycle_id, n.cycle_id, o.cycle_id IS DISTINCT FROM n.cycle_id),
     (9, 'updated', 'start_date', o.start_date::text, n.start_date::text, NULL, NULL, o.start_date IS DISTINCT FROM n.start_date),
     (10, 'updated', 'target_date', o.target_date::text, n.target_date::text, NULL, NULL, o.target_date IS DISTINCT FROM n.target_date),
     (11, 'updated', 'is_draft', o.is_draft::text, n.is_draft::text, NULL, NULL, o.is_draft IS DISTINCT FROM n.is_draft),
     (12, 'updated', 'custom_fields', o.custom_values::text, n.custom_values::text, NULL, NULL, o.custom_values IS DISTINCT FROM n.custom_values),
     (13, 'updated', 'external_id', o.external_id::text, n.external_id::text, NULL, NULL, o.external_id IS DISTINCT FROM n.external_id),
     (14, 'updated', 'external_source', o.external_source::text, n.external_source::text, NULL, NULL, o.external_source IS DISTINCT FROM n.external_source),
     (15, CASE WHEN n.archived_at IS NULL THEN 'unarchived' ELSE 'archived' END, 'archived_at', o.archived_at::text, n.archived_at::text, NULL, NULL,
         (o.archived_at IS NULL) <> (n.archived_at IS NULL)),
     (16, 'deleted', NULL, NULL, NULL, NULL, NULL, o.deleted_at IS NULL AND n.deleted_at IS NOT NULL)
   ) f(ord, verb, field, old_value, new_value, old_id, new_id, changed)
   WHERE f.changed
   ORDER BY n.id, f.ord`;

const WORK_ITEM_INSERT = `
  INSERT INTO work_item_activities ${COLS}
  SELECT workspace_id, project_id, id, 'created', NULL, NULL, NULL, NULL, NULL, NULL, ${ACTOR('created_by_id')}, ${STAMP}
    FROM new_rows ORDER BY id`;

/**
 * A membership row added or removed (assignees, labels, modules): `rows` is the transition table, `col` the
 * member column. Rows written together with their work item (a create) are part of its `created` entry.
 */
const MEMBERSHIP = (field: string, col: string, added: boolean) => `
  INSERT INTO work_item_activities ${COLS}
  SELECT m.workspace_id, m.project_id, m.work_item_id, 'updated', '${field}',
         ${added ? `NULL, m.${col}::text, NULL, m.${col}` : `m.${col}::text, NULL, m.${col}, NULL`}, NULL,
         ${ACTOR('w.updated_by_id')}, ${STAMP}
    FROM ${added ? 'new_rows' : 'old_rows'} m JOIN work_items w ON w.id = m.work_item_id
   WHERE w.created_at <> now()
   ORDER BY m.work_item_id, m.${col}`;

const COMMENT_INSERT = `
  INSERT INTO work_item_activities ${COLS}
  SELECT workspace_id, project_id, work_item_id, 'created', 'comment', NULL, comment_stripped, NULL, NULL, id,
         ${ACTOR('actor_id')}, ${STAMP}
    FROM new_rows WHERE deleted_at IS NULL ORDER BY id`;

const COMMENT_UPDATE = `
  INSERT INTO work_item_activities ${COLS}
  SELECT n.workspace_id, n.project_id, n.work_item_id,
         CASE WHEN n.deleted_at IS NOT NULL THEN 'deleted' ELSE 'updated' END, 'comment',
         o.comment_stripped, CASE WHEN n.deleted_at IS NULL THEN n.comment_stripped END, NULL, NULL, n.id,
         ${ACTOR('n.actor_id')}, ${STAMP}
    FROM old_rows o JOIN new_rows n ON n.id = o.id
   WHERE o.deleted_at IS NULL AND (n.deleted_at IS NOT NULL OR o.comment_html IS DISTINCT FROM n.comment_html)
   ORDER BY n.id`;

const LINK_INSERT = `
  INSERT INTO work_item_activities ${COLS}
  SELECT workspace_id, project_id, work_item_id, 'created', 'link', NULL, url, NULL, id, NULL,
         ${ACTOR('created_by_id')}, ${STAMP}
    FROM new_rows ORDER BY id`;

const LINK_UPDATE = `
  INSERT INTO work_item_activities ${COLS}
  SELECT n.workspace_id, n.project_id, n.work_item_id, CASE WHEN n.deleted_at IS NOT NULL THEN 'deleted' ELSE 'updated' END,
         'link', o.url, CASE WHEN n.deleted_at IS NULL THEN n.url END, o.id, CASE WHEN n.deleted_at IS NULL THEN n.id END, NULL,
         ${ACTOR('n.updated_by_id')}, ${STAMP}
    FROM old_rows o JOIN new_rows n ON n.id = o.id
   WHERE o.deleted_at IS NULL AND (n.deleted_at IS NOT NULL OR o.url IS DISTINCT FROM n.url
         OR o.title IS DISTINCT FROM n.title OR o.metadata IS DISTINCT FROM n.metadata)
   ORDER BY n.id`;

/** The inverse key of a dependency type, stored in its canonical (outward) form. */
const DEPENDENCY_INVERSE = `CASE r.dependency_type WHEN 'blocking' THEN 'blocked_by' WHEN 'start_before' THEN 'start_after'
  WHEN 'finish_before' THEN 'finish_after' END`;

/** Both ends of each relation get an entry, each with the label seen from its side and the other item's id. */
const RELATION = (added: boolean) => `
  INSERT INTO work_item_activities ${COLS}
  SELECT r.workspace_id, s.project_id, s.item_id, '${added ? 'created' : 'deleted'}', r.kind,
         ${added ? 'NULL, s.label, NULL, s.other_id' : 's.label, NULL, s.other_id, NULL'}, NULL,
         ${ACTOR('r.created_by_id')}, ${STAMP}
    FROM ${added ? 'new_rows' : 'old_rows'} r
    LEFT JOIN work_item_relation_definitions d ON d.workspace_id = r.workspace_id AND d.id = r.definition_id
   CROSS JOIN LATERAL (VALUES
     (1, r.source_id, r.source_project_id, r.target_id, COALESCE(d.outward, r.dependency_type)),
     (2, r.target_id, r.target_project_id, r.source_id, COALESCE(d.inward, ${DEPENDENCY_INVERSE}))
   ) s(ord, item_id, project_id, other_id, label)
   ORDER BY r.id, s.ord`;

/** Built-in relation definitions every workspace starts with (is_default: not editable, not deletable). */
const SEED_DEFINITIONS = (workspaceExpr: string, from: string) => `
  INSERT INTO work_item_relation_definitions (workspace_id, name, description, outward, inward, is_default, sort_order)
  SELECT ${workspaceExpr}, d.name, d.description, d.outward, d.inward, true, d.sort_order
    FROM ${from} CROSS JOIN (VALUES
      ('Blocks', 'One work item must be done before the other can proceed.', 'blocks', 'is blocked by', 1000),
      ('Duplicate', 'One work item repeats the other.', 'duplicates', 'is duplicated by', 2000),
      ('Relates', 'The work items are related.', 'relates to', 'relates to', 3000)
    ) d(name, description, outward, inward, sort_order)
  ON CONFLICT DO NOTHING`;

function trigger(table: string, name: string, event: string, body: string, tables: string): string[] {
  return [
    `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body}; RETURN NULL; END $$`,
    `CREATE TRIGGER ${name} AFTER ${event} ON ${table} REFERENCING ${tables} FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`,
  ];
}

const NEW = 'NEW TABLE AS new_rows';
const OLD = 'OLD TABLE AS old_rows';
const BOTH = 'OLD TABLE AS old_rows NEW TABLE AS new_rows';

export const TRIGGERS: Array<[string, string, string, string, string]> = [
  ['work_items', 'wt_activity_work_item_ins', 'INSERT', WORK_ITEM_INSERT, NEW],
  ['work_items', 'wt_activity_work_item_upd', 'UPDATE', WORK_ITEM_UPDATE, BOTH],
  ['work_item_assignees', 'wt_activity_assignee_ins', 'INSERT', MEMBERSHIP('assignees', 'assignee_id', true), NEW],
  ['work_item_assignees', 'wt_activity_assignee_del', 'DELETE', MEMBERSHIP('assignees', 'assignee_id', false), OLD],
  ['work_item_labels', 'wt_activity_label_ins', 'INSERT', MEMBERSHIP('labels', 'label_id', true), NEW],
  ['work_item_labels', 'wt_activity_label_del', 'DELETE', MEMBERSHIP('labels', 'label_id', false), OLD],
  ['module_work_items', 'wt_activity_module_ins', 'INSERT', MEMBERSHIP('modules', 'module_id', true), NEW],
  ['module_work_items', 'wt_activity_module_del', 'DELETE', MEMBERSHIP('modules', 'module_id', false), OLD],
  ['work_item_comments', 'wt_activity_comment_ins', 'INSERT', COMMENT_INSERT, NEW],
  ['work_item_comments', 'wt_activity_comment_upd', 'UPDATE', COMMENT_UPDATE, BOTH],
  ['work_item_links', 'wt_activity_link_ins', 'INSERT', LINK_INSERT, NEW],
  ['work_item_links', 'wt_activity_link_upd', 'UPDATE', LINK_UPDATE, BOTH],
  ['work_item_relations', 'wt_activity_relation_ins', 'INSERT', RELATION(true), NEW],
  ['work_item_relations', 'wt_activity_relation_del', 'DELETE', RELATION(false), OLD],
];

export class WorkItemLinksRelationsHistory1795510000000 implements MigrationInterface {
  name = 'WorkItemLinksRelationsHistory1795510000000';

  public async up(q: QueryRunner): Promise<void> {
    await this.tables(q);
    await this.indexes(q);
    await q.query(SEED_DEFINITIONS('w.id', 'workspaces w'));
    await q.query(`CREATE OR REPLACE FUNCTION wt_seed_relation_definitions() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${SEED_DEFINITIONS('n.id', 'new_rows n')}; RETURN NULL; END $$`);
    await q.query(`CREATE TRIGGER wt_seed_relation_definitions AFTER INSERT ON workspaces REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION wt_seed_relation_definitions()`);
    for (const [table, name, event, body, tables] of TRIGGERS) {
      for (const sql of trigger(table, name, event, body, tables)) await q.query(sql);
    }
  }

  private async tables(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "work_item_activities" ("workspace_id" uuid NOT NULL, "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "project_id" uuid NOT NULL, "work_item_id" uuid NOT NULL, "verb" character varying(16) NOT NULL, "field" character varying(32),
      "old_value" text, "new_value" text, "old_identifier_id" uuid, "new_identifier_id" uuid, "issue_comment_id" uuid,
      "actor_id" uuid, "epoch" bigint NOT NULL, "xact_id" bigint NOT NULL,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_work_item_activities" PRIMARY KEY ("workspace_id", "id"))`);
    await q.query(`CREATE TABLE "work_item_links" ("workspace_id" uuid NOT NULL, "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "project_id" uuid NOT NULL, "work_item_id" uuid NOT NULL, "url" character varying(2048) NOT NULL,
      "title" character varying(255), "metadata" jsonb NOT NULL DEFAULT '{}', "created_by_id" uuid, "updated_by_id" uuid,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_work_item_links" PRIMARY KEY ("workspace_id", "id"))`);
    await q.query(`CREATE TABLE "work_item_relation_definitions" ("workspace_id" uuid NOT NULL,
      "id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(255) NOT NULL, "description" text NOT NULL DEFAULT '',
      "outward" character varying(64) NOT NULL, "inward" character varying(64) NOT NULL, "color" character varying(32),
      "is_active" boolean NOT NULL DEFAULT true, "is_default" boolean NOT NULL DEFAULT false, "logo_props" jsonb NOT NULL DEFAULT '{}',
      "sort_order" double precision NOT NULL DEFAULT '65535', "external_id" character varying(255), "external_source" character varying(255),
      "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE,
      CONSTRAINT "PK_work_item_relation_definitions" PRIMARY KEY ("workspace_id", "id"))`);
    await q.query(`CREATE TABLE "work_item_relations" ("workspace_id" uuid NOT NULL, "id" uuid NOT NULL DEFAULT gen_random_uuid(),
      "kind" character varying(16) NOT NULL, "definition_id" uuid, "dependency_type" character varying(16),
      "source_id" uuid NOT NULL, "target_id" uuid NOT NULL, "source_project_id" uuid NOT NULL, "target_project_id" uuid NOT NULL,
      "created_by_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_work_item_relations" PRIMARY KEY ("workspace_id", "id"))`);
  }

  private async indexes(q: QueryRunner): Promise<void> {
    const live = 'WHERE "deleted_at" IS NULL';
    for (const sql of [
      `CREATE INDEX "ix_work_item_activities_list" ON "work_item_activities" ("work_item_id", "created_at", "id")`,
      `CREATE INDEX "ix_work_item_links_list" ON "work_item_links" ("work_item_id", "created_at", "id") ${live}`,
      // order_by=id reads its own index range instead of sorting the item's whole history or link set.
      `CREATE INDEX "ix_work_item_activities_id" ON "work_item_activities" ("work_item_id", "id")`,
      `CREATE INDEX "ix_work_item_links_id" ON "work_item_links" ("work_item_id", "id") ${live}`,
      `CREATE UNIQUE INDEX "uq_work_item_links_url" ON "work_item_links" ("workspace_id", "work_item_id", "url") ${live}`,
      `CREATE UNIQUE INDEX "uq_work_item_relation_definitions_name" ON "work_item_relation_definitions" ("workspace_id", lower("name")) ${live}`,
      `CREATE INDEX "ix_work_item_relation_definitions_list" ON "work_item_relation_definitions" ("workspace_id", "sort_order", "id") ${live}`,
      `CREATE INDEX "ix_work_item_relations_source" ON "work_item_relations" ("source_id", "kind")`,
      `CREATE INDEX "ix_work_item_relations_target" ON "work_item_relations" ("target_id", "kind")`,
      `CREATE INDEX "ix_work_item_relations_definition" ON "work_item_relations" ("definition_id") WHERE "definition_id" IS NOT NULL`,
      // One relation of a definition (one dependency of a type) per unordered pair: concurrent creates make one row.
      `CREATE UNIQUE INDEX "uq_work_item_relations_pair" ON "work_item_relations" ("workspace_id", "kind",
        COALESCE("definition_id"::text, "dependency_type"), LEAST("source_id", "target_id"), GREATEST("source_id", "target_id"))`,
    ])
      await q.query(sql);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const [table, name] of TRIGGERS) {
      await q.query(`DROP TRIGGER ${name} ON ${table}`);
      await q.query(`DROP FUNCTION ${name}()`);
    }
    await q.query(`DROP TRIGGER wt_seed_relation_definitions ON workspaces`);
    await q.query(`DROP FUNCTION wt_seed_relation_definitions()`);
    for (const t of [
      'work_item_relations',
      'work_item_relation_definitions',
      'work_item_links',
      'work_item_activities',
    ])
      await q.query(`DROP TABLE "${t}"`);
  }
}
