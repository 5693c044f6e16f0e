import { Client } from 'pg';
import { createTestDatabase } from '../helpers/database';

/**
 * Issue 25: every tenant table (one with a workspace_id column) can be distributed by workspace_id as it is
 * (docs/scaling.md): workspace_id NOT NULL, and the primary key and every unique index include it, so each is
 * enforced on one shard. Read from the migrated catalog, so a new table that forgets the rule fails here.
 */
const EXCEPTIONS: Record<string, string> = {
  apps: 'credential: an OAuth client is found by client_id before any workspace is known (reference table)',
  app_installations: 'credential: read with its app while authenticating a token (reference table)',
  oauth_tokens: 'credential: found by token hash before any workspace is known (reference table)',
  audit_logs: 'instance-wide events have no workspace (workspace_id NULL): stays on the coordinator',
};

interface Offence {
  table: string;
  problem: string;
}

async function offences(c: Client): Promise<Offence[]> {
  const { rows } = await c.query<Offence>(`
    WITH tenant AS (
      SELECT t.oid, t.relname, a.attnum, a.attnotnull
        FROM pg_class t
        JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public'
        JOIN pg_attribute a ON a.attrelid = t.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped
       WHERE t.relkind IN ('r', 'p'))
    SELECT relname AS table, 'workspace_id is nullable' AS problem FROM tenant WHERE NOT attnotnull
    UNION ALL
    SELECT relname, 'has no primary key' FROM tenant t
     WHERE NOT EXISTS (SELECT 1 FROM pg_index x WHERE x.indrelid = t.oid AND x.indisprimary)
    UNION ALL
    SELECT t.relname, CASE WHEN x.indisprimary THEN 'primary key' ELSE 'unique index' END || ' '
           || i.relname || ' lacks workspace_id'
      FROM tenant t
      JOIN pg_index x ON x.indrelid = t.oid AND x.indisunique
      JOIN pg_class i ON i.oid = x.indexrelid
     WHERE NOT (t.attnum = ANY (x.indkey::int2[]))
     ORDER BY 1, 2`);
  return rows;
}

describe('distribution-ready schema (tenant tables keyed by workspace)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let c: Client;
  beforeAll(async () => {
    db = await createTestDatabase();
    c = new Client({ connectionString: db.url });
    await c.connect();
  });
  afterAll(async () => {
    await c.end();
    await db.drop();
  });

  it('every tenant table has workspace_id NOT NULL and in its primary key and unique indexes (exceptions named)', async () => {
    const found = await offences(c);
    expect(found.filter((o) => !(o.table in EXCEPTIONS))).toEqual([]);
    // Each exception still exists and still needs to be one (a stale entry would hide nothing but mislead).
    expect([...new Set(found.map((o) => o.table))].sort()).toEqual(Object.keys(EXCEPTIONS).sort());
  });

  it('the check catches a tenant table that breaks the rule', async () => {
    await c.query(`CREATE TABLE wt_probe (id uuid PRIMARY KEY, workspace_id uuid, name text)`);
    await c.query(`CREATE UNIQUE INDEX uq_wt_probe_name ON wt_probe (name)`);
    try {
      expect((await offences(c)).filter((o) => o.table === 'wt_probe')).toEqual([
        { table: 'wt_probe', problem: 'primary key wt_probe_pkey lacks workspace_id' },
        { table: 'wt_probe', problem: 'unique index uq_wt_probe_name lacks workspace_id' },
        { table: 'wt_probe', problem: 'workspace_id is nullable' },
      ]);
    } finally {
      await c.query('DROP TABLE wt_probe');
    }
  });
});
