import { MigrationInterface, QueryRunner } from 'typeorm';

/** The link tables and, for each, the table of live items that have none of its links and its counter column. */
export const GAPS = [
  { links: 'work_item_assignees', gaps: 'work_item_assignee_gaps', counter: 'unassigned' },
  { links: 'work_item_labels', gaps: 'work_item_label_gaps', counter: 'unlabelled' },
] as const;
type Gap = (typeof GAPS)[number];

const LIVE = (w: string) => `(${w}.deleted_at IS NULL AND ${w}.archived_at IS NULL)`;
/** The item `w` (a row with workspace_id and id) has none of `links`' rows: a probe of the link key's prefix. */
const NO_LINK = (links: string, w: string) =>
  `NOT EXISTS (SELECT 1 FROM ${links} x WHERE x.workspace_id = ${w}.workspace_id AND x.work_item_id = ${w}.id)`;

/** Items of the backfill per batch (a transaction of its own). */
export const BACKFILL_ITEMS = 5000;

/**
 * SQL: locks the work items named by `keys` (a FROM item with workspace_id, work_item_id), FOR NO KEY UPDATE, one at a
 * time in key order (the outer side of a nested loop keeps the sorted order), so two statements locking overlapping
 * sets cannot deadlock on them. Locking writes no new row version: only the lock (xmax) on the row.
 */
const LOCK_ITEMS = (keys: string) =>
  `PERFORM 1 FROM (SELECT DISTINCT k.workspace_id, k.work_item_id FROM ${keys} k ORDER BY 1, 2) k
     CROSS JOIN LATERAL (SELECT 1 FROM work_items w WHERE w.workspace_id = k.workspace_id AND w.id = k.work_item_id
                         FOR NO KEY UPDATE OF w) l;`;

/**
 * SQL: inserts the gap rows of `gap` for the items named by `keys` that are live and have none of its links, read
 * each by primary key (fenced: a per-key probe whatever the plan cache was sized for).
 */
const FILL_GAPS = (gap: Gap, keys: string) =>
  `INSERT INTO ${gap.gaps} (workspace_id, work_item_id, project_id, item_created_at)
   SELECT w.workspace_id, w.id, w.project_id, w.created_at
     FROM (SELECT DISTINCT k.workspace_id, k.work_item_id FROM ${keys} k) k
     CROSS JOIN LATERAL (SELECT w.workspace_id, w.id, w.project_id, w.created_at, w.deleted_at, w.archived_at FROM work_items w
                          WHERE w.workspace_id = k.workspace_id AND w.id = k.work_item_id OFFSET 0) w
    WHERE ${LIVE('w')} AND ${NO_LINK(gap.links, 'w')}
    ORDER BY 1, 2
   ON CONFLICT DO NOTHING;`;

/**
 * SQL: FILL_GAPS for the items of deleted link rows, from the rows' copies of their item (project, created_at,
 * liveness: migration WorkItemLinkListColumns) instead of a read of each item (a random heap page of work_items each:
 * a label deletion reads tens of thousands). The copies are their item's as of the delete: an item UPDATE rewrites
 * them in its own statement, and one running concurrently waits for the deleted rows (then for this statement's item
 * locks: a deadlock, one of the two rolled back), so the copies a committed delete saw are current.
 */
const FILL_GAPS_FROM_COPIES = (gap: Gap) =>
  `INSERT INTO ${gap.gaps} (workspace_id, work_item_id, project_id, item_created_at)
   SELECT DISTINCT ON (o.workspace_id, o.work_item_id) o.workspace_id, o.work_item_id, o.project_id, o.item_created_at
     FROM old_rows o
    WHERE o.item_live AND ${NO_LINK(gap.links, 'o').replace('o.id', 'o.work_item_id')}
    ORDER BY 1, 2
   ON CONFLICT DO NOTHING;`;

