import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexOnline, dropIndexOnline, replaceIndexOnline } from './online-index';

const LIVE = `"deleted_at" IS NULL AND "archived_at" IS NULL`;
const UNDELETED = `"deleted_at" IS NULL`;

/**
 * Issue 27 part 2 (plans that do not depend on statistics): filters of the work item list whose page, never
 * analyzed, walked the ordering's index past every item of the project (0.3-3 s at a million items) get an index
 * that reads their page in the default order (created_at, id) as one range, and their count as an index-only range:
 * - `ix_work_items_type` (project_id, type_id) becomes (project_id, type_id, created_at, id) INCLUDE (workspace_id):
 *   `type_id=` is one range, `type_id__in=` one range per type, merged (OrderDef.rangedBy);
 * - `ix_work_items_with_parent` and `ix_work_items_in_cycle`, (project_id, created_at, id) INCLUDE (workspace_id)
 *   over live items that have a parent / a cycle: `parent_id__isnull=false`, `cycle_id__isnull=false`.
 * Built CONCURRENTLY (migrations/online-index.ts): writes go on while they build.
 */
export class WorkItemFilterIndexes1795710000000 implements MigrationInterface {
  name = 'WorkItemFilterIndexes1795710000000';
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    await replaceIndexOnline(
      q,
      'ix_work_items_name_trgm',
      `"work_items" USING gin ("name" gin_trgm_ops) WHERE ${UNDELETED}`,
    );
    await replaceIndexOnline(
      q,
      'ix_work_items_type',
      `"work_items" ("project_id", "type_id", "created_at", "id") INCLUDE ("workspace_id") WHERE ${LIVE}`,
    );
    await createIndexOnline(
      q,
      'ix_work_items_with_parent',
      `"work_items" ("project_id", "created_at", "id") INCLUDE ("workspace_id") WHERE ${LIVE} AND "parent_id" IS NOT NULL`,
    );
    await createIndexOnline(
      q,
      'ix_work_items_in_cycle',
      `"work_items" ("project_id", "created_at", "id") INCLUDE ("workspace_id") WHERE ${LIVE} AND "cycle_id" IS NOT NULL`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await dropIndexOnline(q, 'ix_work_items_in_cycle');
    await dropIndexOnline(q, 'ix_work_items_with_parent');
    await replaceIndexOnline(q, 'ix_work_items_type', `"work_items" ("project_id", "type_id") WHERE ${LIVE}`);
    await replaceIndexOnline(
      q,
      'ix_work_items_name_trgm',
      `"work_items" USING gin ("name" gin_trgm_ops) WHERE ${LIVE}`,
    );
  }
}
