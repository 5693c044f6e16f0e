'use strict';
/*
 * npm run bench:overhead [-- --items 100000 --duration 10 --rounds 4 --connections 32 --warm-up 2
 *                           --alternate | --in-process [--batch 2000]] [--calibrate]
 *
 * The cost of Prometheus metrics on reads, tracing off. Seeds one project as `npm run bench` does (its seedItems;
 * no assignees or labels, so reads are as cheap as they get and a fixed per-request cost weighs the most), then
 * starts two services side by side on the same database: `off` (METRICS_ENABLED=false) and `on` (metrics on,
 * METRICS_TOKEN set, scraped every 5 s during its rows as Prometheus would). Each read row is measured in
 * `--rounds` rounds. By default both services take the same load at the same time, each from its own autocannon,
 * so whatever else the machine runs weighs on both alike; `--alternate` loads one at a time instead, in
 * alternating order (off, on, on, off, ...). Prints, per row, the median req/s and latencies of each side, the
 * overhead of each round's pair (1 - on/off req/s) with its median and spread, and the service's own CPU time per
 * request (user + system from /proc, PostgreSQL's excluded), the figure least moved by other work on the machine.
 * `--in-process` builds both applications inside this process (createApp, as the tests do) and drives them with
 * Fastify's inject(), `--batch` requests at a time, 32 in flight, alternating off and on batch by batch: no
 * sockets and no second process, so the difference in this process's CPU time per request is the metrics code
 * itself (Node's process metrics, one set for the whole process, weigh on both sides alike).
 * `--calibrate` runs metrics off on both sides (an A/A run): what it prints is the method's own noise.
 */
const { execFileSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const autocannon = require('autocannon');
const lib = require('./lib');
const { adminUrl, sql, freshDatabase, cli, waitFor, serviceEnv, spawnService, settle, sleep, numberOption, api } = lib;
const { seedItems } = require('./run');

const args = process.argv.slice(2);
const opt = numberOption;
const ITEMS = opt('items', 100000);
const DURATION = opt('duration', 10);
const ROUNDS = opt('rounds', 4);
const CONNECTIONS = opt('connections', 32);
const WARM_UP = opt('warm-up', 2);
const PORT = opt('port', 3990);
const TOKEN = 'bench-metrics-token-0123456789';
const CALIBRATE = args.includes('--calibrate');
const ALTERNATE = args.includes('--alternate');
const IN_PROCESS = args.includes('--in-process');
const BATCH = opt('batch', 2000);

const log = (...a) => process.stderr.write(`[overhead] ${a.join(' ')}\n`);
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
/** CPU time (user + system) the process has used, in ms. */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** One measured row against a side; with `scrape`, /metrics is read every 5 s meanwhile. */
async function measure({ port, child }, opts, scrape) {
  const url = `http://127.0.0.1:${port}`;
  if (WARM_UP > 0) await autocannon({ connections: CONNECTIONS, ...opts, url, duration: WARM_UP });
  const timer = scrape
    ? setInterval(() => {
        fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } }).then(
          (r) => r.text(),
          () => undefined,
        );
      }, 5000)
    : undefined;
  try {
    const cpu0 = cpuMs(child.pid);
    const r = await autocannon({ connections: CONNECTIONS, ...opts, url, duration: DURATION });
    const cpuUsPerReq = ((cpuMs(child.pid) - cpu0) * 1000) / r.requests.total;
    const errors = r.errors + r.timeouts + r.non2xx;
    if (errors) log(`${errors} failed requests on port ${port}`);
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpu: cpuUsPerReq };
  } finally {
    clearInterval(timer);
  }
}

const MODE = IN_PROCESS
  ? `in process, ${BATCH} injected requests per batch, batches alternating`
  : ALTERNATE
    ? 'one side at a time in alternating order'
    : 'both sides loaded at once';

/** The two services (off, on) as `npm run start:prod` starts them. */
async function serviceSides(dbUrl, children) {
  const base = { ...serviceEnv(dbUrl, 0), OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' };
  delete base.METRICS_PORT;
  const sides = {
    off: { port: PORT, env: { ...base, PORT: String(PORT), METRICS_ENABLED: 'false' } },
    on: {
      port: PORT + 1,
      env: { ...base, PORT: String(PORT + 1), METRICS_ENABLED: String(!CALIBRATE), METRICS_TOKEN: TOKEN },
    },
  };
  for (const side of Object.values(sides)) {
    side.child = spawnService(side.env);
    children.push(side.child);
    await waitFor(`http://127.0.0.1:${side.port}/healthz`);
  }
  return sides;
}

async function createProject(side, key) {
  const body = { name: 'Bench', identifier: 'BENCH' };
  if (side.port) return api(side.port, 'POST', '/api/v2/workspaces/bench/projects/', key, body);
  const r = await side.fastify.inject({
    method: 'POST',
    url: '/api/v2/workspaces/bench/projects/',
    headers: { 'X-Api-Key': key, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  if (r.statusCode !== 201) throw new Error(`project create failed: ${r.statusCode} ${r.body}`);
  return r.json();
}

/** `ROUNDS` measurements of one row on both sides, paired by round. */
async function measureRow(sides, headers, path) {
  const opts = { headers, requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) }] };
  const got = { off: [], on: [] };
  if (IN_PROCESS) for (const side of ['off', 'on']) await injectBatch(sides[side], headers, path); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
    if (IN_PROCESS) {
      for (const side of order) got[side].push(await injectBatch(sides[side], headers, path));
    } else if (ALTERNATE) {
      for (const side of order) got[side].push(await measure(sides[side], opts, side === 'on'));
    } else {
      const [off, on] = await Promise.all([measure(sides.off, opts, false), measure(sides.on, opts, true)]);
      got.off.push(off);
      got.on.push(on);
    }
    await sleep(200);
  }
  return got;
}