/** The updated items whose liveness, project or created_at changed (new rows EXCEPT old rows: never a pairwise join). */
const CHANGED = `SELECT n.workspace_id, n.id AS work_item_id, n.project_id, n.created_at, ${LIVE('n')} AS live FROM new_rows n
  EXCEPT SELECT o.workspace_id, o.id, o.project_id, o.created_at, ${LIVE('o')} FROM old_rows o`;

/**
 * The trigger functions' planner settings. Every statement they run reads work items, link rows and gap rows by key,
 * for the items of the statement's transition tables, so an index probe per item is always the right plan. PL/pgSQL
 * plans a parameterless statement once per connection, for the transition tables of its first execution, and keeps
 * the plan: a connection whose first link statement was a bulk one would otherwise keep a hash join over a whole
 * table (the link table, the gap table) for every later single-item write. JIT off: PostgreSQL 15 prices a disabled
 * node at 10^10, which would make a statement with no other path JIT-compile (migration TriggerJoinsWithoutNestedLoops).
 */
const PROBES_ONLY = 'SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off SET jit = off';

/** The trigger functions and triggers, as (function, trigger) SQL pairs. */
function triggers(): Array<{ name: string; table: string; fn: string; trigger: string }> {
  const out: Array<{ name: string; table: string; fn: string; trigger: string }> = [];
  for (const gap of GAPS) {
    // The link statements: the first link of an item removes its gap row, the last one removed puts it back. Both
    // lock the items first, so an add and a removal of one item's links (or two removals) are ordered: the second
    // re-reads the links after the first committed (each PL/pgSQL statement takes a new snapshot under READ
    // COMMITTED, the service's isolation level).
    out.push({
      name: `wt_${gap.gaps}_link_ins`,
      table: gap.links,
      fn: `BEGIN
        ${LOCK_ITEMS('new_rows')}
        DELETE FROM ${gap.gaps} g USING (SELECT DISTINCT n.workspace_id, n.work_item_id FROM new_rows n) k
         WHERE g.workspace_id = k.workspace_id AND g.work_item_id = k.work_item_id;
        RETURN NULL;
      END`,
      trigger: `AFTER INSERT ON ${gap.links} REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT`,
    });
    out.push({
      name: `wt_${gap.gaps}_link_del`,
      table: gap.links,
      fn: `BEGIN
        ${LOCK_ITEMS('old_rows')}
        ${FILL_GAPS_FROM_COPIES(gap)}
        RETURN NULL;
      END`,
      trigger: `AFTER DELETE ON ${gap.links} REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT`,
    });
    // The gap rows counted per project (spread over slots like project_work_item_counts), upserted in key order.
    const count = (rows: string, sign: string) => `BEGIN
        INSERT INTO work_item_gap_counts AS c (project_id, slot, workspace_id, ${gap.counter})
        SELECT r.project_id, pg_backend_pid() % 16, r.workspace_id, ${sign}count(*)::int FROM ${rows} r
         GROUP BY r.project_id, r.workspace_id ORDER BY r.project_id
        ON CONFLICT (project_id, slot, workspace_id) DO UPDATE SET ${gap.counter} = c.${gap.counter} + EXCLUDED.${gap.counter};
        RETURN NULL;
      END`;
    out.push({
      name: `wt_${gap.gaps}_count_ins`,
      table: gap.gaps,
      fn: count('new_rows', ''),
      trigger: `AFTER INSERT ON ${gap.gaps} REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT`,
    });
    out.push({
      name: `wt_${gap.gaps}_count_del`,
      table: gap.gaps,
      fn: count('old_rows', '-'),
      trigger: `AFTER DELETE ON ${gap.gaps} REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT`,
    });
  }
  // A new item is invisible to other transactions until it commits: nothing to lock. Links inserted by the same
  // statement (the create's CTEs) are visible here, at the statement's end.
  out.push({
    name: 'wt_work_item_gaps_item_ins',
    table: 'work_items',
    fn: `BEGIN
        ${GAPS.map(
          (gap) => `INSERT INTO ${gap.gaps} (workspace_id, work_item_id, project_id, item_created_at)
        SELECT n.workspace_id, n.id, n.project_id, n.created_at FROM new_rows n WHERE ${LIVE('n')} AND ${NO_LINK(gap.links, 'n')}
         ORDER BY 1, 2
        ON CONFLICT DO NOTHING;`,
        ).join('\n        ')}
        RETURN NULL;
      END`,
    trigger: `AFTER INSERT ON work_items REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT`,
  });
  // Archive, delete, restore (or a created_at / project rewritten): the UPDATE holds the items' row locks, which the
  // link statements' triggers wait for. The changed items' rows are dropped, then put back for those live without links.
  out.push({
    name: 'wt_work_item_gaps_item_upd',
    table: 'work_items',
    fn: `BEGIN
        IF EXISTS (${CHANGED}) THEN
          ${GAPS.map(
            (gap) => `DELETE FROM ${gap.gaps} g USING (${CHANGED}) c
           WHERE g.workspace_id = c.workspace_id AND g.work_item_id = c.work_item_id;
          ${FILL_GAPS(gap, `(${CHANGED})`)}`,
          ).join('\n          ')}
        END IF;
        RETURN NULL;
      END`,
    trigger: `AFTER UPDATE ON work_items REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT`,
  });
  return out;
}

