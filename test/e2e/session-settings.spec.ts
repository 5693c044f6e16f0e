import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/common/database/data-source';
import { createTestDatabase } from '../helpers/database';

/**
 * The service's database sessions run without parallel query and without JIT (SESSION_OPTIONS): both only add
 * start-up cost to its short statements. Options given in DATABASE_URL replace them.
 */
describe('database session settings', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  const settingsOf = async (url: string) => {
    const ds = await new DataSource(dataSourceOptions(url, 1)).initialize();
    try {
      const [row] = await ds.query(
        `SELECT current_setting('jit') AS jit, current_setting('max_parallel_workers_per_gather') AS workers`,
      );
      return row as { jit: string; workers: string };
    } finally {
      await ds.destroy();
    }
  };

  it('turns JIT and parallel workers off by default', async () => {
    // The server's own defaults differ (jit on, two workers unless configured), so only the session can set these.
    await expect(settingsOf(db.url)).resolves.toEqual({ jit: 'off', workers: '0' });
  });

  it('leaves the session to the options DATABASE_URL gives', async () => {
    const url = new URL(db.url);
    url.searchParams.set('options', '-c jit=on -c max_parallel_workers_per_gather=1');
    await expect(settingsOf(url.toString())).resolves.toEqual({ jit: 'on', workers: '1' });
  });
});
