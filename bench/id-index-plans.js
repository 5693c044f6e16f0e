'use strict';
/*
 * npm run build && node bench/id-index-plans.js --db NAME --statements FILE.json [--rows 1000000] [--copies-max 200000]
 *   [--port 3990] [--keep: plan on the database as it is]   (BENCH_DATABASE_URL's server, else the embedded PostgreSQL under .data/bench)
 *
 * Issue 25 part 3: do the statements still find their rows once the plain ix_<table>_by_id / _by_key indexes are
 * gone? Seeds database NAME (dropped first; never the benchmark's wt_bench): one workspace through the API, so every
 * table the walk reaches gets rows the service wrote, then copies that workspace set-based until each tenant table
 * holds about --rows rows (every uuid column remapped per copy, so a copy's rows reference each other and no id
 * repeats; triggers off while copying), and ANALYZEs. Then every statement of FILE (a JSON array of SQL texts, e.g.
 * those the HTTP suite sent) that names a tenant table is planned as PostgreSQL plans a prepared statement it has
 * no values for (a generic plan), and the tool prints, per statement, the scans of tenant tables: a
 * sequential scan of a big tenant table is what dropping an index must not cause, and a statement whose plan still
 * uses a plain ix_<table>_by_id / _by_key index is what keeping one is for. Exit code 1 when a scan is found.
 */
const { readFileSync } = require('node:fs');
const lib = require('./lib');

const DB = lib.stringOption('db');
const FILE = lib.stringOption('statements');
const ROWS = lib.numberOption('rows', 1000000);
const COPIES_MAX = lib.numberOption('copies-max', 200000);
const PORT = lib.numberOption('port', 3990);
const log = (...a) => process.stderr.write(`[id-index-plans] ${a.join(' ')}\n`);

/** One workspace's worth of rows, written through the API (the service's own statements and triggers). */
async function walk(key) {
  const api = (method, path, body) => lib.api(PORT, method, `/api/v2/workspaces/plans${path}`, key, body);
  const project = await api('POST', '/projects/', { name: 'Plans', identifier: 'PLANS' });
  const p = `/projects/${project.id}`;
  await api('PATCH', `${p}/features/`, { cycles: true, modules: true });
  const labels = [];
  for (let i = 0; i < 5; i++) labels.push((await api('POST', `${p}/labels/`, { name: `label ${i}` })).id);
  const cycle = await api('POST', `${p}/cycles/`, { name: 'Sprint' });
  const mod = await api('POST', `${p}/modules/`, { name: 'Module' });
  const est = await api('POST', `${p}/estimates/`, { name: 'Sizes' });
  for (const value of ['1', '2', '3', '5']) await api('POST', `${p}/estimates/${est.id}/points/`, { value });
  const states = (await api('GET', `${p}/states/`)).data;
  const wf = await api('POST', `${p}/workflows/`, { name: 'Flow' });
  const a = await api('POST', `${p}/workflows/${wf.id}/states/`, { state_id: states[0].id });
  await api('POST', `${p}/workflows/${wf.id}/state-transitions/`, {
    workflow_state_id: a.id,
    transition_state_id: states[1].id,
  });
  const items = [];
  for (let i = 0; i < 10; i++) {
    const body = { name: `Item ${i}`, label_ids: [labels[i % 5]], state_id: states[i % states.length].id };
    items.push((await api('POST', `${p}/work-items/`, body)).id);
  }
  for (const id of items.slice(0, 5)) {
    await api('POST', `${p}/work-items/${id}/comments/`, { comment_html: '<p>a comment</p>' });
    await api('POST', `${p}/work-items/${id}/links/`, { url: 'https://example.com/x' });
  }
  await api('POST', `${p}/cycles/${cycle.id}/work-items/`, { add: items.slice(0, 3) });
  await api('POST', `${p}/modules/${mod.id}/work-items/`, { add: items.slice(0, 3) });
}

