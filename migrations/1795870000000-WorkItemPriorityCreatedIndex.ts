import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexOnline, dropIndexOnline } from './online-index';

/** The priority's rank, urgent first: the list's PRIORITY_RANK, the key of ix_work_items_priority. */
const RANK = `(CASE "priority" WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END)`;

/**
 * Issue 27 (plans that follow a guessed match size): `priority=` and `priority__in=` in the default newest-first order
 * had no index holding both the rank and created_at. A plan either walked `ix_work_items_created` until it found the
 * page (bounded by the priority's density among the newest items) or read every item of the priority off
 * `ix_work_items_priority` (project, rank, id) and sorted them. Under the statistics of a workspace of many projects,
 * where any one (project, priority) is guessed small, PostgreSQL chose the second: 0.6 s per page for one priority and
 * 1.1 s for two at a million items (docs/work-items-plans.md). This index makes each priority one range in the page's
 * order, as `ix_work_items_state_group_created` does for a state group; `ix_work_items_priority` stays for
 * `order_by=priority`, whose tiebreak is the id.
 *
 * Its predicate holds for every live item (the rank is never null) but only a condition on the rank implies it: the
 * index serves only the statements that state a priority. Without it, on tables never analyzed (every project-led
 * index then guessed at one row, costs tied), the newest index won the ties of every statement over a project's items
 * (a count of items with a parent read all of the project's instead of `ix_work_items_with_parent`'s).
 *
 * Online (`transaction = false`): built CONCURRENTLY, so the items stay writable during the build. Safe to run again.
 */
export class WorkItemPriorityCreatedIndex1795870000000 implements MigrationInterface {
  name = 'WorkItemPriorityCreatedIndex1795870000000';
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    await createIndexOnline(
      q,
      'ix_work_items_priority_created',
      `"work_items" ("project_id", ${RANK}, "created_at", "id") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL AND ${RANK} IS NOT NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await dropIndexOnline(q, 'ix_work_items_priority_created');
  }
}
