import { MigrationInterface, QueryRunner } from 'typeorm';
import { replaceIndexOnline } from './online-index';

/** The live-item condition the workspace-wide list states on purpose (src/work-items: WORKSPACE_INDEXES_OPT_IN). */
const OPT_IN = `("deleted_at" IS NULL AND "archived_at" IS NULL) IS TRUE`;
const LIVE = `"deleted_at" IS NULL AND "archived_at" IS NULL`;

/** Both workspace indexes, same columns, under `predicate`. */
async function rebuildWhere(q: QueryRunner, predicate: string): Promise<void> {
  for (const key of ['created_at', 'updated_at'])
    await replaceIndexOnline(
      q,
      `ix_work_items_ws_${key.replace('_at', '')}`,
      `"work_items" ("workspace_id", "${key}", "id") WHERE ${predicate}`,
    );
}

/**
 * Issue 27 (a list's cost bounded by its page whatever the statistics say): the workspace-wide list's indexes,
 * `ix_work_items_ws_created` and `ix_work_items_ws_updated` (workspace_id, key, id), also served a project's list,
 * whose statements equate the workspace for tenant scoping. Their first column follows the heap order (workspace
 * correlation near 1.0), so PostgreSQL often costed walking the whole workspace in created_at order, dropping other
 * projects' items, below reading the project's own range of `ix_work_items_created`. For the project that holds
 * most of the workspace that walk is short; a generic plan made so is used for every project, and for a new or
 * small project it passes every item of the workspace: page 1 of an empty project took 0.3 s (`state_group=`
 * 0.8 s) over 1,182,000 entries at a million items (docs/work-items-plans.md, "A project's list never walks the
 * workspace").
 *
 * Both indexes now hold the same rows under a predicate written differently: PostgreSQL uses a partial index only for
 * a statement whose conditions imply its predicate, and it proves `(a AND b) IS TRUE` only from that same expression,
 * not from `a AND b`. The workspace-wide list states it; a project's list does not, so its plans can only read
 * project-led indexes. The expression is estimated as its inner conditions are, so the workspace list's plans keep
 * their estimates.
 *
 * Online (`transaction = false`): each index is built beside the old one, which serves until the new one is valid.
 * Safe to run again.
 */
export class WorkspaceIndexesOptIn1795880000000 implements MigrationInterface {
  name = 'WorkspaceIndexesOptIn1795880000000';
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    await rebuildWhere(q, OPT_IN);
  }

  public async down(q: QueryRunner): Promise<void> {
    await rebuildWhere(q, LIVE);
  }
}
