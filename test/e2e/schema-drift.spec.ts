import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/common/database/data-source';
import { createTestDatabase } from '../helpers/database';

/** The entities and the migrations must describe the same schema: generating a migration yields nothing. */
describe('schema drift', () => {
  it('migrations match the entities', async () => {
    const db = await createTestDatabase();
    const ds = new DataSource(dataSourceOptions(db.url, 2));
    await ds.initialize();
    try {
      const sql = await ds.driver.createSchemaBuilder().log();
      expect(sql.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });
});
