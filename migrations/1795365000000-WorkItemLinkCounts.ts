import { MigrationInterface, QueryRunner } from 'typeorm';

const LINKS = [
  { table: 'work_item_assignees', key: 'assignee_id', counts: 'work_item_assignee_counts' },
  { table: 'work_item_labels', key: 'label_id', counts: 'work_item_label_counts' },
] as const;

/**
 * Live links counted per (assignee or label, project, state group rank), so the `total_count` of
 * `assignee_id=…` / `label_id=…`, alone or with `state_group`, is a sum of a few counter rows instead of
 * an index-only count of every matching link (16,667 entries, 2 ms of PostgreSQL per request at a
 * million items: the whole cost of the filtered list).
 *
 * Like `project_work_item_counts`, each counter is spread over slots (the backend's pid modulo 16) so
 * concurrent writers seldom update the same row, and statement triggers with transition tables keep it
 * exact: inserts add their live links, deletes remove them, updates (the link rows' copies rewritten
 * when an item changes state group, is archived, unarchived or deleted) move them, all set-based, in
 * one upsert per statement. Rows are upserted in key order, so two writers cannot deadlock on them.
 */
export class WorkItemLinkCounts1795365000000 implements MigrationInterface {
  name = 'WorkItemLinkCounts1795365000000';

  public async up(q: QueryRunner): Promise<void> {
    for (const { table, key, counts } of LINKS) {
      await q.query(`CREATE TABLE "${counts}" ("${key}" uuid NOT NULL, "project_id" uuid NOT NULL, "state_group_rank" smallint NOT NULL, "slot" smallint NOT NULL,
        "workspace_id" uuid NOT NULL, "n" integer NOT NULL DEFAULT '0',
        CONSTRAINT "PK_${counts}" PRIMARY KEY ("${key}", "project_id", "state_group_rank", "slot"))`);
      await q.query(`INSERT INTO ${counts} (${key}, project_id, state_group_rank, slot, workspace_id, n)
        SELECT ${key}, project_id, item_state_group_rank, 0, workspace_id, count(*)::int FROM ${table} WHERE item_live
         GROUP BY ${key}, project_id, item_state_group_rank, workspace_id`);
      // delta: +1 per live new row, -1 per live old row, summed per counter.
      const upsert = (delta: string) => `
        INSERT INTO ${counts} AS c (${key}, project_id, state_group_rank, slot, workspace_id, n)
        SELECT ${key}, project_id, item_state_group_rank, pg_backend_pid() % 16, workspace_id, sum(n)::int FROM (${delta}) d
         GROUP BY ${key}, project_id, item_state_group_rank, workspace_id HAVING sum(n) <> 0
         ORDER BY ${key}, project_id, item_state_group_rank
        ON CONFLICT (${key}, project_id, state_group_rank, slot) DO UPDATE SET n = c.n + EXCLUDED.n;`;
      const live = (rows: string, sign: string) =>
        `SELECT ${key}, project_id, item_state_group_rank, workspace_id, ${sign}1 AS n FROM ${rows} WHERE item_live`;
      // INSERT and DELETE triggers see one transition table each, so each kind gets its own function.
      await q.query(`CREATE FUNCTION wt_${counts}_ins() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN ${upsert(live('new_rows', '+'))} RETURN NULL; END $$`);
      await q.query(`CREATE FUNCTION wt_${counts}_del() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN ${upsert(live('old_rows', '-'))} RETURN NULL; END $$`);
      await q.query(`CREATE FUNCTION wt_${counts}_upd() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN ${upsert(`${live('new_rows', '+')} UNION ALL ${live('old_rows', '-')}`)} RETURN NULL; END $$`);
      await q.query(`CREATE TRIGGER trg_${counts}_ins AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION wt_${counts}_ins()`);
      await q.query(`CREATE TRIGGER trg_${counts}_del AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION wt_${counts}_del()`);
      await q.query(`CREATE TRIGGER trg_${counts}_upd AFTER UPDATE ON ${table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION wt_${counts}_upd()`);
    }
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const { table, counts } of LINKS) {
      for (const op of ['ins', 'del', 'upd']) {
        await q.query(`DROP TRIGGER trg_${counts}_${op} ON ${table}`);
        await q.query(`DROP FUNCTION wt_${counts}_${op}()`);
      }
      await q.query(`DROP TABLE "${counts}"`);
    }
  }
}