/**
 * "Items without assignees or labels" (docs/work-items-plans.md): `assignee_id__isnull=true` / `label_id__isnull=true`
 * read their page off a narrow table of the live items that have no assignee (resp. no label), in created_at order
 * (`ix_<gaps>_list`: workspace, project, created_at, id), and their count off a per-project counter of its rows, whatever the statistics say. Before, the
 * page walked the project's items probing the link table until it found link-less ones (every item when all are
 * assigned) and the count probed every item: both cancelled at 3 s at a million items never analyzed.
 *
 * The fact is kept off `work_items` (per-item counts on it made every link write rewrite the wide item row: bulk
 * labelling 5-25x slower): statement triggers on the link tables insert or delete one narrow row when an item's first
 * link comes or its last goes, and on work_items for creates, archive, delete and restore. Link writes lock the items
 * they touch (FOR NO KEY UPDATE: no new row version, no index entry) in key order, so concurrent writes of one item's
 * links leave the fact right. A label deletion locks the label's items before the label (labels service), the order
 * of a PATCH (its item, then its labels).
 *
 * Online (`transaction = false`): the tables are new (plain indexes), the triggers keep new writes exact from their
 * creation on, then the existing items are filled BACKFILL_ITEMS at a time in key order, each batch in a transaction of
 * its own that first locks its items FOR SHARE (waiting for, and then blocking, writes of those items only), then
 * inserts with a new snapshot; then the two tables are vacuumed. Safe to run again.
 */
