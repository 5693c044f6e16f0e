'use strict';
/*
 * npm run bench:retries -- --baseline DIR [--items 20000 --duration 5 --rounds 4 --connections 16 --warm-up 2]
 *
 * The cost of issue 23 (ETags on every GET, the version read of a single record, Idempotency-Key on POST) on the
 * reads and creates of `npm run bench`. DIR is a built checkout of the code before it (for example
 * `git worktree add /tmp/base <commit> && cd /tmp/base && npm ci && npm run build`). Seeds one project as
 * `npm run bench` does, starts the baseline's service and this one side by side on the same database, and loads
 * both at the same time (so whatever else the machine runs weighs on both alike), `--rounds` times per row. Rows:
 * the reads of `npm run bench` (ETags on both lists and single records) and creates, where this side sends a new
 * Idempotency-Key with every request (the baseline ignores the header). Prints per row the median req/s of each
 * side, each round's overhead (1 - this/baseline req/s) as median and range, and the services' own CPU time per
 * request (user + system from /proc), the figure least moved by other work on a shared machine.
 */
const { execFileSync } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { resolve } = require('node:path');
const autocannon = require('autocannon');
const lib = require('./lib');
const { adminUrl, sql, freshDatabase, cli, waitFor, serviceEnv, spawnService, settle, sleep, numberOption, api } = lib;
const { seedItems } = require('./run');

const args = process.argv.slice(2);
const opt = numberOption;
const ITEMS = opt('items', 20000);
const DURATION = opt('duration', 5);
const ROUNDS = opt('rounds', 4);
const CONNECTIONS = opt('connections', 16);
const WARM_UP = opt('warm-up', 2);
const PORT = opt('port', 3980);
const BASELINE = args.includes('--baseline') ? resolve(args[args.indexOf('--baseline') + 1]) : null;