/** Copies the workspace's rows of `table` `copies` times, every uuid column remapped per copy (md5 of value and copy). */
async function copyTable(c, ws, table, copies) {
  const cols = (
    await c.query(
      `SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
      [table],
    )
  ).rows;
  const expr = cols.map(({ column_name: n, data_type: t }) =>
    t === 'uuid' ? `CASE WHEN x."${n}" IS NULL THEN NULL ELSE md5(x."${n}"::text || ':' || g)::uuid END` : `x."${n}"`,
  );
  await c.query(
    `INSERT INTO "${table}" (${cols.map((k) => `"${k.column_name}"`).join(', ')})
     SELECT ${expr.join(', ')} FROM "${table}" x CROSS JOIN generate_series(1, $2::int) g WHERE x.workspace_id = $1`,
    [ws, copies],
  );
}

async function seed(dbUrl) {
  lib.cli(dbUrl, 'migrate');
  lib.cli(dbUrl, 'user', 'create', '--email', 'plans@example.com', '--display-name', 'Plans');
  lib.cli(dbUrl, 'workspace', 'create', '--slug', 'plans', '--name', 'Plans');
  lib.cli(dbUrl, 'member', 'add', '--workspace', 'plans', '--email', 'plans@example.com', '--role', 'owner');
  const key = lib.cli(dbUrl, 'api-key', 'create', '--email', 'plans@example.com').key;
  const service = lib.spawnService(lib.serviceEnv(dbUrl, PORT));
  try {
    await lib.waitFor(`http://127.0.0.1:${PORT}/healthz`);
    await walk(key);
  } finally {
    service.kill('SIGTERM');
  }
  await lib.sql(dbUrl, async (c) => {
    const ws = (await c.query(`SELECT id FROM workspaces WHERE slug = 'plans'`)).rows[0].id;
    await c.query(`SET session_replication_role = replica`);
    for (const table of await tenantTables(c)) {
      const n = Number((await c.query(`SELECT count(*) AS n FROM "${table}" WHERE workspace_id = $1`, [ws])).rows[0].n);
      if (!n) continue;
      const copies = Math.min(COPIES_MAX, Math.ceil(ROWS / n));
      const t0 = Date.now();
      await copyTable(c, ws, table, copies);
      log(`${table}: ${n} rows x ${copies} copies (${Date.now() - t0} ms)`);
    }
    await c.query(`SET session_replication_role = DEFAULT`);
    await c.query(`VACUUM ANALYZE`);
  });
}

async function tenantTables(c) {
  const { rows } = await c.query(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped
      WHERE c.relkind = 'r' AND c.relname NOT IN ('apps', 'app_installations', 'oauth_tokens', 'audit_logs')
      ORDER BY 1`,
  );
  return rows.map((r) => r.relname);
}

/**
 * The plan PostgreSQL keeps for `sql` as a prepared statement it has no values for (a generic plan; PostgreSQL 16's
 * EXPLAIN (GENERIC_PLAN) does this in one step): prepared with the parameter types it infers, explained with NULLs.
 */
async function genericPlan(c, sql) {
  await c.query('BEGIN');
  try {
    await c.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
    await c.query(`PREPARE plan_me AS ${sql}`);
    const { n } = (
      await c.query(`SELECT cardinality(parameter_types) AS n FROM pg_prepared_statements WHERE name = 'plan_me'`)
    ).rows[0];
    const args = n ? `(${Array(n).fill('NULL').join(', ')})` : '';
    return (await c.query(`EXPLAIN (COSTS OFF) EXECUTE plan_me${args}`)).rows.map((r) => r['QUERY PLAN']);
  } finally {
    await c.query('ROLLBACK');
    await c.query('DEALLOCATE ALL');
  }
}

/** Every statement naming a tenant table, planned generically: its scans of tenant tables. */
async function plans(dbUrl) {
  const statements = JSON.parse(readFileSync(FILE, 'utf8'));
  let bad = 0;
  await lib.sql(dbUrl, async (c) => {
    const tables = await tenantTables(c);
    const sizes = Object.fromEntries(
      (
        await c.query(`SELECT relname, reltuples::bigint AS n FROM pg_class WHERE relname = ANY($1)`, [tables])
      ).rows.map((r) => [r.relname, Number(r.n)]),
    );
    const named = new RegExp(`\\b(${tables.join('|')})\\b`);
    let planned = 0;
    let failed = 0;
    for (const sql of statements.filter((s) => named.test(s))) {
      let lines;
      try {
        lines = await genericPlan(c, sql);
      } catch {
        failed++;
        continue;
      }
      planned++;
      const plain = [...new Set(lines.map((l) => /(ix_\w+_by_(?:id|key))/.exec(l)?.[1]).filter(Boolean))];
      if (plain.length) console.log(`USES ${plain.join(', ')}:\n  ${sql.replace(/\s+/g, ' ').slice(0, 300)}`);
      const seq = lines
        .map((l) => /Seq Scan on (\w+)/.exec(l)?.[1])
        .filter((t) => t && tables.includes(t) && sizes[t] > 10000);
      if (seq.length) {
        bad++;
        console.log(`SEQ SCAN of ${[...new Set(seq)].join(', ')}:\n  ${sql.replace(/\s+/g, ' ').slice(0, 300)}`);
        console.log(lines.map((l) => `    ${l}`).join('\n'));
      }
    }
    console.log(`${planned} statements planned, ${failed} not plannable generically, ${bad} with a sequential scan`);
    console.log(`tenant tables' rows: ${JSON.stringify(sizes)}`);
  });
  return bad;
}

async function main() {
  if (!DB || DB === 'wt_bench' || !FILE) throw new Error('--db NAME (not wt_bench) and --statements FILE are required');
  const admin = await lib.adminUrl();
  try {
    const keep = process.argv.includes('--keep');
    const dbUrl = keep ? lib.withDb(admin.url, DB) : await lib.freshDatabase(admin.url, DB);
    if (!keep) await seed(dbUrl);
    process.exitCode = (await plans(dbUrl)) ? 1 : 0;
  } finally {
    await admin.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
