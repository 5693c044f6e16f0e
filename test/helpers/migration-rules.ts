import { LARGE_TABLES } from '../../migrations/online-index';

/**
 * The index changes of a migration's source that block writes to one of LARGE_TABLES (migrations/online-index.ts):
 * a plain `CREATE [UNIQUE] INDEX ... ON <large table>` (unless the migration creates that table itself: a new table
 * is empty), a plain `DROP INDEX` of an `ix_`/`uq_<large table>_...` index, an index statement whose table or name
 * is computed (`${...}`, which cannot be told apart), a primary key or unique constraint added by its columns, and
 * CONCURRENTLY in a migration that runs in a transaction.
 */
export function blockingIndexChanges(source: string): string[] {
  const found: string[] = [];
  const createdTables = new Set([...source.matchAll(/CREATE TABLE\s+"?(\w+)"?/g)].map((m) => m[1]));
  const large = (table: string) => LARGE_TABLES.includes(table) && !createdTables.has(table);
  const create =
    /CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?!CONCURRENTLY)(?:IF NOT EXISTS\s+)?("?[\w${}]+"?)\s+ON\s+"?([\w${}]+)"?/g;
  for (const m of source.matchAll(create)) {
    if (m[2].includes('${') || large(m[2])) found.push(m[0]);
  }
  const drop = /DROP\s+INDEX\s+(?!CONCURRENTLY)(?:IF EXISTS\s+)?(?:"public"\.)?"?([\w${}]+)"?/g;
  for (const m of source.matchAll(drop)) {
    const name = m[1];
    const ofLarge = LARGE_TABLES.some((t) => name.startsWith(`ix_${t}_`) || name.startsWith(`uq_${t}_`));
    if (name.includes('${') || ofLarge) found.push(m[0]);
  }
  // A primary key or unique constraint added by its columns builds its index under the table's lock (adopting a
  // built one, `... PRIMARY KEY USING INDEX`, as replacePrimaryKeyOnline does, is not a build).
  const constraint =
    /ALTER TABLE\s+(?:ONLY\s+)?"?([\w${}]+)"?[^;`]*?\bADD\s+(?:CONSTRAINT\s+"?[\w${}]+"?\s+)?(?:PRIMARY KEY|UNIQUE)\s*\(/g;
  for (const m of source.matchAll(constraint)) {
    if (m[1].includes('${') || large(m[1])) found.push(m[0]);
  }
  if (/CONCURRENTLY|IndexOnline\(|KeyOnline\(/.test(source) && !/\btransaction\s*=\s*false\b/.test(source)) {
    found.push('CONCURRENTLY without `transaction = false`');
  }
  return found;
}
