import { MigrationInterface, QueryRunner } from 'typeorm';
import { editFunction } from './function-edit';

/** The statement triggers that upsert counter rows, each into the slot it names. */
const COUNTER_TRIGGER_FUNCTIONS = [
  'wt_work_items_count',
  'wt_work_items_count_ins',
  'wt_work_items_count_del',
  'wt_work_items_spc_ins',
  'wt_work_items_spc_upd',
  'wt_work_items_spc_del',
  'wt_work_item_assignee_counts_ins',
  'wt_work_item_assignee_counts_upd',
  'wt_work_item_assignee_counts_del',
  'wt_work_item_label_counts_ins',
  'wt_work_item_label_counts_upd',
  'wt_work_item_label_counts_del',
  'wt_work_item_assignee_gaps_count_ins',
  'wt_work_item_assignee_gaps_count_del',
  'wt_work_item_label_gaps_count_ins',
  'wt_work_item_label_gaps_count_del',
];

/** The slot every counter trigger used before: the backend's, so two backends could share one. */
const BACKEND_SLOT = 'pg_backend_pid() % 16';

/** Slots a transaction can lease without waiting; more concurrent writers than this wait for one. */
export const COUNTER_SLOTS = 64;

/** The first key of the slots' advisory locks (two-key form, a space of its own: "WT" and 1). */
const COUNTER_SLOT_LOCK_CLASS = 0x57540001;

/**
 * Counter rows (`project_work_item_counts`, `work_item_state_priority_counts`, `work_item_<link>_counts`,
 * `work_item_gap_counts`) are spread over slots so that concurrent writers do not queue on one row. The slot was the
 * backend's (`pg_backend_pid() % 16`), so two connections whose process ids matched modulo 16 shared rows: the
 * second writer waited for the first one's commit, and two writes that upsert rows of several counter tables in
 * different orders (an item's deletion: assignees' counters, then labels'; a PATCH of its link sets: the order its
 * triggers fire in) deadlocked, costing deadlock_timeout (1 s) and a retry or a 409 (docs/work-items-plans.md,
 * "What to change next" 9).
 *
 * Now a transaction leases a slot for its duration: `wt_counter_slot()` takes the lowest slot whose transaction
 * advisory lock it can get without waiting, and remembers it for the rest of the transaction (a transaction-local
 * setting; a trigger that runs with settings of its own forgets it at its end and leases again, getting the same or
 * another free slot, never one held by another transaction). Two transactions in progress never share a counter
 * row, so their counter upserts neither wait nor deadlock; slots are taken lowest first, so a key has about as many
 * rows as the most writers it ever had at once. Only with all COUNTER_SLOTS leased does a writer wait, for the
 * slot of its backend. Readers sum a key's rows whatever their slots; rows written before stay valid.
 */
export class CounterSlotLeases1795850000000 implements MigrationInterface {
  name = 'CounterSlotLeases1795850000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION wt_counter_slot() RETURNS smallint LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        held text := current_setting('wt.counter_slot', true);
        slot smallint;
      BEGIN
        IF held <> '' THEN
          RETURN held::smallint;
        END IF;
        FOR s IN 0..${COUNTER_SLOTS - 1} LOOP
          IF pg_try_advisory_xact_lock(${COUNTER_SLOT_LOCK_CLASS}, s) THEN
            PERFORM set_config('wt.counter_slot', s::text, true);
            RETURN s;
          END IF;
        END LOOP;
        slot := pg_backend_pid() % ${COUNTER_SLOTS};
        PERFORM pg_advisory_xact_lock(${COUNTER_SLOT_LOCK_CLASS}, slot);
        PERFORM set_config('wt.counter_slot', slot::text, true);
        RETURN slot;
      END $$`);
    for (const fn of COUNTER_TRIGGER_FUNCTIONS) await editFunction(q, fn, BACKEND_SLOT, 'wt_counter_slot()');
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const fn of COUNTER_TRIGGER_FUNCTIONS) await editFunction(q, fn, 'wt_counter_slot()', BACKEND_SLOT);
    await q.query(`DROP FUNCTION wt_counter_slot()`);
  }
}
