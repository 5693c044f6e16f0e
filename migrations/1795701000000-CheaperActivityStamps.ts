import { MigrationInterface, QueryRunner } from 'typeorm';
import { STAMP, TRIGGERS } from './1795510000000-WorkItemLinksRelationsHistory';
import { fn, timeOrdered, UUID_V7 } from './1795665000000-ActivityTimeOrderedIds';
import { BY_ID, BY_WORKSPACE } from './1795680000000-HistoryTriggersNameWorkspace';

/**
 * Issue 18 (cost of the history on the write paths): cheaper stamps per history entry, the same values.
 *
 * - The transaction's epoch (ms), its id and the `wt.actor_id` setting are the same for every entry of a
 *   statement; each trigger computed them per entry (a numeric `extract`, a text round trip of the xid, a setting
 *   parsed as a uuid). They are now uncorrelated scalar subqueries, which PostgreSQL evaluates once per statement
 *   (an InitPlan). The clock is still read per entry (`clock_timestamp()`: entries of one statement in order).
 * - `wt_uuid_v7(ts)` keeps its layout (RFC 9562 version 7: Unix ms, the microsecond within it in 12 bits, 62
 *   random bits) and its timestamp bits exactly, but reads the time as one float `date_part` (exact to the
 *   microsecond: PostgreSQL divides the int64 microseconds by 10^6 in double precision, and rounding the product
 *   back gives the integer again) instead of two numeric `extract`s, and takes the random bits from `random()`
 *   (PostgreSQL's per-backend PRNG, seeded from the system's strong random source when the backend starts) instead
 *   of `gen_random_uuid()`'s cryptographic generator (31 bits from each of two draws: one draw carries 52 random
 *   bits, too few for the 62; the variant bits `10` above them). An entry id is not a secret, and what keeps two
 *   ids apart is the same as before: their microsecond and 62 random bits. (The key (workspace_id, work_item_id,
 *   created_at, id) of ActivityEntryOneIndex refuses a repeat within one work item; two entries of different
 *   items would share an id only with the same microsecond and all 62 bits, about one in 4.6 * 10^18 per pair.)
 *
 * Measured with `npm run bench:history -- --statements 2000 --compare-before`
 * (docs/work-item-links-relations-history.md, "Cost on the write paths").
 */
const SETTING = `NULLIF(current_setting('wt.actor_id', true), '')::uuid`;
const STAMP_ONCE = `(SELECT (extract(epoch FROM now()) * 1000)::bigint), (SELECT pg_current_xact_id()::text::bigint), clock_timestamp()`;

export const UUID_V7_FAST = `CREATE OR REPLACE FUNCTION wt_uuid_v7(ts timestamptz) RETURNS uuid LANGUAGE sql VOLATILE PARALLEL RESTRICTED AS $$
  SELECT encode(
    int8send(((round(date_part('epoch', ts) * 1000000)::bigint / 1000) << 16) | 28672
             | (round(date_part('epoch', ts) * 1000000)::bigint % 1000 * 4096 / 1000))
    || int8send(-9223372036854775808 | (floor(random() * 2147483648)::bigint << 31) | floor(random() * 2147483648)::bigint),
    'hex')::uuid
$$`;

const count = (s: string, part: string) => s.split(part).length - 1;

/** Each history trigger: its function name, its body as HistoryTriggersNameWorkspace left it, and the cheaper one. */
export const STAMPED = TRIGGERS.map(([, name, , body]) => {
  const was = timeOrdered(body.replace(BY_ID, BY_WORKSPACE));
  if (count(was, STAMP) !== 1 || count(was, SETTING) !== 1) throw new Error(`unexpected history body of ${name}`);
  return { name, was, now: was.replace(STAMP, STAMP_ONCE).replace(SETTING, `(SELECT ${SETTING})`) };
});

export class CheaperActivityStamps1795701000000 implements MigrationInterface {
  name = 'CheaperActivityStamps1795701000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(UUID_V7_FAST);
    for (const t of STAMPED) await q.query(fn(t.name, t.now));
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const t of STAMPED) await q.query(fn(t.name, t.was));
    await q.query(UUID_V7);
  }
}
