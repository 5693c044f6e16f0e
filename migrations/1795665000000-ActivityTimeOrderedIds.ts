import { MigrationInterface, QueryRunner } from 'typeorm';
import { COLS, STAMP, TRIGGERS } from './1795510000000-WorkItemLinksRelationsHistory';

/**
 * Issue 18 (cost of the history on the write paths): time-ordered history entry ids. A random UUID put every
 * entry's primary key entry `(workspace_id, id)` in a random leaf page, so each write dirtied another page (and
 * after a checkpoint logged a full-page image of it). `wt_uuid_v7(ts)` is a version 7 UUID (RFC 9562) of `ts`:
 * 48 bits of Unix milliseconds, then, in the 12 bits RFC 9562 lets a generator spend on clock precision (its
 * "method 3"), the microseconds within the millisecond scaled to 0..4095, then 62 random bits. PostgreSQL 15 has
 * no uuidv7(), and PostgreSQL 18's takes no timestamp, so it is built here from gen_random_uuid()'s bytes.
 *
 * Each history trigger now reads the clock once per entry and derives both `created_at` and `id` from that
 * reading. The prefix is a strictly increasing function of the microsecond, so among entries written from now on
 * `id` order is `(created_at, id)` order (equal microseconds fall back to the random bits, as `id` breaks
 * `created_at` ties): `order_by=id` lists a history in creation order, and the primary key appends at its right
 * edge. Other writers (an operator's INSERT) get `wt_uuid_v7(now())`, paired with created_at's `now()` default.
 * Entries written before this migration keep their random ids.
 */
const NAMES = COLS.replace(/[()\s]/g, '').split(',');
/** The column types of NAMES: the rewritten SELECT's untyped NULLs leave a subquery as text, so each is cast. */
const TYPES = [
  'uuid',
  'uuid',
  'uuid',
  'varchar',
  'varchar',
  'text',
  'text',
  'uuid',
  'uuid',
  'uuid',
  'uuid',
  'bigint',
  'bigint',
  'timestamptz',
];

export const UUID_V7 = `CREATE OR REPLACE FUNCTION wt_uuid_v7(ts timestamptz) RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(
    int8send((floor(extract(epoch FROM ts) * 1000)::bigint << 16) | 28672
             | (floor(extract(epoch FROM ts) * 1000000)::bigint % 1000 * 4096 / 1000))
    || substring(uuid_send(gen_random_uuid()) FROM 9), 'hex')::uuid
$$`;

/**
 * A trigger body of WorkItemLinksRelationsHistory with `id` added: its SELECT (whose STAMP ends in the one
 * clock_timestamp() reading, evaluated after its ORDER BY, so in entry order) becomes a subquery, and the id is
 * wt_uuid_v7 of that reading. The subquery is not flattened (volatile target list, ORDER BY), so the clock is read once.
 */
export function timeOrdered(body: string): string {
  const head = `INSERT INTO work_item_activities ${COLS}`;
  if (NAMES.length !== TYPES.length || NAMES[NAMES.length - 1] !== 'created_at')
    throw new Error('history columns changed');
  if (!body.includes(head) || !body.includes(STAMP)) throw new Error(`not a history trigger body: ${body}`);
  const select = body.slice(body.indexOf(head) + head.length);
  const typed = NAMES.map((n, i) => `s.${n}::${TYPES[i]}`).join(', ');
  return `INSERT INTO work_item_activities (${NAMES.join(', ')}, id)
  SELECT ${typed}, wt_uuid_v7(s.created_at) FROM (${select}) s(${NAMES.join(', ')})`;
}

/** A history trigger's function with `body` (exported for the later migrations that rewrite the bodies). */
export const fn = (name: string, body: string) =>
  `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body}; RETURN NULL; END $$`;

export class ActivityTimeOrderedIds1795665000000 implements MigrationInterface {
  name = 'ActivityTimeOrderedIds1795665000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(UUID_V7);
    for (const [, name, , body] of TRIGGERS) await q.query(fn(name, timeOrdered(body)));
    await q.query(`ALTER TABLE "work_item_activities" ALTER COLUMN "id" SET DEFAULT wt_uuid_v7(now())`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "work_item_activities" ALTER COLUMN "id" SET DEFAULT gen_random_uuid()`);
    for (const [, name, , body] of TRIGGERS) await q.query(fn(name, body));
    await q.query(`DROP FUNCTION wt_uuid_v7(timestamptz)`);
  }
}
