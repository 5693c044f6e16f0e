'use strict';
/*
 * node bench/memory.js --database wt_bench [--rows list,per200,get,create,patch,mixed --requests 6000 --warm-up 1500
 *                       --connections 32 --port 3960 --flags "--max-old-space-size=192 --max-semi-space-size=32"
 *                       --env "MALLOC_ARENA_MAX=2" --root DIR --cycles 1 --idle 0 --trace-file FILE]
 *
 * Peak RSS and CPU per request of the built service (issue 27), on a database `npm run bench -- --seed-only
 * --database NAME` left (BENCH_DATABASE_URL's server). Starts the service as `start:prod` does (or with `--flags`
 * instead of its Node options, `--env` instead of its environment assignments) under `--trace-gc`, then for each row sends `--warm-up` requests (not counted)
 * and `--requests` counted ones at `--connections`, and prints per row: the service process's CPU time per
 * request (user + system from /proc/<pid>/stat), scavenges and full collections per 1,000 requests (from the
 * trace), and VmRSS / VmHWM after the row; first the memory after start. CPU time per request depends far less
 * on the machine's load than req/s do (a busy machine still slows caches and clocks: compare runs made one
 * after the other). `--cycles N` repeats the rows N times in the same process (the peak settles over them).
 * `--trace-file FILE` keeps the service's stdout there: the `--trace-gc` lines (each scavenge's heap before and after
 * tells what it promoted) and whatever other trace `--flags` asks for (`--trace-pretenuring-statistics`).
 */
const { spawn } = require('node:child_process');
const { createWriteStream, readFileSync } = require('node:fs');
const { resolve } = require('node:path');
const autocannon = require('autocannon');
const lib = require('./lib');
const { cli, sql, waitFor, serviceEnv, numberOption, stringOption, withDb, ROOT } = lib;
const { loads } = require('./profile');
const { mixedRequest } = require('./scenarios');

const DB = stringOption('database') ?? 'wt_bench';
const ROWS = (stringOption('rows') ?? 'list,per200,get,create,patch,mixed').split(',');
const REQUESTS = numberOption('requests', 6000);
const WARM_UP = numberOption('warm-up', 1500);
const CONNECTIONS = numberOption('connections', 32);
const CYCLES = numberOption('cycles', 1);
/**
 * `--idle S`: S seconds without requests before each row, as `npm run bench` leaves the service idle while the
 * ceilings' slices run (V8's memory reducer acts on an idle heap: docs/read-path-profile.md, "Peak memory, fifth pass").
 */
const IDLE = numberOption('idle', 0);
const PORT = numberOption('port', 3960);
const FLAGS = stringOption('flags');
const ENV = stringOption('env');
const TRACE_FILE = stringOption('trace-file');
/** `--root DIR`: the built service of another checkout (same migrations), for an A/B one run after the other. */
const ROOT_DIR = resolve(stringOption('root') ?? ROOT);
const log = (...a) => process.stderr.write(`[memory] ${a.join(' ')}\n`);

/**
 * The start command's environment assignments (or, with `--env`, those given: `--env ""` for none), its Node options
 * (or `--flags`) and its script.
 */
function command() {
  const start = lib.startCommand(ROOT_DIR);
  const flags = FLAGS !== undefined ? FLAGS.split(/\s+/).filter(Boolean) : start.flags;
  const env =
    ENV !== undefined
      ? Object.fromEntries(
          ENV.split(/\s+/)
            .filter(Boolean)
            .map((a) => a.split('=')),
        )
      : start.env;
  return { cmd: start.cmd, flags, script: start.script, env };
}

function status(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)[1]) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM'), anon: kb('RssAnon'), file: kb('RssFile') };
}

const mb = (s) =>
  `VmRSS ${s.rss.toFixed(0)} MB (anonymous ${s.anon.toFixed(0)}, file ${s.file.toFixed(0)}), VmHWM ${s.hwm.toFixed(0)} MB`;

