import { MigrationInterface, QueryRunner } from 'typeorm';

const LIVE = (w: string) => `(${w}.deleted_at IS NULL AND ${w}.archived_at IS NULL)`;

/**
 * `project_work_item_counts.changes`: how many times the project's live set (or a live item's created_at) changed,
 * summed over the slots: it only grows. Offset pages remember the key of the row before an offset they served
 * (OffsetAnchors) with the sum they read it at; as long as the sum is the same, no item entered, left or moved in
 * the orderings whose keys never change (created_at, sequence_id, id), so the page at that offset is the keyset
 * page after that key, and PostgreSQL need not skip the offset's index entries again. The same statement triggers
 * as the live count keep it (insert, delete, archive, unarchive, soft delete, created_at rewritten).
 */
export class WorkItemLiveSetChanges1795371000000 implements MigrationInterface {
  name = 'WorkItemLiveSetChanges1795371000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "project_work_item_counts" ADD "changes" bigint NOT NULL DEFAULT '0'`);
    // Inserted live rows count +1 each, deleted live rows -1; both are changes.
    for (const [fn, rows, sign] of [
      ['wt_work_items_count_ins', 'new_rows', ''],
      ['wt_work_items_count_del', 'old_rows', '-'],
    ]) {
      await q.query(`CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO project_work_item_counts AS c (project_id, slot, workspace_id, n, changes)
          SELECT project_id, pg_backend_pid() % 16, workspace_id, ${sign}count(*)::int, count(*) FROM ${rows}
           WHERE ${LIVE(rows)} GROUP BY project_id, workspace_id ORDER BY project_id
          ON CONFLICT (project_id, slot) DO UPDATE SET n = c.n + EXCLUDED.n, changes = c.changes + EXCLUDED.changes;
          RETURN NULL;
        END $$`);
    }
    // An update moves a live item in or out (archive, unarchive, soft delete), or rewrites a live item's created_at;
    // every such row counts as a change of both projects when an item changes project.
    await q.query(`CREATE OR REPLACE FUNCTION wt_work_items_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO project_work_item_counts AS c (project_id, slot, workspace_id, n, changes)
        SELECT project_id, pg_backend_pid() % 16, workspace_id, sum(n)::int, count(*) FROM (
            SELECT n.project_id, n.workspace_id, CASE WHEN ${LIVE('n')} THEN 1 ELSE 0 END - CASE WHEN ${LIVE('o')} AND o.project_id = n.project_id THEN 1 ELSE 0 END AS n
              FROM new_rows n JOIN old_rows o ON o.id = n.id
             WHERE (${LIVE('n')} OR ${LIVE('o')})
               AND (${LIVE('n')} IS DISTINCT FROM ${LIVE('o')} OR n.created_at IS DISTINCT FROM o.created_at OR n.project_id IS DISTINCT FROM o.project_id)
            UNION ALL
            SELECT o.project_id, o.workspace_id, -1
              FROM new_rows n JOIN old_rows o ON o.id = n.id
             WHERE ${LIVE('o')} AND o.project_id IS DISTINCT FROM n.project_id
          ) x GROUP BY project_id, workspace_id ORDER BY project_id
        ON CONFLICT (project_id, slot) DO UPDATE SET n = c.n + EXCLUDED.n, changes = c.changes + EXCLUDED.changes;
        RETURN NULL;
      END $$`);
  }

  public async down(q: QueryRunner): Promise<void> {
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
    for (const [fn, rows, sign] of [
      ['wt_work_items_count_ins', 'new_rows', ''],
      ['wt_work_items_count_del', 'old_rows', '-'],
    ]) {
      await q.query(`CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO project_work_item_counts AS c (project_id, slot, workspace_id, n)
          SELECT project_id, pg_backend_pid() % 16, workspace_id, ${sign}count(*)::int FROM ${rows}
           WHERE deleted_at IS NULL AND archived_at IS NULL GROUP BY project_id, workspace_id
          ON CONFLICT (project_id, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
          RETURN NULL;
        END $$`);
    }
    await q.query(`ALTER TABLE "project_work_item_counts" DROP COLUMN "changes"`);
  }
}