export class WorkItemLinkGaps1795800000000 implements MigrationInterface {
  name = 'WorkItemLinkGaps1795800000000';
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    for (const gap of GAPS) {
      await q.query(`CREATE TABLE IF NOT EXISTS "${gap.gaps}" ("workspace_id" uuid NOT NULL, "work_item_id" uuid NOT NULL,
        "project_id" uuid NOT NULL, "item_created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "PK_${gap.gaps}" PRIMARY KEY ("workspace_id", "work_item_id"))`);
      // Led by both equalities of the page: never analyzed, an index of (project_id, ...) INCLUDE (workspace_id) was
      // ANDed as a bitmap with the key's workspace range and the project's gap rows sorted (250,000: 83 ms).
      await q.query(
        `CREATE INDEX IF NOT EXISTS "ix_${gap.gaps}_list" ON "${gap.gaps}" ("workspace_id", "project_id", "item_created_at", "work_item_id")`,
      );
    }
    await q.query(`CREATE TABLE IF NOT EXISTS "work_item_gap_counts" ("project_id" uuid NOT NULL, "slot" smallint NOT NULL,
      "workspace_id" uuid NOT NULL, "unassigned" integer NOT NULL DEFAULT '0', "unlabelled" integer NOT NULL DEFAULT '0',
      CONSTRAINT "PK_work_item_gap_counts" PRIMARY KEY ("project_id", "slot", "workspace_id"))`);
    for (const t of triggers()) {
      await q.query(
        `CREATE OR REPLACE FUNCTION ${t.name}() RETURNS trigger LANGUAGE plpgsql ${PROBES_ONLY} AS $$ ${t.fn} $$`,
      );
      await q.query(`DROP TRIGGER IF EXISTS trg_${t.name.slice(3)} ON ${t.table}`);
      await q.query(`CREATE TRIGGER trg_${t.name.slice(3)} ${t.trigger} EXECUTE FUNCTION ${t.name}()`);
    }
    await backfill(q);
    // The visibility map: the page's walk is index-only only on all-visible pages. Never vacuumed (and never
    // analyzed) the planner read the project's whole range as a bitmap and sorted it (250,000 rows, 66 ms at a
    // million items) instead of walking the index for one page (620 buffers, 0.6 ms). VACUUM blocks no reads or writes.
    for (const gap of GAPS) await q.query(`VACUUM ${gap.gaps}`);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const t of triggers()) {
      await q.query(`DROP TRIGGER IF EXISTS trg_${t.name.slice(3)} ON ${t.table}`);
      await q.query(`DROP FUNCTION IF EXISTS ${t.name}()`);
    }
    for (const gap of GAPS) await q.query(`DROP TABLE IF EXISTS "${gap.gaps}"`);
    await q.query(`DROP TABLE IF EXISTS "work_item_gap_counts"`);
  }
}

/**
 * The gap rows of the items that existed before the triggers, BACKFILL_ITEMS items per batch in primary key order (a
 * keyset walk: keys never change, so an item updated meanwhile is neither missed nor seen twice; new items have theirs
 * from the trigger). A batch locks its items FOR SHARE in key order (a link statement's trigger locks them FOR NO KEY
 * UPDATE: either it committed before and the fill's new snapshot sees its links, or it waits and then finds the gap
 * row), then fills them. A deadlock with a concurrent write (which locks in its own order) rolls the batch back and
 * runs it again.
 */
async function backfill(q: QueryRunner): Promise<void> {
  let after: [string, string] | null = null;
  for (;;) {
    const batch: Array<{ workspace_id: string; id: string }> = await inTransaction(q, async () => {
      const keys: Array<{ workspace_id: string; id: string }> = await q.query(
        `SELECT w.workspace_id, w.id FROM work_items w ${after ? 'WHERE (w.workspace_id, w.id) > ($1::uuid, $2::uuid)' : ''}
          ORDER BY w.workspace_id, w.id LIMIT ${BACKFILL_ITEMS} FOR SHARE OF w`,
        after ?? [],
      );
      const named = `(SELECT * FROM unnest($1::uuid[], $2::uuid[]) AS k(workspace_id, work_item_id))`;
      const ids = [keys.map((k) => k.workspace_id), keys.map((k) => k.id)];
      for (const gap of GAPS) await q.query(FILL_GAPS(gap, named).replace(/;$/, ''), ids);
      return keys;
    });
    if (batch.length < BACKFILL_ITEMS) return;
    const last = batch[batch.length - 1];
    after = [last.workspace_id, last.id];
  }
}

/** Runs `work` in a transaction of its own, again (up to five times) when PostgreSQL broke a deadlock by ending it. */
async function inTransaction<T>(q: QueryRunner, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    await q.startTransaction();
    try {
      const out = await work();
      await q.commitTransaction();
      return out;
    } catch (e) {
      await q.rollbackTransaction();
      if ((e as { driverError?: { code?: string } }).driverError?.code !== '40P01' || attempt >= 5) throw e;
    }
  }
}
