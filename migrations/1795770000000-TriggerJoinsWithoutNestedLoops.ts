import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Statement triggers whose only join is the statement's old rows to its new rows, by id (the project counter's and
 * the history triggers': work items, comments, links).
 */
const PAIRING_TRIGGERS = [
  'wt_work_items_count',
  'wt_activity_work_item_upd',
  'wt_activity_comment_upd',
  'wt_activity_link_upd',
];

/**
 * PL/pgSQL plans a statement without parameters once per connection and keeps the plan, sized for the transition
 * tables of its first execution. A service connection's first UPDATE of work items is usually one item (a PATCH),
 * so these triggers kept a nested loop joining old rows to new rows; a later UPDATE of thousands of items on that
 * connection (a bulk update, a state's group changed, a cycle or label deleted) then compared every old row with
 * every new one: 3,000 items 9.5-12.4 s instead of 1.8 s, 30,000 items over 4 minutes (found with auto_explain while
 * building WorkItemLinkPriorityCopies, which rewrote the link sync trigger without the join).
 *
 * With nested loops off for these functions (a setting the function carries, in effect while its statements are
 * planned), that join is hashed or merged whatever the first execution's size: one row costs the same, many rows
 * cost in proportion. Only these four: their statements join no table, so nothing else loses an index probe. JIT
 * off as well: the history statement's LATERAL VALUES needs a nested loop anyway, and PostgreSQL before 16 prices a
 * disabled node at 10^10, far above jit_above_cost, so each single-item update JIT-compiled it (0.5-1.3 s). A later
 * `CREATE OR REPLACE FUNCTION` of one of them drops the setting unless it repeats it; the statement trigger test
 * (test/e2e/work-item-statement-triggers.spec.ts, "after single-item updates") catches that for work items.
 */
export class TriggerJoinsWithoutNestedLoops1795770000000 implements MigrationInterface {
  name = 'TriggerJoinsWithoutNestedLoops1795770000000';

  public async up(q: QueryRunner): Promise<void> {
    for (const fn of PAIRING_TRIGGERS) {
      await q.query(`ALTER FUNCTION ${fn}() SET enable_nestloop = off`);
      await q.query(`ALTER FUNCTION ${fn}() SET jit = off`);
    }
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const fn of PAIRING_TRIGGERS) {
      await q.query(`ALTER FUNCTION ${fn}() RESET enable_nestloop`);
      await q.query(`ALTER FUNCTION ${fn}() RESET jit`);
    }
  }
}
