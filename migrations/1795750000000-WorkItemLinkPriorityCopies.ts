import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexOnline, dropIndexOnline } from './online-index';

const LINKS = [
  { table: 'work_item_assignees', key: 'assignee_id' },
  { table: 'work_item_labels', key: 'label_id' },
] as const;
const LIVE = (w: string) => `(${w}.deleted_at IS NULL AND ${w}.archived_at IS NULL)`;
/** The priority's rank, urgent first (PRIORITY_RANK of the list, the key of ix_work_items_priority). */
const RANK = (w: string) =>
  `(CASE ${w}.priority WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END)`;
/** The link rows' other copies changed (migration WorkItemLinkListColumns). */
const COPIES_CHANGED = `o.state_group_rank IS DISTINCT FROM n.state_group_rank OR ${LIVE('o')} IS DISTINCT FROM ${LIVE('n')}
                  OR o.created_at IS DISTINCT FROM n.created_at`;
/** Heap pages of a link table rewritten per backfill statement (each commits on its own). */
export const BACKFILL_PAGES = 500;

/** The link sync statement trigger's function as LinkSyncCheckWithoutEarlyExit left it (restored by `down`). */
const linkSync = (
  changed: string,
  set: string,
) => `CREATE OR REPLACE FUNCTION wt_work_items_link_sync() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT count(*) FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE ${changed}) > 0 THEN
          ${LINKS.map(
            ({ table }) => `UPDATE ${table} x SET ${set}
                      FROM new_rows n JOIN old_rows o ON o.id = n.id
                     WHERE x.workspace_id = n.workspace_id AND x.work_item_id = n.id AND (${changed});`,
          ).join('\n          ')}
        END IF;
        RETURN NULL;
      END $$`;

const OLD_SET = `item_created_at = n.created_at, item_state_group_rank = n.state_group_rank, item_live = ${LIVE('n')}`;

/** The updated items whose copies changed, with their new copies: the new rows' copies EXCEPT the old rows'. */
const CHANGED_COPIES = `SELECT n.workspace_id, n.id, n.created_at, n.state_group_rank, ${LIVE('n')} AS live, ${RANK('n')} AS priority_rank
            FROM new_rows n
          EXCEPT SELECT o.workspace_id, o.id, o.created_at, o.state_group_rank, ${LIVE('o')}, ${RANK('o')} FROM old_rows o`;

/**
 * The link sync with the priority copy. Its statements no longer join the old rows to the new ones: PL/pgSQL plans a
 * statement without parameters once per connection and keeps that plan, sized for the transition tables of its first
 * execution; after single-item PATCHes on a connection, an UPDATE of thousands of items ran that join as a nested
 * loop, every old row compared with every new one (auto_explain: 11,867,043 rows removed by the join filter of the
 * link rows' UPDATE for 3,000 items; 8,997,000 in the check). The changed items are the new rows' copies EXCEPT the
 * old rows' (hashed or sorted, never pairwise, whatever the plan), each then probing its links by key.
 */
const LINK_SYNC_WITH_PRIORITY = `CREATE OR REPLACE FUNCTION wt_work_items_link_sync() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (${CHANGED_COPIES}) THEN
          ${LINKS.map(
            ({
              table,
            }) => `UPDATE ${table} x SET item_created_at = c.created_at, item_state_group_rank = c.state_group_rank,
                   item_live = c.live, item_priority_rank = c.priority_rank
              FROM (${CHANGED_COPIES}) c WHERE x.workspace_id = c.workspace_id AND x.work_item_id = c.id;`,
          ).join('\n          ')}
        END IF;
        RETURN NULL;
      END $$`;

/** The link insert's copy trigger function (WorkItemLinkListColumns, by workspace since DropPlainIdIndexes). */
const copy = (
  withPriority: boolean,
) => `CREATE OR REPLACE FUNCTION wt_work_item_link_copy() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.item_created_at IS NULL OR NEW.item_state_group_rank IS NULL OR NEW.item_live IS NULL THEN
          SELECT w.created_at, w.state_group_rank, ${LIVE('w')}${withPriority ? `, ${RANK('w')}` : ''}
            INTO NEW.item_created_at, NEW.item_state_group_rank, NEW.item_live${withPriority ? ', NEW.item_priority_rank' : ''}
            FROM work_items w WHERE w.workspace_id = NEW.workspace_id AND w.id = NEW.work_item_id;${
              withPriority
                ? `
        ELSIF NEW.item_priority_rank IS NULL THEN
          SELECT ${RANK('w')} INTO NEW.item_priority_rank
            FROM work_items w WHERE w.workspace_id = NEW.workspace_id AND w.id = NEW.work_item_id;`
                : ''
            }
        END IF;
        RETURN NEW;
      END $$`;

