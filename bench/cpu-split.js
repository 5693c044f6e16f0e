'use strict';
/*
 * node bench/cpu-split.js --database NAME [--row patch|create|list|get] [--query Q] [--duration 12] [--port 3951]
 *
 * CPU per request, the service's against PostgreSQL's, under one kind of load: on a database `npm run bench --
 * --seed-only --database NAME` left (BENCH_DATABASE_URL's server), starts the built service, loads it with
 * autocannon at 32 connections (3 s unmeasured, then `--duration` seconds) and reads the CPU time of the service
 * process and of the PostgreSQL processes that serve NAME (foreign-cpu.js: the server's own processes and NAME's
 * backends) from /proc/<pid>/stat around the measured seconds. Shares of CPU per request do not depend on how fast
 * the host is, which req/s do. `--query` adds a query string to the list row's request (`state_group=started`: a
 * board column).
 */
const autocannon = require('autocannon');
const lib = require('./lib');
const { processTicks, postgresTicks, usedBetween } = require('./foreign-cpu');

const DB = lib.stringOption('database');
const ROW = lib.stringOption('row') ?? 'patch';
const SECONDS = lib.numberOption('duration', 12);
const PORT = lib.numberOption('port', 3951);
const QUERY = lib.stringOption('query');
const PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'];

/**
 * The autocannon request of the row: a PATCH of a random sampled item, a create, list page 1, or a sampled item read
 * with the benchmark's `?expand=state,labels,assignees`.
 */
function requestOf(base, items, query) {
  if (ROW === 'list') return (r) => ({ ...r, method: 'GET', path: `${base}?per_page=50${query ? `&${query}` : ''}` });
  if (ROW === 'get') {
    return (r) => ({
      ...r,
      method: 'GET',
      path: `${base}${items[Math.floor(Math.random() * items.length)]}/?expand=state,labels,assignees`,
    });
  }
  if (ROW === 'create') return (r) => ({ ...r, method: 'POST', path: base, body: JSON.stringify({ name: 'x' }) });
  return (r) => ({
    ...r,
    method: 'PATCH',
    path: `${base}${items[Math.floor(Math.random() * items.length)]}/`,
    body: JSON.stringify({ priority: PRIORITIES[Math.floor(Math.random() * 5)], name: `Patched ${Date.now()}` }),
  });
}

async function main() {
  if (!DB || !process.env.BENCH_DATABASE_URL) throw new Error('set BENCH_DATABASE_URL and --database NAME');
  const url = lib.withDb(process.env.BENCH_DATABASE_URL, DB);
  const key = lib.cli(url, 'api-key', 'create', '--email', 'bench@example.com').key;
  const { project, items, creates } = await lib.sql(url, async (c) => {
    const { project: id, creates } = await lib.benchSeedIds(c);
    const rows = await c.query(
      `SELECT id FROM work_items WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL ORDER BY random() LIMIT 1000`,
      [id],
    );
    return { project: id, items: rows.rows.map((r) => r.id), creates };
  });
  const service = lib.spawnService(lib.serviceEnv(url, PORT));
  try {
    await lib.waitFor(`http://127.0.0.1:${PORT}/healthz`);
    // Creates go to the other workspace's project, as the benchmark's do (bench/scenarios.js).
    const base =
      ROW === 'create'
        ? `/api/v2/workspaces/noise/projects/${creates}/work-items/`
        : `/api/v2/workspaces/bench/projects/${project}/work-items/`;
    const load = (duration) =>
      autocannon({
        url: `http://127.0.0.1:${PORT}`,
        connections: 32,
        duration,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        requests: [{ setupRequest: requestOf(base, items, QUERY) }],
      });
    await load(3);
    const [s0, p0] = [processTicks(service.pid), postgresTicks(DB, new Map())];
    const r = await load(SECONDS);
    const [s1, p1] = [processTicks(service.pid), postgresTicks(DB, new Map())];
    const n = r.requests.total;
    const perRequest = (t) => ((t * 1000) / 100 / n).toFixed(3); // 100 ticks a second
    console.log(
      `${ROW}${QUERY ? ` ?${QUERY}` : ''}: ${n} requests (${(n / SECONDS).toFixed(0)}/s, ${r.non2xx} not 2xx); CPU ms per request: service ${perRequest(s1 - s0)}, PostgreSQL ${perRequest(usedBetween(p0, p1))}`,
    );
  } finally {
    service.kill('SIGTERM');
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
