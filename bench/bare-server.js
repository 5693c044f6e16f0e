'use strict';
// The ceiling of the benchmark: bare Fastify + pg, no framework, no auth, serving the same SQL the
// service runs for list page 1 (rows with their id arrays and the total count, one statement).
// It authenticates nothing and resolves no workspace or project: that is the framework's share. Like the
// service (src/common/database/statement-cache.ts), it runs it as a named prepared statement.
const Fastify = require('fastify');
const { Pool } = require('pg');

// The service's session settings too (src/common/database/data-source.ts): no parallel query.
const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DB_POOL_SIZE || 10),
  // Never close idle connections: the ceiling idles through every other row's slices, far longer than pg-pool's
  // 10 s default, so each of its slices began by opening ten new backends (cold catalog caches, statements
  // prepared and planned again) while the service, busy in every other slice, kept its own. That made the
  // ceiling both slower than the service and noisy (slices up to 56% apart on an idle machine).
  idleTimeoutMillis: 0,
  options: '-c max_parallel_workers_per_gather=0 -c jit=off',
});
const WS = process.env.BENCH_WORKSPACE_ID;
const PROJECT = process.env.BENCH_PROJECT_ID;
const IDENT = process.env.BENCH_IDENTIFIER;

// The statement the service runs for list page 1, taken from the compiled repository (as bench/plans.js takes it),
// not written here: a ceiling with a statement of its own drifted once (it lacked the module_ids subquery and the
// project_id / cycle_id columns the service had added), so it ran less SQL than the service it measured. The
// repository's reader records what it is sent; page 1 must be one statement (the counter is read inside it).
const { resolve } = require('node:path');
const ROOT = resolve(__dirname, '..');
const { parseListQuery } = require(resolve(ROOT, 'dist/src/common/pagination/list-query.js'));
const { WORK_ITEM_LIST } = require(resolve(ROOT, 'dist/src/work-items/work-items.queries.js'));
const { WorkItemsRepository } = require(resolve(ROOT, 'dist/src/work-items/work-items.repository.js'));

async function servicePageStatement(perPage) {
  const sent = [];
  const repo = new WorkItemsRepository({ driver: {} });
  const blank = { id: '00000000-0000-0000-0000-000000000000', __total: 0 };
  const recorder = { query: async (text, values) => (sent.push({ text, values: values ?? [] }), [{ ...blank }]) };
  // Lists read through pageReader (ISO timestamps), the rest through reader: both record.
  repo.reader = recorder;
  repo.pageReader = recorder;
  await repo.list(WS, PROJECT, parseListQuery({ per_page: String(perPage) }, WORK_ITEM_LIST));
  if (sent.length !== 1) throw new Error(`list page 1 sends ${sent.length} statements; the ceiling expects one`);
  return sent[0];
}

/** A row as JSON shows it: every column the statement returns (timestamps as ISO strings), plus the identifier. */
function rowView(r) {
  const out = { id: r.id, identifier: `${IDENT}-${r.sequence_id}` };
  for (const [k, v] of Object.entries(r)) {
    if (k.startsWith('__')) continue;
    out[k] = v instanceof Date ? v.toISOString() : v;
  }
  out.custom_fields = null;
  return out;
}

const app = Fastify({ logger: false });
const statements = {};

/** `/list` serves page 1 of 50 rows; `/list?per_page=200` the 200-row page (the ceiling of the per_page=200 row). */
app.get('/list', async (req) => {
  const perPage = req.query.per_page === '200' ? 200 : 50;
  const statement = statements[perPage];
  const { rows } = await pool.query({ name: `bare_list_${perPage}`, text: statement.text, values: statement.values });
  const data = rows.slice(0, perPage).map(rowView);
  return {
    data,
    next: rows.length > perPage ? perPage : null,
    previous: null,
    total_count: rows.length ? rows[0].__total : 0,
    pagination: { style: 'offset' },
  };
});
// Started by a benchmark script (lib.startBare, an IPC channel): ends with it, even when that script dies without
// stopping it (its stdout closed under `| head`, say), instead of idling on with its pool's connections open.
if (process.send) process.on('disconnect', () => process.exit(0));

Promise.all([servicePageStatement(50), servicePageStatement(200)])
  .then(([s50, s200]) => Object.assign(statements, { 50: s50, 200: s200 }))
  .then(() => app.listen({ port: Number(process.env.PORT || 3998), host: '127.0.0.1' }))
  .then(() => process.send && process.send('ready'));
