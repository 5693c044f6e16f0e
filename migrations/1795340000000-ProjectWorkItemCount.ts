import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `projects.live_work_items`: the count of live work items, kept exact by statement-level triggers
 * (transition tables, so bulk inserts cost one update per project, not one per row). The unfiltered
 * work item list reads it instead of counting a million rows.
 */
export class ProjectWorkItemCount1795340000000 implements MigrationInterface {
  name = 'ProjectWorkItemCount1795340000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "projects" ADD "live_work_items" integer NOT NULL DEFAULT '0'`);
    await q.query(`UPDATE projects p SET live_work_items = c.n
      FROM (SELECT project_id, count(*)::int AS n FROM work_items WHERE deleted_at IS NULL AND archived_at IS NULL GROUP BY project_id) c
     WHERE p.id = c.project_id`);
    await q.query(`CREATE FUNCTION wt_work_items_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE projects p SET live_work_items = p.live_work_items + d.n
            FROM (SELECT project_id, count(*)::int AS n FROM new_rows WHERE deleted_at IS NULL AND archived_at IS NULL GROUP BY project_id) d
           WHERE p.id = d.project_id;
        ELSIF TG_OP = 'DELETE' THEN
          UPDATE projects p SET live_work_items = p.live_work_items - d.n
            FROM (SELECT project_id, count(*)::int AS n FROM old_rows WHERE deleted_at IS NULL AND archived_at IS NULL GROUP BY project_id) d
           WHERE p.id = d.project_id;
        ELSE
          UPDATE projects p SET live_work_items = p.live_work_items + d.n
            FROM (SELECT project_id, sum(n)::int AS n FROM (
                    SELECT project_id, 1 AS n FROM new_rows WHERE deleted_at IS NULL AND archived_at IS NULL
                    UNION ALL
                    SELECT project_id, -1 FROM old_rows WHERE deleted_at IS NULL AND archived_at IS NULL) x
                  GROUP BY project_id HAVING sum(n) <> 0) d
           WHERE p.id = d.project_id;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER trg_work_items_count_ins AFTER INSERT ON work_items REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION wt_work_items_count()`);
    await q.query(`CREATE TRIGGER trg_work_items_count_upd AFTER UPDATE ON work_items REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION wt_work_items_count()`);
    await q.query(`CREATE TRIGGER trg_work_items_count_del AFTER DELETE ON work_items REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION wt_work_items_count()`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER trg_work_items_count_del ON work_items`);
    await q.query(`DROP TRIGGER trg_work_items_count_upd ON work_items`);
    await q.query(`DROP TRIGGER trg_work_items_count_ins ON work_items`);
    await q.query(`DROP FUNCTION wt_work_items_count()`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "live_work_items"`);
  }
}
