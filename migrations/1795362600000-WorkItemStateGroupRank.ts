import { MigrationInterface, QueryRunner } from 'typeorm';

/** State group rank by meaning (backlog 0 … cancelled 4, triage 5), the `state_group` ordering's key. */
const RANK = `CASE s."group" WHEN 'backlog' THEN 0 WHEN 'unstarted' THEN 1 WHEN 'started' THEN 2
  WHEN 'completed' THEN 3 WHEN 'cancelled' THEN 4 ELSE 5 END`;

/**
 * `work_items.state_group_rank`: the group of the item's state, by meaning, kept by triggers (set from
 * the state on insert and on a state change; rewritten for a state's items when its group changes), so
 * `order_by=state_group` walks an index instead of sorting every live row of the project.
 */
export class WorkItemStateGroupRank1795362600000 implements MigrationInterface {
  name = 'WorkItemStateGroupRank1795362600000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "work_items" ADD "state_group_rank" smallint NOT NULL DEFAULT '0'`);
    await q.query(`UPDATE work_items w SET state_group_rank = ${RANK} FROM states s WHERE s.id = w.state_id`);
    await q.query(
      `CREATE INDEX "ix_work_items_state_group" ON "work_items" ("project_id", "state_group_rank", "id") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
    await q.query(`CREATE FUNCTION wt_work_items_state_rank() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        SELECT ${RANK} INTO NEW.state_group_rank FROM states s WHERE s.id = NEW.state_id;
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER trg_work_items_state_rank BEFORE INSERT OR UPDATE OF state_id ON work_items
      FOR EACH ROW EXECUTE FUNCTION wt_work_items_state_rank()`);
    await q.query(`CREATE FUNCTION wt_states_group_rank() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE work_items w SET state_group_rank = ${RANK.replace(/s\."group"/g, 'NEW."group"')}
         WHERE w.workspace_id = NEW.workspace_id AND w.project_id = NEW.project_id AND w.state_id = NEW.id;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER trg_states_group_rank AFTER UPDATE OF "group" ON states
      FOR EACH ROW WHEN (OLD."group" IS DISTINCT FROM NEW."group") EXECUTE FUNCTION wt_states_group_rank()`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER trg_states_group_rank ON states`);
    await q.query(`DROP FUNCTION wt_states_group_rank()`);
    await q.query(`DROP TRIGGER trg_work_items_state_rank ON work_items`);
    await q.query(`DROP FUNCTION wt_work_items_state_rank()`);
    await q.query(`DROP INDEX "public"."ix_work_items_state_group"`);
    await q.query(`ALTER TABLE "work_items" DROP COLUMN "state_group_rank"`);
  }
}
