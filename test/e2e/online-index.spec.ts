import { Client } from 'pg';
import type { QueryRunner } from 'typeorm';
import { createIndexOnline, replaceIndexOnline, replacePrimaryKeyOnline } from '../../migrations/online-index';
import { createTestDatabase } from '../helpers/database';

/** migrations/online-index.ts on real PostgreSQL: builds that leave no lock behind and can be run again. */
describe('online index changes (migrations)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let c: Client;
  let q: QueryRunner;
  const index = async (name: string) =>
    (
      await c.query(
        `SELECT i.indisvalid AS valid, i.indisunique AS unique, pg_get_indexdef(i.indexrelid) AS def
           FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid WHERE x.relname = $1`,
        [name],
      )
    ).rows[0];

  beforeAll(async () => {
    db = await createTestDatabase();
    c = new Client({ connectionString: db.url });
    await c.connect();
    q = { query: (text: string) => c.query(text).then((r) => r.rows) } as unknown as QueryRunner;
    await c.query('CREATE TABLE probe (a int NOT NULL)');
    await c.query('INSERT INTO probe SELECT g % 10 FROM generate_series(1, 1000) g');
  });
  afterAll(async () => {
    await c?.end();
    await db?.drop();
  });

  it('a build an earlier run left INVALID is built again', async () => {
    // A unique build over duplicates fails the way an interrupted one does: the index stays, INVALID.
    await expect(c.query('CREATE UNIQUE INDEX CONCURRENTLY ix_probe_a ON probe (a)')).rejects.toThrow(
      /could not create unique index/,
    );
    expect(await index('ix_probe_a')).toMatchObject({ valid: false });
    await createIndexOnline(q, 'ix_probe_a', 'probe (a)');
    expect(await index('ix_probe_a')).toMatchObject({ valid: true, unique: false });
  });

  it('a replaced index keeps its name and gets the new definition, also when run twice', async () => {
    for (let run = 0; run < 2; run++) {
      await replaceIndexOnline(q, 'ix_probe_a', 'probe (a) WHERE a > 0');
      expect(await index('ix_probe_a')).toMatchObject({ valid: true });
      expect((await index('ix_probe_a')).def).toContain('WHERE (a > 0)');
      expect(await index('ix_probe_a_next')).toBeUndefined();
    }
  });

  it('a replaced primary key keeps its constraint name, adopts the built index, and is left alone when run again', async () => {
    await c.query(
      'CREATE TABLE keyed (w int NOT NULL, i int NOT NULL, at int NOT NULL, CONSTRAINT "PK_keyed" PRIMARY KEY (w, i))',
    );
    await c.query('INSERT INTO keyed SELECT g % 3, g, g % 7 FROM generate_series(1, 500) g');
    const key = async () =>
      (
        await c.query(
          `SELECT conname, pg_get_constraintdef(oid) AS def, conindid::regclass::text AS index
             FROM pg_constraint WHERE conrelid = 'keyed'::regclass AND contype = 'p'`,
        )
      ).rows;
    // An earlier run interrupted after its build left the new index behind, unused.
    await c.query('CREATE UNIQUE INDEX "PK_keyed_next" ON keyed (w, at, i)');
    for (let run = 0; run < 2; run++) {
      await replacePrimaryKeyOnline(q, 'keyed', 'PK_keyed', ['w', 'at', 'i']);
      expect(await key()).toEqual([{ conname: 'PK_keyed', def: 'PRIMARY KEY (w, at, i)', index: '"PK_keyed"' }]);
      expect(await index('PK_keyed_next')).toBeUndefined();
      expect(
        (await c.query(`SELECT count(*)::int AS n FROM pg_index WHERE indrelid = 'keyed'::regclass`)).rows,
      ).toEqual([{ n: 1 }]);
    }
    // And back (a down()), the rows untouched.
    await replacePrimaryKeyOnline(q, 'keyed', 'PK_keyed', ['w', 'i']);
    expect(await key()).toEqual([{ conname: 'PK_keyed', def: 'PRIMARY KEY (w, i)', index: '"PK_keyed"' }]);
    expect((await c.query('SELECT count(*)::int AS n FROM keyed')).rows).toEqual([{ n: 500 }]);
  });

  it('a write waits for no build: an open transaction that wrote the table does not stop the next one', async () => {
    // CONCURRENTLY waits for transactions that hold the table; writers meanwhile go on (a plain build would
    // make this INSERT wait until the index exists).
    const other = new Client({ connectionString: db.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('INSERT INTO probe VALUES (1)');
      const build = createIndexOnline(q, 'ix_probe_b', 'probe (a)');
      await new Promise((r) => setTimeout(r, 200));
      const writer = new Client({ connectionString: db.url });
      await writer.connect();
      await writer.query(`SET statement_timeout = '2s'`);
      await expect(writer.query('INSERT INTO probe VALUES (2)')).resolves.toBeDefined();
      await writer.end();
      await other.query('COMMIT');
      await build;
      expect(await index('ix_probe_b')).toMatchObject({ valid: true });
    } finally {
      await other.end();
    }
  });
});