/** Both applications in this process (--in-process); `post` creates through the `off` one. */
async function inProcessSides(dbUrl) {
  const { loadConfig } = require('../dist/src/common/config/config');
  const { createApp } = require('../dist/src/app.factory');
  const base = { ...loadConfig(), rateLimit: { limit: 1e9, ttlMs: 60_000 }, logLevel: 'error', seedOnEmpty: false };
  const build = async (enabled) => {
    const app = await createApp(
      { ...base, metrics: { ...base.metrics, enabled, token: TOKEN, port: undefined } },
      dbUrl,
      {
        logger: false,
      },
    );
    const fastify = app.getHttpAdapter().getInstance();
    await fastify.ready();
    return { app, fastify };
  };
  return { off: await build(false), on: await build(!CALIBRATE) };
}

/** `BATCH` injected requests, 32 in flight; this process's CPU time per request. */
async function injectBatch({ fastify }, headers, path) {
  let left = BATCH;
  let failed = 0;
  const worker = async () => {
    while (left-- > 0) {
      const r = await fastify.inject({ method: 'GET', url: path(), headers });
      if (r.statusCode !== 200) failed++;
    }
  };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const cpu = process.cpuUsage(cpu0);
  if (failed) log(`${failed} failed injected requests`);
  return { rps: (BATCH * 1000) / (performance.now() - t0), cpu: (cpu.user + cpu.system) / BATCH };
}

async function main() {
  const admin = await adminUrl();
  const children = [];
  let sides;
  try {
    const dbUrl = await freshDatabase(admin.url, 'wt_bench_overhead');
    cli(dbUrl, 'migrate');
    const owner = cli(dbUrl, 'user', 'create', '--email', 'bench@example.com', '--display-name', 'Bench Owner');
    cli(dbUrl, 'workspace', 'create', '--slug', 'bench', '--name', 'Bench');
    cli(dbUrl, 'member', 'add', '--workspace', 'bench', '--email', 'bench@example.com', '--role', 'owner');
    const key = cli(dbUrl, 'api-key', 'create', '--email', 'bench@example.com').key;
    sides = IN_PROCESS ? await inProcessSides(dbUrl) : await serviceSides(dbUrl, children);
    const project = await createProject(sides.off, key);
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
    const headers = { 'X-Api-Key': key };
    const rows = [
      ['list page 1 (per_page 50)', () => `${items}?per_page=50`],
      ['offset 10000', () => `${items}?per_page=50&offset=10000`],
      ['get by id ?expand=state,labels,assignees', () => `${items}${pick().id}/?expand=state,labels,assignees`],
      ['get by identifier', () => `/api/v2/workspaces/bench/work-items/BENCH-${pick().sequence_id}/`],
    ];

    const lines = [
      `metrics overhead on reads, tracing off: ${ITEMS} work items; ${CONNECTIONS} ${IN_PROCESS ? 'in flight' : 'connections'}, ` +
        `${IN_PROCESS ? '' : `${DURATION} s per row after ${WARM_UP} s of warm-up, `}${ROUNDS} rounds, ${MODE}; ` +
        `node ${process.version}; ${require('node:os').cpus().length} CPUs` +
        `${CALIBRATE ? '; CALIBRATION: metrics off on both sides' : ''}`,
      '| scenario | req/s off / on | req/s overhead: median (min..max of rounds) | service CPU µs/request off / on | CPU overhead: median (min..max) | p50/p99 ms off | p50/p99 ms on |',
      '|---|---|---|---|---|---|---|',
    ];
    for (const [name, path] of rows) {
      const got = await measureRow(sides, headers, path);
      const pct = (x) => `${(x * 100).toFixed(1)}%`;
      const spread = (xs) => `${pct(median(xs))} (${pct(Math.min(...xs))}..${pct(Math.max(...xs))})`;
      const rpsLoss = got.off.map((off, i) => 1 - got.on[i].rps / off.rps);
      const cpuGain = got.off.map((off, i) => got.on[i].cpu / off.cpu - 1);
      const stat = (xs, k) => median(xs.map((x) => x[k]));
      // Injected requests have no network latency worth reporting.
      const latency = (xs) => (IN_PROCESS ? '-' : `${stat(xs, 'p50')}/${stat(xs, 'p99')}`);
      lines.push(
        `| ${name} | ${stat(got.off, 'rps').toFixed(0)} / ${stat(got.on, 'rps').toFixed(0)} | ${spread(rpsLoss)} | ` +
          `${stat(got.off, 'cpu').toFixed(0)} / ${stat(got.on, 'cpu').toFixed(0)} | ${spread(cpuGain)} | ` +
          `${latency(got.off)} | ${latency(got.on)} |`,
      );
      log(lines[lines.length - 1]);
    }
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    for (const side of Object.values(sides ?? {})) await side.app?.close();
    for (const ch of children) ch.kill('SIGTERM');
    await sleep(500);
    await admin.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
