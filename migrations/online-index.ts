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
  'work_item_assignee_gaps',
  'work_item_label_gaps',
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

/**
 * Makes `columns` the primary key of `table` (constraint `constraint`, kept under its name) without blocking the
 * table's writes while the key's index is built: a unique index on the new columns is built CONCURRENTLY beside the
 * old key, then one `ALTER TABLE` drops the old constraint (and its index) and adopts the new index as the key
 * (`ADD CONSTRAINT ... PRIMARY KEY USING INDEX`, which renames it to the constraint). That last step holds the
 * table's ACCESS EXCLUSIVE lock, but only for a catalog change: the columns are NOT NULL already (else PostgreSQL
 * would scan the table to set them so) and nothing is built or checked under it; it waits, like any DDL, for the
 * transactions that hold the table at that moment. Safe to run again: a key that already has `columns` is left as
 * it is (a leftover `<constraint>_next` from an interrupted run is dropped), an interrupted build is started over.
 */
export async function replacePrimaryKeyOnline(
  q: QueryRunner,
  table: string,
  constraint: string,
  columns: string[],
): Promise<void> {
  const next = `${constraint.slice(0, 57)}_next`;
  const [key] = await q.query(
    `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = '"public"."${table}"'::regclass AND contype = 'p'`,
  );
  if (key?.def === `PRIMARY KEY (${columns.join(', ')})`) return dropIndexOnline(q, next);
  await createIndexOnline(q, next, `"${table}" (${columns.map((c) => `"${c}"`).join(', ')})`, true);
  await q.query(
    `ALTER TABLE "${table}" DROP CONSTRAINT IF EXISTS "${constraint}", ADD CONSTRAINT "${constraint}" PRIMARY KEY USING INDEX "${next}"`,
  );
}
