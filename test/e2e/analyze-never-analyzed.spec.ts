import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { analyzeNeverAnalyzed, PLANNED_TABLES } from '../../src/common/database/migrate';
import { createTestDatabase } from '../helpers/database';

/**
 * Issue 27 part 2, the complement: at start-up (and `cli migrate`) the service analyzes the list's tables that hold
 * rows PostgreSQL never analyzed (a restore or bulk import into fresh tables, autovacuum off), and leaves the others.
 */
describe('tables never analyzed are analyzed at start-up', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let c: Client;
  let ds: DataSource;
  const stats = async (table: string) =>
    Number((await c.query(`SELECT count(*) AS n FROM pg_stats WHERE tablename = $1`, [table])).rows[0].n);

  beforeAll(async () => {
    db = await createTestDatabase();
    c = new Client({ connectionString: db.url });
    await c.connect();
    ds = { query: (text: string, params?: unknown[]) => c.query(text, params).then((r) => r.rows) } as never;
    for (const t of ['never_full', 'never_empty', 'analyzed_full']) {
      await c.query(`CREATE TABLE ${t} (a int NOT NULL) WITH (autovacuum_enabled = false)`);
    }
    await c.query('INSERT INTO never_full SELECT g FROM generate_series(1, 1000) g');
    await c.query('INSERT INTO analyzed_full SELECT g FROM generate_series(1, 1000) g');
    await c.query('ANALYZE analyzed_full');
  });
  afterAll(async () => {
    await c?.end();
    await db?.drop();
  });

  it('analyzes a table holding rows without statistics, not an empty or an analyzed one', async () => {
    expect(await stats('never_full')).toBe(0);
    expect(await analyzeNeverAnalyzed(ds, ['never_full', 'never_empty', 'analyzed_full', 'no_such_table'])).toEqual([
      'never_full',
    ]);
    expect(await stats('never_full')).toBe(1);
    expect(await stats('never_empty')).toBe(0);
    // Run again (the next start): nothing left to do.
    expect(await analyzeNeverAnalyzed(ds, ['never_full', 'never_empty', 'analyzed_full'])).toEqual([]);
  });

  it('covers the work item list tables; fresh (empty) ones are left alone', async () => {
    expect(PLANNED_TABLES).toEqual(['work_items', 'work_item_assignees', 'work_item_labels', 'module_work_items']);
    expect(await analyzeNeverAnalyzed(ds)).toEqual([]);
  });
});
