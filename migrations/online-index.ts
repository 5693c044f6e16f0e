import { QueryRunner } from 'typeorm';

/**
 * Index changes on the tables that grow with the data, made without blocking their writes: `CREATE INDEX` holds
 * a lock that stops every INSERT, UPDATE and DELETE of the table until the index is built (minutes at millions of
 * work items, during an upgrade that old instances keep serving), `CREATE INDEX CONCURRENTLY` does not.
 *
 * CONCURRENTLY cannot run inside a transaction, so a migration that uses these helpers declares
 * `transaction = false`: each statement then commits on its own, and a run interrupted halfway (a build that
 * failed leaves its index INVALID) must be safe to run again, which every helper here is. The rule is checked:
 * test/unit/recipe.spec.ts refuses a blocking index change on one of LARGE_TABLES in a migration from
 * ONLINE_INDEX_SINCE on (docs/extending.md, "Indexes on large tables").
 */
export const LARGE_TABLES = [
  'work_items',
  'work_item_assignees',
  'work_item_labels',
  'module_work_items',
  'work_item_comments',
  'work_item_activities',
  'work_item_links',
  'work_item_relations',
  'audit_logs',
  'webhook_events',
  'webhook_deliveries',
  'webhook_logs',
  'idempotency_keys',
];

/** The first migration the rule applies to (earlier ones ran before it existed and stay as they ran). */
export const ONLINE_INDEX_SINCE = 1795660000000;

/** Builds index `name` ON `definition` (e.g. `"work_items" ("project_id", "id") WHERE ...`) without blocking writes. */
export async function createIndexOnline(
  q: QueryRunner,
  name: string,
  definition: string,
  unique = false,
): Promise<void> {
  // A build an earlier run began and did not finish left an INVALID index of this name: start over.
  await dropIndexOnline(q, name);
  await q.query(`CREATE ${unique ? 'UNIQUE ' : ''}INDEX CONCURRENTLY "${name}" ON ${definition}`);
}

/** Drops index `name` (when it exists) without blocking the table's reads or writes. */
export async function dropIndexOnline(q: QueryRunner, name: string): Promise<void> {
  await q.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."${name}"`);
}

/**
 * Replaces index `name` by one ON `definition` under the same name: the new one is built beside the old, which
 * serves the queries until the new one is valid, then the old goes and the new takes its name.
 */
export async function replaceIndexOnline(q: QueryRunner, name: string, definition: string): Promise<void> {
  const next = `${name.slice(0, 57)}_next`;
  await createIndexOnline(q, next, definition);
  await dropIndexOnline(q, name);
  await q.query(`ALTER INDEX "public"."${next}" RENAME TO "${name}"`);
}
