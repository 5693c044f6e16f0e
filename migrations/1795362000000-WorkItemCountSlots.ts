import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Concurrent work item creates in one project no longer queue on the project row.
 *
 * Before: the insert transaction bumped `projects.last_sequence_id` and (through the count trigger)
 * `projects.live_work_items`, so every create held the project's row lock until its commit and a
 * project took one create per commit. Now:
 * - the live-row count is spread over slots (`project_work_item_counts`, one row per project and slot,
 *   the slot chosen by the backend), kept exact by the same statement triggers; readers sum the slots;
 * - the sequence number is taken by `wt_next_work_item_sequence(project)` in its own short statement,
 *   before the insert transaction. It commits asynchronously: a later synchronous commit (the work
 *   item's) flushes the WAL up to and past it, so a number used by a durable work item is durable too.
 *   A failed insert leaves a gap; a number is never handed out twice.
 */
export class WorkItemCountSlots1795362000000 implements MigrationInterface {
  name = 'WorkItemCountSlots1795362000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "project_work_item_counts" ("project_id" uuid NOT NULL, "slot" smallint NOT NULL, "workspace_id" uuid NOT NULL, "n" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_project_work_item_counts" PRIMARY KEY ("project_id", "slot"))`,
    );
    await q.query(`INSERT INTO project_work_item_counts (project_id, slot, workspace_id, n)
      SELECT id, 0, workspace_id, live_work_items FROM projects`);
    // UPDATE (archive, unarchive, soft delete): the change of live rows per project, if any. The slot is
    // the backend's, so concurrent transactions mostly write different rows.
    await q.query(`CREATE OR REPLACE FUNCTION wt_work_items_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO project_work_item_counts AS c (project_id, slot, workspace_id, n)
        SELECT project_id, pg_backend_pid() % 16, workspace_id, sum(n)::int FROM (
            SELECT project_id, workspace_id, 1 AS n FROM new_rows WHERE deleted_at IS NULL AND archived_at IS NULL
            UNION ALL
            SELECT project_id, workspace_id, -1 FROM old_rows WHERE deleted_at IS NULL AND archived_at IS NULL
          ) x GROUP BY project_id, workspace_id HAVING sum(n) <> 0
        ON CONFLICT (project_id, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
        RETURN NULL;
      END $$`);
    // INSERT and DELETE see one transition table each, so they get functions of their own.
    await q.query(`DROP TRIGGER trg_work_items_count_ins ON work_items`);
    await q.query(`DROP TRIGGER trg_work_items_count_del ON work_items`);
    await q.query(`CREATE FUNCTION wt_work_items_count_ins() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO project_work_item_counts AS c (project_id, slot, workspace_id, n)
        SELECT project_id, pg_backend_pid() % 16, workspace_id, count(*)::int FROM new_rows
         WHERE deleted_at IS NULL AND archived_at IS NULL GROUP BY project_id, workspace_id
        ON CONFLICT (project_id, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE FUNCTION wt_work_items_count_del() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO project_work_item_counts AS c (project_id, slot, workspace_id, n)
        SELECT project_id, pg_backend_pid() % 16, workspace_id, -count(*)::int FROM old_rows
         WHERE deleted_at IS NULL AND archived_at IS NULL GROUP BY project_id, workspace_id
        ON CONFLICT (project_id, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER trg_work_items_count_ins AFTER INSERT ON work_items REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION wt_work_items_count_ins()`);
    await q.query(`CREATE TRIGGER trg_work_items_count_del AFTER DELETE ON work_items REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION wt_work_items_count_del()`);
    await q.query(`ALTER TABLE "projects" DROP COLUMN "live_work_items"`);
    await q.query(`CREATE FUNCTION wt_next_work_item_sequence(p uuid) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        n integer;
      BEGIN
        PERFORM set_config('synchronous_commit', 'off', true);
        UPDATE projects SET last_sequence_id = last_sequence_id + 1 WHERE id = p RETURNING last_sequence_id INTO n;
        RETURN n;
      END $$`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION wt_next_work_item_sequence(uuid)`);
    await q.query(`ALTER TABLE "projects" ADD "live_work_items" integer NOT NULL DEFAULT '0'`);
    await q.query(
      `UPDATE projects p SET live_work_items = c.n FROM (SELECT project_id, sum(n)::int AS n FROM project_work_item_counts GROUP BY project_id) c WHERE p.id = c.project_id`,
    );
    await q.query(`DROP TRIGGER trg_work_items_count_ins ON work_items`);
    await q.query(`DROP TRIGGER trg_work_items_count_del ON work_items`);
    await q.query(`DROP FUNCTION wt_work_items_count_ins()`);
    await q.query(`DROP FUNCTION wt_work_items_count_del()`);
    await q.query(`CREATE OR REPLACE FUNCTION wt_work_items_count() RETURNS trigger LANGUAGE plpgsql AS $$
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
    await q.query(`CREATE TRIGGER trg_work_items_count_del AFTER DELETE ON work_items REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION wt_work_items_count()`);
    await q.query(`DROP TABLE "project_work_item_counts"`);
  }
}
