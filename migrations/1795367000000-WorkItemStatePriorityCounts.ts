import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Live work items counted per (project, state, priority), spread over slots like `project_work_item_counts`,
 * kept by set-based statement triggers (transition tables) on work_items: inserts, deletes, and updates that
 * change an item's state, priority or liveness (archive, unarchive, soft delete). The `total_count` of a list
 * filtered only by `state_id`, `state_group` and `priority` (and their `__in` forms), the board's columns, is
 * then the sum of a few counter rows instead of a COUNT over every matching item (a third of a second for
 * `priority=high` at a million items). Rows are upserted in key order, so two writers cannot deadlock on them.
 */
export class WorkItemStatePriorityCounts1795367000000 implements MigrationInterface {
  name = 'WorkItemStatePriorityCounts1795367000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "work_item_state_priority_counts" ("project_id" uuid NOT NULL, "state_id" uuid NOT NULL,
      "priority" character varying(8) NOT NULL, "slot" smallint NOT NULL, "workspace_id" uuid NOT NULL, "n" integer NOT NULL DEFAULT '0',
      CONSTRAINT "PK_work_item_state_priority_counts" PRIMARY KEY ("project_id", "state_id", "priority", "slot"))`);
    await q.query(`INSERT INTO work_item_state_priority_counts (project_id, state_id, priority, slot, workspace_id, n)
      SELECT project_id, state_id, priority, 0, workspace_id, count(*)::int FROM work_items
       WHERE deleted_at IS NULL AND archived_at IS NULL GROUP BY project_id, state_id, priority, workspace_id`);
    const live = (rows: string, sign: string) =>
      `SELECT project_id, state_id, priority, workspace_id, ${sign}1 AS n FROM ${rows} WHERE deleted_at IS NULL AND archived_at IS NULL`;
    const upsert = (delta: string) => `
      INSERT INTO work_item_state_priority_counts AS c (project_id, state_id, priority, slot, workspace_id, n)
      SELECT project_id, state_id, priority, pg_backend_pid() % 16, workspace_id, sum(n)::int FROM (${delta}) d
       GROUP BY project_id, state_id, priority, workspace_id HAVING sum(n) <> 0
       ORDER BY project_id, state_id, priority
      ON CONFLICT (project_id, state_id, priority, slot) DO UPDATE SET n = c.n + EXCLUDED.n;`;
    await q.query(`CREATE FUNCTION wt_work_items_spc_ins() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${upsert(live('new_rows', '+'))} RETURN NULL; END $$`);
    await q.query(`CREATE FUNCTION wt_work_items_spc_del() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${upsert(live('old_rows', '-'))} RETURN NULL; END $$`);
    await q.query(`CREATE FUNCTION wt_work_items_spc_upd() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${upsert(`${live('new_rows', '+')} UNION ALL ${live('old_rows', '-')}`)} RETURN NULL; END $$`);
    await q.query(`CREATE TRIGGER trg_work_items_spc_ins AFTER INSERT ON work_items REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION wt_work_items_spc_ins()`);
    await q.query(`CREATE TRIGGER trg_work_items_spc_del AFTER DELETE ON work_items REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION wt_work_items_spc_del()`);
    await q.query(`CREATE TRIGGER trg_work_items_spc_upd AFTER UPDATE ON work_items REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION wt_work_items_spc_upd()`);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const op of ['ins', 'del', 'upd']) {
      await q.query(`DROP TRIGGER trg_work_items_spc_${op} ON work_items`);
      await q.query(`DROP FUNCTION wt_work_items_spc_${op}()`);
    }
    await q.query(`DROP TABLE "work_item_state_priority_counts"`);
  }
}