const log = (...a) => process.stderr.write(`[retries] ${a.join(' ')}\n`);
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** One measured row against a side: req/s, latencies and the service's CPU µs per request. */
async function measure(side, opts) {
  const url = `http://127.0.0.1:${side.port}`;
  if (WARM_UP > 0) await autocannon({ connections: CONNECTIONS, ...opts, url, duration: WARM_UP });
  const cpu0 = cpuMs(side.child.pid);
  const r = await autocannon({ connections: CONNECTIONS, ...opts, url, duration: DURATION });
  const cpu = ((cpuMs(side.child.pid) - cpu0) * 1000) / Math.max(1, r.requests.total);
  if (r.non2xx || r.errors) log(`${side.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpu };
}

/** Like lib's waitFor, with room for a start on a busy shared machine (two services start at once). */
async function waitLong(url) {
  for (let i = 0; i < 6; i++) {
    try {
      return await waitFor(url);
    } catch {
      log(`${url} not up yet`);
    }
  }
  throw new Error(`${url} did not come up`);
}

function startSides(dbUrl, children) {
  const env = { ...serviceEnv(dbUrl, 0), OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' };
  const base = { name: 'baseline', port: PORT, env: { ...env, PORT: String(PORT) } };
  const self = { name: 'this', port: PORT + 1, env: { ...env, PORT: String(PORT + 1) } };
  // Both sides as the start command (start:prod) starts the service, its environment (MALLOC_ARENA_MAX) included.
  base.child = spawnService(base.env, undefined, BASELINE);
  self.child = spawnService(self.env);
  children.push(base.child, self.child);
  return { base, self };
}

async function main() {
  if (!BASELINE) throw new Error('--baseline DIR (a built checkout of the code before issue 23) is required');
  const admin = await adminUrl();
  const children = [];
  try {
    const dbUrl = await freshDatabase(admin.url, 'wt_bench_retries');
    cli(dbUrl, 'migrate');
    const owner = cli(dbUrl, 'user', 'create', '--email', 'bench@example.com', '--display-name', 'Bench Owner');
    cli(dbUrl, 'workspace', 'create', '--slug', 'bench', '--name', 'Bench');
    cli(dbUrl, 'member', 'add', '--workspace', 'bench', '--email', 'bench@example.com', '--role', 'owner');
    const key = cli(dbUrl, 'api-key', 'create', '--email', 'bench@example.com').key;
    const sides = startSides(dbUrl, children);
    for (const side of Object.values(sides)) await waitLong(`http://127.0.0.1:${side.port}/healthz`);
    const project = await api(sides.self.port, 'POST', '/api/v2/workspaces/bench/projects/', key, {
      name: 'Bench',
      identifier: 'BENCH',
    });
    const sample = await sql(dbUrl, async (c) => {
      const ws = (await c.query(`SELECT id FROM workspaces WHERE slug = 'bench'`)).rows[0].id;
      log(`seeding ${ITEMS} work items`);
      await seedItems(c, ws, project.id, ITEMS, owner.id, [], []);
      await settle(c, log);
      return (
        await c.query(
          `SELECT id, sequence_id FROM work_items WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL ORDER BY random() LIMIT 1000`,
          [project.id],
        )
      ).rows;
    });
    const pick = () => sample[Math.floor(Math.random() * sample.length)];
    const items = `/api/v2/workspaces/bench/projects/${project.id}/work-items/`;
    const headers = { 'X-Api-Key': key, 'content-type': 'application/json' };
    const get = (path) => ({
      headers,
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) }],
    });
    const create = (withKey) => ({
      headers,
      requests: [
        {
          method: 'POST',
          path: items,
          body: JSON.stringify({ name: 'Created by the benchmark', priority: 'high' }),
          setupRequest: (req) =>
            withKey ? { ...req, headers: { ...req.headers, 'Idempotency-Key': randomUUID() } } : req,
        },
      ],
    });
    const rows = [
      ['list page 1 (per_page 50)', get(() => `${items}?per_page=50`), get(() => `${items}?per_page=50`)],
      [
        'get by id ?expand=state,labels,assignees',
        get(() => `${items}${pick().id}/?expand=state,labels,assignees`),
        get(() => `${items}${pick().id}/?expand=state,labels,assignees`),
      ],
      [
        'get by identifier',
        get(() => `/api/v2/workspaces/bench/work-items/BENCH-${pick().sequence_id}/`),
        get(() => `/api/v2/workspaces/bench/work-items/BENCH-${pick().sequence_id}/`),
      ],
      ['create (this side: no key)', create(false), create(false)],
      ['create (this side: Idempotency-Key)', create(false), create(true)],
    ];
    const lines = [
      `issue 23 overhead: ${ITEMS} work items; ${CONNECTIONS} connections per side, both loaded at once, ${DURATION} s per ` +
        `row after ${WARM_UP} s of warm-up, ${ROUNDS} rounds; node ${process.version}; ${require('node:os').cpus().length} CPUs`,
      '| scenario | req/s baseline / this | req/s overhead: median (min..max) | CPU µs/request baseline / this | CPU overhead: median (min..max) | p50/p99 ms baseline | p50/p99 ms this |',
      '|---|---|---|---|---|---|---|',
    ];
    const pct = (x) => `${(x * 100).toFixed(1)}%`;
    const spread = (xs) => `${pct(median(xs))} (${pct(Math.min(...xs))}..${pct(Math.max(...xs))})`;
    for (const [name, baseOpts, selfOpts] of rows) {
      const got = { base: [], self: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const [b, s] = await Promise.all([measure(sides.base, baseOpts), measure(sides.self, selfOpts)]);
        got.base.push(b);
        got.self.push(s);
        await sleep(200);
      }
      const stat = (xs, k) => median(xs.map((x) => x[k]));
      const rpsLoss = got.base.map((b, i) => 1 - got.self[i].rps / b.rps);
      const cpuGain = got.base.map((b, i) => got.self[i].cpu / b.cpu - 1);
      lines.push(
        `| ${name} | ${stat(got.base, 'rps').toFixed(0)} / ${stat(got.self, 'rps').toFixed(0)} | ${spread(rpsLoss)} | ` +
          `${stat(got.base, 'cpu').toFixed(0)} / ${stat(got.self, 'cpu').toFixed(0)} | ${spread(cpuGain)} | ` +
          `${stat(got.base, 'p50')}/${stat(got.base, 'p99')} | ${stat(got.self, 'p50')}/${stat(got.self, 'p99')} |`,
      );
      log(lines[lines.length - 1]);
    }
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    for (const ch of children) ch.kill('SIGTERM');
    await sleep(500);
    await admin.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
