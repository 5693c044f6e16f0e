import { MigrationInterface, QueryRunner } from 'typeorm';
import { editFunction } from './function-edit';
import { COMPOSITE_KEYED_TENANT_TABLES, ID_KEYED_TENANT_TABLES } from './1795640000000-DistributionReadyKeys';

/**
 * Issue 25, part 3: the plain `ix_<table>_by_id` / `ix_<table>_by_key` indexes that DistributionReadyKeys kept for
 * lookups without `workspace_id` go where no statement needs them any more: every statement on these tables names
 * its workspace, so the (workspace_id, id) primary key (or the (workspace_id, ...) key) answers it. The triggers
 * that still looked rows up by id alone are rewritten to name the workspace first (the state rank of a work item,
 * the link rows' copy of their item and its statement-level sync), and the sequence increment gets a variant that
 * takes the workspace. What stays, and why: docs/scaling.md ("The plain ix_<table>_by_id indexes"): the indexes of
 * work_items (the history triggers join link rows to their item by id alone) and projects (the one-argument
 * wt_next_work_item_sequence, kept for instances of the previous release during a rolling upgrade).
 */

/** The ID-keyed tables whose `ix_<table>_by_id` stays (why: above). */
const KEPT_BY_ID = ['work_items', 'projects'];

/** ID-keyed tables whose `ix_<table>_by_id` goes: all but the kept ones. */
export const DROPPED_BY_ID = ID_KEYED_TENANT_TABLES.filter((t) => !KEPT_BY_ID.includes(t));

/** Tables keyed by other columns whose `ix_<table>_by_key` goes: every one DistributionReadyKeys made (the link tables). */
export const DROPPED_BY_KEY = Object.keys(COMPOSITE_KEYED_TENANT_TABLES).filter((t) => !t.endsWith('_counts'));

/** Trigger functions' lookups by id alone, and the same lookups with the row's workspace named first. */
const FUNCTION_EDITS: Array<{ fn: string; from: string; to: string }> = [
  {
    fn: 'wt_work_items_state_rank',
    from: 'WHERE s.id = NEW.state_id',
    to: 'WHERE s.workspace_id = NEW.workspace_id AND s.id = NEW.state_id',
  },
  {
    fn: 'wt_work_item_link_copy',
    from: 'WHERE w.id = NEW.work_item_id',
    to: 'WHERE w.workspace_id = NEW.workspace_id AND w.id = NEW.work_item_id',
  },
  {
    fn: 'wt_work_items_link_sync',
    from: 'WHERE x.work_item_id = n.id',
    to: 'WHERE x.workspace_id = n.workspace_id AND x.work_item_id = n.id',
  },
];

export class DropPlainIdIndexes1795670000000 implements MigrationInterface {
  name = 'DropPlainIdIndexes1795670000000';

  public async up(q: QueryRunner): Promise<void> {
    for (const e of FUNCTION_EDITS) await editFunction(q, e.fn, e.from, e.to);
    await q.query(`CREATE FUNCTION wt_next_work_item_sequence(ws uuid, p uuid) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        n integer;
      BEGIN
        PERFORM set_config('synchronous_commit', 'off', true);
        UPDATE projects SET last_sequence_id = last_sequence_id + 1 WHERE workspace_id = ws AND id = p
          RETURNING last_sequence_id INTO n;
        RETURN n;
      END $$`);
    for (const t of DROPPED_BY_ID) await q.query(`DROP INDEX "ix_${t}_by_id"`);
    for (const t of DROPPED_BY_KEY) await q.query(`DROP INDEX "ix_${t}_by_key"`);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const t of DROPPED_BY_KEY) {
      await q.query(`CREATE INDEX "ix_${t}_by_key" ON "${t}" (${COMPOSITE_KEYED_TENANT_TABLES[t].join(', ')})`);
    }
    for (const t of DROPPED_BY_ID) await q.query(`CREATE INDEX "ix_${t}_by_id" ON "${t}" ("id")`);
    await q.query(`DROP FUNCTION wt_next_work_item_sequence(uuid, uuid)`);
    for (const e of FUNCTION_EDITS) await editFunction(q, e.fn, e.to, e.from);
  }
}
