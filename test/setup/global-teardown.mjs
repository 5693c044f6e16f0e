import pg from 'pg';

export default async function globalTeardown() {
  const url = process.env.TEST_ADMIN_URL;
  const run = process.env.TEST_RUN_ID;
  if (url && run) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`wt\\_%\\_${run}%`]);
    for (const r of rows) {
      await c.query(`ALTER DATABASE "${r.datname}" IS_TEMPLATE false`).catch(() => undefined);
      await c.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`).catch(() => undefined);
    }
    await c.end();
  }
  const server = globalThis.__WT_EMBEDDED_PG__;
  if (server) await server.stop();
}
