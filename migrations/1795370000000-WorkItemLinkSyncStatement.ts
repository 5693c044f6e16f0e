import { MigrationInterface, QueryRunner } from 'typeorm';

const LINKS = ['work_item_assignees', 'work_item_labels'] as const;
const LIVE = (w: string) => `(${w}.deleted_at IS NULL AND ${w}.archived_at IS NULL)`;
/** What the link rows copy changed (migration WorkItemLinkListColumns). */
const CHANGED = `(o.state_group_rank IS DISTINCT FROM n.state_group_rank OR ${LIVE('o')} IS DISTINCT FROM ${LIVE('n')}
                  OR o.created_at IS DISTINCT FROM n.created_at)`;

/**
 * The link rows' copies of their item (created_at, state group rank, liveness) are rewritten once per statement
 * that updates work items, set-based from its transition tables, instead of by a row trigger issuing two UPDATE
 * statements per item. The link tables' counters (migration WorkItemLinkCounts) are statement triggers too: per
 * item they ran twice per changed item, and a state's group change at a million items (166,667 items, 333,334
 * links) took 15 minutes; set-based it is two statements. A statement that changes none of the copied columns
 * (a rename, a priority change) touches no link row.
 */
export class WorkItemLinkSyncStatement1795370000000 implements MigrationInterface {
  name = 'WorkItemLinkSyncStatement1795370000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER trg_work_items_link_sync ON work_items`);
    await q.query(`DROP FUNCTION wt_work_items_link_sync()`);
    await q.query(`CREATE FUNCTION wt_work_items_link_sync() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE ${CHANGED}) THEN
          ${LINKS.map(
            (
              t,
            ) => `UPDATE ${t} x SET item_created_at = n.created_at, item_state_group_rank = n.state_group_rank, item_live = ${LIVE('n')}
                      FROM new_rows n JOIN old_rows o ON o.id = n.id
                     WHERE x.work_item_id = n.id AND ${CHANGED};`,
          ).join('\n          ')}
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER trg_work_items_link_sync AFTER UPDATE ON work_items REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION wt_work_items_link_sync()`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER trg_work_items_link_sync ON work_items`);
    await q.query(`DROP FUNCTION wt_work_items_link_sync()`);
    await q.query(`CREATE FUNCTION wt_work_items_link_sync() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${LINKS.map(
          (
            t,
          ) => `UPDATE ${t} SET item_created_at = NEW.created_at, item_state_group_rank = NEW.state_group_rank, item_live = ${LIVE('NEW')}
                   WHERE work_item_id = NEW.id;`,
        ).join('\n        ')}
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER trg_work_items_link_sync AFTER UPDATE OF state_id, state_group_rank, deleted_at, archived_at, created_at ON work_items
      FOR EACH ROW WHEN (OLD.state_group_rank IS DISTINCT FROM NEW.state_group_rank
                         OR ${LIVE('OLD')} IS DISTINCT FROM ${LIVE('NEW')}
                         OR OLD.created_at IS DISTINCT FROM NEW.created_at)
      EXECUTE FUNCTION wt_work_items_link_sync()`);
  }
}