/**
 * Issue 27 part 2: `label_id=L&priority=P` (and `assignee_id=`, their `__in` forms) read their page as one range of
 * a link index and count their matches off it, whatever the statistics say. Before, the page walked the label's
 * live links in created_at order and probed each one's item for the priority: where the two seldom meet (the
 * benchmark's first label is only on `urgent` items) every link was probed, 200,638 buffers, 0.24-0.64 s at a million
 * items, analyzed or not.
 *
 * The link rows copy their item's priority rank (`item_priority_rank`, urgent 0 ... none 4) as they copy its
 * created_at, state group rank and liveness, kept by the same triggers: the insert's copy trigger, and the statement
 * trigger that rewrites an updated item's links now also when its priority changed. `ix_<link>_priority` (key,
 * project, priority rank, item_created_at, work_item_id, state group rank, workspace) over live links holds a
 * (key, priority)'s page as one range in created_at order and its count index-only.
 *
 * Rolling upgrade: the previous release's create statement inserts its item and the item's links in one statement
 * and sets the other copies itself, not this one, and a trigger's query cannot see an item inserted by the same
 * statement. So the column stays nullable in this release, and an AFTER INSERT row trigger, queued only for a link
 * row inserted without it (`WHEN (NEW.item_priority_rank IS NULL)`), sets it at the statement's end, when the item is
 * visible. This release's statements set it (or the copy trigger does), so they never queue that trigger.
 *
 * Online (`transaction = false`): the column is added without a default (a catalog change), the triggers keep new
 * writes exact from then on, the existing rows are filled BACKFILL_PAGES heap pages per statement (a TID range scan,
 * each statement committing on its own; rows a concurrent priority change rewrote in the meantime are skipped: the
 * trigger set them), the link tables are vacuumed (the backfill left every row's old version behind), then the index
 * is built CONCURRENTLY. Safe to run again.
 */
export class WorkItemLinkPriorityCopies1795750000000 implements MigrationInterface {
  name = 'WorkItemLinkPriorityCopies1795750000000';
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    for (const { table } of LINKS)
      await q.query(`ALTER TABLE "${table}" ADD COLUMN IF NOT EXISTS "item_priority_rank" smallint`);
    await q.query(copy(true));
    await q.query(LINK_SYNC_WITH_PRIORITY);
    for (const { table, key } of LINKS) {
      await q.query(`CREATE OR REPLACE FUNCTION wt_${table}_priority_fill() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          UPDATE ${table} x SET item_priority_rank = (SELECT ${RANK('w')} FROM work_items w WHERE w.workspace_id = x.workspace_id AND w.id = x.work_item_id)
           WHERE x.workspace_id = NEW.workspace_id AND x.work_item_id = NEW.work_item_id AND x.${key} = NEW.${key} AND x.item_priority_rank IS NULL;
          RETURN NULL;
        END $$`);
      await q.query(`DROP TRIGGER IF EXISTS trg_${table}_priority_fill ON ${table}`);
      await q.query(`CREATE TRIGGER trg_${table}_priority_fill AFTER INSERT ON ${table}
        FOR EACH ROW WHEN (NEW.item_priority_rank IS NULL) EXECUTE FUNCTION wt_${table}_priority_fill()`);
    }
    for (const { table } of LINKS) await backfill(q, table);
    // The backfill rewrote every link row: until vacuumed, the link filters' index-only reads (list and group
    // indexes, the per-row id arrays) visit the table for each entry. VACUUM blocks neither reads nor writes.
    for (const { table } of LINKS) await q.query(`VACUUM ${table}`);
    for (const { table, key } of LINKS) {
      await createIndexOnline(
        q,
        `ix_${table}_priority`,
        `"${table}" ("${key}", "project_id", "item_priority_rank", "item_created_at", "work_item_id", "item_state_group_rank", "workspace_id") WHERE "item_live"`,
      );
    }
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const { table } of LINKS) await dropIndexOnline(q, `ix_${table}_priority`);
    await q.query(linkSync(COPIES_CHANGED, OLD_SET));
    await q.query(copy(false));
    for (const { table } of LINKS) {
      await q.query(`DROP TRIGGER IF EXISTS trg_${table}_priority_fill ON ${table}`);
      await q.query(`DROP FUNCTION IF EXISTS wt_${table}_priority_fill()`);
      await q.query(`ALTER TABLE "${table}" DROP COLUMN IF EXISTS "item_priority_rank"`);
    }
  }
}

/**
 * Sets `item_priority_rank` of `table`'s rows that lack it, BACKFILL_PAGES heap pages per statement (a TID range
 * scan: no index, no sort, each page read once) up to the table's size when it began; rows inserted since have it
 * from the triggers. Each statement commits on its own, so no statement holds many rows' locks for long.
 */
async function backfill(q: QueryRunner, table: string): Promise<void> {
  const [{ pages }] = await q.query(
    `SELECT (pg_relation_size('"${table}"') / current_setting('block_size')::int)::int AS pages`,
  );
  const fill = (range: string) =>
    `UPDATE ${table} x SET item_priority_rank = (SELECT ${RANK('w')} FROM work_items w WHERE w.workspace_id = x.workspace_id AND w.id = x.work_item_id)
      WHERE ${range} AND x.item_priority_rank IS NULL`;
  for (let from = 0; from < pages; from += BACKFILL_PAGES) {
    await q.query(fill(`x.ctid >= $1::tid AND x.ctid < $2::tid`), [`(${from},0)`, `(${from + BACKFILL_PAGES},0)`]);
  }
  // Pages added while it ran: rows inserted since (which have it) and rows moved by their updates.
  await q.query(fill(`x.ctid >= $1::tid`), [`(${pages},0)`]);
}
