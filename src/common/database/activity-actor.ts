import { Queryable } from '../pagination/sql-params';

/**
 * Names the user the work item history triggers record as the actor of this transaction's changes
 * (`wt.actor_id`, transaction-local: it ends with the transaction, so a pooled connection never carries it to
 * another request). Writes whose rows name their author (work item create and PATCH stamp updated_by_id) need
 * not call it; writes that do not (cycle or module membership, comment edits, relation removals) call it once,
 * inside their transaction, before the change.
 */
export async function setActivityActor(db: Queryable, userId: string): Promise<void> {
  await db.query(`SELECT set_config('wt.actor_id', $1, true)`, [userId]);
}