/** User + system CPU seconds of a process (/proc/<pid>/stat fields 14 and 15, in clock ticks of 1/100 s). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Counts the --trace-gc lines the service prints. */
function gcCounter(stream) {
  const n = { minor: 0, major: 0, heapMb: 0 };
  let rest = '';
  stream.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const l of lines) {
      if (/: (Scavenge|Minor Mark-Sweep|Minor Mark-Compact)/.test(l)) n.minor++;
      else if (/: Mark-Compact|: Mark-Sweep/.test(l)) n.major++;
      // `... -> 70.3 (92.1) MB`: the heap's committed size after the collection.
      const committed = /-> [\d.]+ \(([\d.]+)\) MB/.exec(l);
      if (committed) n.heapMb = Math.max(n.heapMb, Number(committed[1]));
    }
  });
  return n;
}

async function fixtures(dbUrl) {
  const key = cli(dbUrl, 'api-key', 'create', '--email', 'bench@example.com').key;
  return sql(dbUrl, async (c) => {
    const project = (await c.query(`SELECT id FROM projects WHERE identifier = 'BENCH' AND deleted_at IS NULL`)).rows[0]
      .id;
    const rows = (
      await c.query(
        `SELECT id, sequence_id FROM work_items WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL ORDER BY random() LIMIT 1000`,
        [project],
      )
    ).rows;
    return { key, project, rows };
  });
}

function load(opts, key, amount) {
  return autocannon({
    url: `http://127.0.0.1:${PORT}`,
    connections: CONNECTIONS,
    headers: { 'X-Api-Key': key, 'content-type': 'application/json' },
    amount,
    ...opts,
  });
}

async function main() {
  const admin = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbUrl = withDb(admin, DB);
  const fx = await fixtures(dbUrl);
  const pick = () => fx.rows[Math.floor(Math.random() * fx.rows.length)];
  const items = `/api/v2/workspaces/bench/projects/${fx.project}/work-items/`;
  // `mixed`: npm run bench's mixed row (70% reads, 20% PATCH, 10% create) at twice the connections, as there.
  const mixed = { connections: CONNECTIONS * 2, requests: [{ setupRequest: (req) => mixedRequest(req, items, pick) }] };
  const all = { ...loads(items, pick), mixed };
  const { cmd, flags, script, env: startEnv } = command();
  const env = {
    ...serviceEnv(dbUrl, PORT),
    ...startEnv,
    OTEL_EXPORTER_OTLP_ENDPOINT: '',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
  };
  const child = spawn(cmd, [...flags, '--trace-gc', ...script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const gc = gcCounter(child.stdout);
  if (TRACE_FILE) child.stdout.pipe(createWriteStream(TRACE_FILE));
  const envText =
    Object.entries(startEnv)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ') || 'none';
  const out = [
    `${ROOT_DIR}, env: ${envText}, flags: ${flags.join(' ')}; ${lib.machineLine()}; load average ${lib.loadAverage()}`,
  ];
  try {
    await waitFor(`http://127.0.0.1:${PORT}/healthz`);
    const s0 = status(child.pid);
    out.push(`after start: ${mb(s0)}`);
    out.push(
      '| cycle | row | CPU ms/request | scavenges /1k req | full GCs /1k req | non-2xx | VmRSS (anon + file) | VmHWM |',
    );
    out.push('|---|---|---|---|---|---|---|---|');
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      for (const row of ROWS) {
        if (!all[row]) throw new Error(`--rows: unknown ${row}; rows: ${Object.keys(all).join(', ')}`);
        if (IDLE > 0) await lib.sleep(IDLE * 1000);
        await load(all[row], fx.key, WARM_UP);
        const cpu0 = cpuSeconds(child.pid);
        const gc0 = { ...gc };
        const r = await load(all[row], fx.key, REQUESTS);
        await lib.sleep(200); // the trace lines of the last collections
        const cpu = cpuSeconds(child.pid) - cpu0;
        const n = r.requests.total;
        const s = status(child.pid);
        const per1k = (x) => ((x * 1000) / n).toFixed(1);
        out.push(
          `| ${cycle} | ${row} | ${((cpu * 1000) / n).toFixed(2)} | ${per1k(gc.minor - gc0.minor)} | ${per1k(gc.major - gc0.major)} | ${r.non2xx} | ${s.rss.toFixed(0)} (${s.anon.toFixed(0)} + ${s.file.toFixed(0)}) | ${s.hwm.toFixed(0)} |`,
        );
        log(out[out.length - 1]);
      }
    }
    out.push(
      `largest V8 heap committed after a collection: ${gc.heapMb.toFixed(0)} MB; load average after: ${lib.loadAverage()}`,
    );
    process.stdout.write(out.join('\n') + '\n');
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
