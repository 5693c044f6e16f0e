import { MigrationInterface, QueryRunner } from 'typeorm';

const LINKS = ['work_item_assignees', 'work_item_labels'] as const;
const LIVE = (w: string) => `(${w}.deleted_at IS NULL AND ${w}.archived_at IS NULL)`;
/** What the link rows copy changed (migration WorkItemLinkListColumns). */
const CHANGED = `(o.state_group_rank IS DISTINCT FROM n.state_group_rank OR ${LIVE('o')} IS DISTINCT FROM ${LIVE('n')}
                  OR o.created_at IS DISTINCT FROM n.created_at)`;

/** The link sync statement trigger's function, its check being `check` (of the statement's changed rows). */
const linkSync = (
  check: string,
) => `CREATE OR REPLACE FUNCTION wt_work_items_link_sync() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF ${check} THEN
          ${LINKS.map(
            (
              t,
            ) => `UPDATE ${t} x SET item_created_at = n.created_at, item_state_group_rank = n.state_group_rank, item_live = ${LIVE('n')}
                      FROM new_rows n JOIN old_rows o ON o.id = n.id
                     WHERE x.workspace_id = n.workspace_id AND x.work_item_id = n.id AND ${CHANGED};`,
          ).join('\n          ')}
        END IF;
        RETURN NULL;
      END $$`;

/**
 * The link sync trigger (migration WorkItemLinkSyncStatement) asked `EXISTS (changed row)` before rewriting the
 * link rows' copies. For EXISTS the planner expects an early match and joins the statement's two transition tables
 * with a nested loop; when no row changed a copied column (a date, a name, a cycle set on many items) nothing
 * matches and every old row is compared with every new one: N² (144 million comparisons, 11 s, for one UPDATE of
 * 12,000 items; 140 s at 30,000). Counting the changed rows has no early exit to expect, so the join is hashed:
 * 7 ms for the same 12,000. One row (a PATCH) costs the same either way.
 */
export class LinkSyncCheckWithoutEarlyExit1795730000000 implements MigrationInterface {
  name = 'LinkSyncCheckWithoutEarlyExit1795730000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(linkSync(`(SELECT count(*) FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE ${CHANGED}) > 0`));
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(linkSync(`EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE ${CHANGED})`));
  }
}
