import { createTestApp, Tenant, TestApp } from '../helpers/test-app';

/**
 * The work item table's statement triggers (link copies, counters, history) join the statement's transition tables,
 * old and new rows. One UPDATE of many items (a date or a cycle set on a project's items, a state's items moved)
 * must cost in proportion to its rows: a nested loop over the two transition tables compares every old row with
 * every new one, and the link sync trigger's EXISTS check got one (11 s at 12,000 items, 140 s at 30,000). Read with
 * auto_explain, which prints the plan of every statement the triggers run.
 */
describe('work item statement triggers on an UPDATE of many items', () => {
  const ITEMS = 2000;
  let t: TestApp;
  let ten: Tenant;
  let pid: string;

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    pid = (await t.project(ten.slug, ten.owner.key, { identifier: 'TRG' })).id;
    await t.ds.query(
      `INSERT INTO work_items (workspace_id, project_id, sequence_id, name, priority, state_id, sort_order, created_at, updated_at,
                               created_by_id, updated_by_id)
       SELECT $1, $2, g, 'Trigger item ' || g, 'none', (SELECT id FROM states WHERE project_id = $2 ORDER BY sequence LIMIT 1), g,
              now() - make_interval(secs => $3 - g), now(), $4, $4
         FROM generate_series(1, $3::int) g`,
      [ten.workspaceId, pid, ITEMS, ten.owner.id],
    );
    await t.ds.query(`UPDATE projects SET last_sequence_id = $2 WHERE id = $1`, [pid, ITEMS]);
    // Every item assigned, every other one labelled: the link rows whose copies the triggers rewrite.
    const [label] = await t.ds.query(
      `INSERT INTO labels (workspace_id, project_id, name, color, sort_order) VALUES ($1, $2, 'trigger label', '#00aaff', 1) RETURNING id`,
      [ten.workspaceId, pid],
    );
    await t.ds.query(
      `INSERT INTO work_item_assignees (work_item_id, assignee_id, workspace_id, project_id) SELECT id, $2, workspace_id, project_id FROM work_items WHERE project_id = $1`,
      [pid, ten.owner.id],
    );
    await t.ds.query(
      `INSERT INTO work_item_labels (work_item_id, label_id, workspace_id, project_id)
       SELECT id, $2, workspace_id, project_id FROM work_items WHERE project_id = $1 AND sequence_id % 2 = 0`,
      [pid, label.id],
    );
  });
  afterAll(() => t.close());

  /**
   * The plans auto_explain printed for `sql` (`UPDATE work_items ... WHERE project_id = $1`) and the statements its
   * triggers ran, in a transaction rolled back (`then` reads the transaction's state before). With `warm`, first the
   * same UPDATE of one item at a time on the same connection, as a service connection serves single-item PATCHes:
   * PL/pgSQL plans a trigger's statement without parameters once per connection, for the transition tables of its
   * first execution, and keeps that plan.
   */
  async function plansOf(
    sql: string,
    params: unknown[],
    then?: (query: (sql: string, params?: unknown[]) => Promise<any>) => Promise<void>,
    warm = false,
  ): Promise<string[]> {
    const qr = t.ds.createQueryRunner();
    const client = (await qr.connect()) as { on(e: 'notice', f: (m: { message: string }) => void): void };
    const plans: string[] = [];
    client.on('notice', (m) => plans.push(m.message));
    try {
      // The connection may have run the triggers for many rows already (an earlier test): plans start over here.
      if (warm) await qr.query('DISCARD PLANS');
      for (let k = 1; warm && k <= 7; k++) {
        await qr.startTransaction();
        await qr.query(`${sql} AND sequence_id = ${k}`, params);
        await qr.rollbackTransaction();
      }
      await qr.startTransaction();
      await qr.query(`LOAD 'auto_explain'`);
      for (const s of [
        'log_min_duration = 0',
        'log_nested_statements = on',
        'log_analyze = on',
        'log_level = notice',
      ]) {
        await qr.query(`SET LOCAL auto_explain.${s}`);
      }
      await qr.query(sql, params);
      await then?.((text, values) => qr.query(text, values));
      return plans;
    } finally {
      await qr.rollbackTransaction();
      await qr.release();
    }
  }

  const removedByJoinFilters = (plans: string[]) =>
    plans.flatMap((p) => [...p.matchAll(/Rows Removed by Join Filter: (\d+)/g)].map((m) => Number(m[1])));

  it('a date set on every item: no trigger statement compares the old rows with the new ones pairwise', async () => {
    const plans = await plansOf(`UPDATE work_items SET target_date = date '2026-01-01' WHERE project_id = $1`, [pid]);
    // The link sync check ran (the statement changed no copied column, so it had to read every row) ...
    expect(plans.some((p) => p.includes('EXCEPT SELECT o.workspace_id, o.id'))).toBe(true);
    // ... and no join discarded more rows than the statement updated (pairwise: ITEMS² = 4,000,000).
    expect(Math.max(0, ...removedByJoinFilters(plans))).toBeLessThanOrEqual(2 * ITEMS);
  });

  it("a priority change on every item: the link rows' priority copies follow, without pairwise joins", async () => {
    let copies: Array<{ rank: number; n: number }> = [];
    const plans = await plansOf(
      `UPDATE work_items SET priority = 'high' WHERE project_id = $1`,
      [pid],
      async (query) => {
        copies = await query(
          `SELECT item_priority_rank AS rank, count(*)::int AS n FROM (SELECT item_priority_rank FROM work_item_assignees WHERE project_id = $1
           UNION ALL SELECT item_priority_rank FROM work_item_labels WHERE project_id = $1) x GROUP BY 1`,
          [pid],
        );
      },
    );
    expect(plans.some((p) => /UPDATE work_item_labels x SET item_created_at/.test(p))).toBe(true);
    // Every link row now copies `high` (rank 1) ...
    expect(copies).toEqual([{ rank: 1, n: ITEMS + ITEMS / 2 }]);
    // ... and no join discarded more rows than the statement updated.
    expect(Math.max(0, ...removedByJoinFilters(plans))).toBeLessThanOrEqual(2 * ITEMS);
  });

  it('after single-item updates on the same connection, no trigger statement joins rows pairwise', async () => {
    // PL/pgSQL keeps each trigger statement's plan from the connection's first execution (one item here): the link
    // sync's statements carry no join of old to new rows (migration WorkItemLinkPriorityCopies); the counter's and
    // the history's join them with nested loops off (migration TriggerJoinsWithoutNestedLoops). Before, the history
    // and counter statements discarded ITEMS² rows after this warm-up.
    for (const sql of [
      `UPDATE work_items SET priority = 'low' WHERE project_id = $1`,
      `UPDATE work_items SET target_date = date '2026-02-01' WHERE project_id = $1`,
      `UPDATE work_items SET archived_at = now() WHERE project_id = $1`,
    ]) {
      const plans = await plansOf(sql, [pid], undefined, true);
      // The history's statement ran among them (its plan names the activity table).
      expect(plans.some((p) => /work_item_activities/.test(p))).toBe(true);
      expect({ sql, pairwise: Math.max(0, ...removedByJoinFilters(plans)) > 2 * ITEMS }).toEqual({
        sql,
        pairwise: false,
      });
    }
  });

  it("a state group change on every item: the link rows' copies follow, still without pairwise joins", async () => {
    const done = (
      await t.ds.query(`SELECT id FROM states WHERE project_id = $1 AND "group" = 'completed' LIMIT 1`, [pid])
    )[0].id;
    const plans = await plansOf(`UPDATE work_items SET state_id = $2 WHERE project_id = $1`, [pid, done]);
    expect(plans.some((p) => /UPDATE work_item_assignees x SET item_created_at/.test(p))).toBe(true);
    expect(Math.max(0, ...removedByJoinFilters(plans))).toBeLessThanOrEqual(2 * ITEMS);
  });
});
