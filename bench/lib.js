'use strict';
/** Helpers shared by the benchmark scripts: the database server, the CLI, waiting for the service. */
const { execFileSync, spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { resolve } = require('node:path');
const { Client } = require('pg');

const ROOT = resolve(__dirname, '..');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** BENCH_DATABASE_URL's server, else the embedded PostgreSQL under .data/bench on `--pg-port` (default 54331). */
async function adminUrl() {
  if (process.env.BENCH_DATABASE_URL) return { url: process.env.BENCH_DATABASE_URL, stop: async () => undefined };
  const { startEmbeddedPostgres } = require(resolve(ROOT, 'dist/src/common/database/embedded.js'));
  const h = await startEmbeddedPostgres(resolve(ROOT, '.data/bench'), numberOption('pg-port', 54331), 'postgres');
  return { url: h.url, stop: h.stop };
}

function withDb(url, db) {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

async function sql(url, fn) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A fresh, empty database on the admin server; returns its URL. */
async function freshDatabase(admin, name) {
  await sql(admin, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  });
  return withDb(admin, name);
}

/** The admin CLI against `dbUrl`; its one JSON object. */
function cli(dbUrl, ...argv) {
  const out = execFileSync('node', [resolve(ROOT, 'dist/src/cli.js'), ...argv], {
    env: { ...process.env, DATABASE_URL: dbUrl },
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

async function waitFor(url) {
  // Up to two minutes: starting the service on a busy 2-core machine can take most of one.
  for (let i = 0; i < 1200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

/** Environment of a service process under load: no rate limit, quiet logs, no bootstrap. */
/**
 * The service as `npm run start:prod` starts it (node flags included), spawned directly so the measured
 * process is the service itself, not npm.
 */
/** The built service of this checkout, or of the checkout at `root` (run.js --compare), as `npm run start:prod` starts it. */
/**
 * The start command (`start:prod`) in parts: its environment assignments (`MALLOC_ARENA_MAX=2`, which the shell
 * applies over the inherited environment), the program, its Node options and its script resolved against `root`.
 */
function startCommand(root = ROOT) {
  const words = require('../package.json').scripts['start:prod'].split(/\s+/);
  const env = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
    const [name, ...value] = words.shift().split('=');
    env[name] = value.join('=');
  }
  const [cmd, ...args] = words;
  const flags = args.filter((a) => a.startsWith('-'));
  const script = args.filter((a) => !a.startsWith('-')).map((a) => resolve(root, a));
  return { env, cmd, flags, script };
}

/** The Node options of the start command (`start:prod`): heap bounds the service runs with. */
function startFlags() {
  return startCommand().flags;
}

function spawnService(env, stdio = ['ignore', 'ignore', 'inherit'], root = ROOT) {
  const start = startCommand(root);
  return spawn(start.cmd, [...start.flags, ...start.script], { env: { ...env, ...start.env }, stdio });
}

function serviceEnv(dbUrl, port) {
  return {
    ...process.env,
    DATABASE_URL: dbUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    RATE_LIMIT_MAX: '1000000000',
    LOG_LEVEL: 'error',
    SEED_ON_EMPTY: 'false',
  };
}

/**
 * After seeding: statistics and visibility map up to date, and the seed's dirty pages written out, so the
 * measured writes do not wait behind the checkpoints the seed triggered (CHECKPOINT needs a superuser;
 * without one the run goes on and says so).
 */
async function settle(c, log, table = '') {
  await c.query(`VACUUM ANALYZE ${table}`);
  try {
    await c.query('CHECKPOINT');
  } catch (e) {
    log(`CHECKPOINT refused (${e.message}); writes may be measured behind the seed's checkpoints`);
  }
}

/** `--name N` from the command line as a number, else `dflt`. */
function numberOption(name, dflt) {
  const args = process.argv.slice(2);
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
}

/** A JSON API call to the service on `port` as `key`; throws on a status of 300 or more. */
async function api(port, method, path, key, body) {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { 'X-Api-Key': key, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const j = await r.json();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(j)}`);
  return j;
}

/**
 * The seeded benchmark workspace's and project's ids (slug `bench`, identifier BENCH) and the project's seeded members
 * (member1@example.com, member2@... in number order), on the client `c`.
 */
async function benchSeedIds(c) {
  const { ws, project } = (
    await c.query(
      `SELECT w.id AS ws, p.id AS project FROM workspaces w JOIN projects p ON p.workspace_id = w.id
        WHERE w.slug = 'bench' AND p.identifier = 'BENCH'`,
    )
  ).rows[0];
  const members = (
    await c.query(
      `SELECT m.member_id AS id FROM project_members m JOIN users u ON u.id = m.member_id
        WHERE m.project_id = $1 AND u.email LIKE 'member%@example.com' ORDER BY length(u.email), u.email`,
      [project],
    )
  ).rows.map((r) => r.id);
  // The other workspace's project, where the benchmark's creates go (bench/scenarios.js).
  const { creates } = (
    await c.query(
      `SELECT p.id AS creates FROM workspaces w JOIN projects p ON p.workspace_id = w.id
        WHERE w.slug = 'noise' AND p.identifier = 'NC'`,
    )
  ).rows[0];
  return { ws, project, members, creates };
}

module.exports = {
  ROOT,
  benchSeedIds,
  sleep,
  adminUrl,
  withDb,
  sql,
  freshDatabase,
  cli,
  waitFor,
  serviceEnv,
  spawnService,
  startCommand,
  startFlags,
  settle,
};
/** `--name value` from the command line, else undefined. */
function stringOption(name) {
  const args = process.argv.slice(2);
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

Object.assign(module.exports, { numberOption, stringOption, api });

/** The middle value (the mean of the two middle ones for an even count). */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** A copy of `xs` in random order (Fisher-Yates). */
function shuffle(xs) {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/**
 * Microseconds so far in which some task waited on `resource` ('cpu', 'io', 'memory': /proc/pressure), or undefined
 * where the kernel does not have the file.
 */
function pressureStallMicros(resource) {
  try {
    return Number(/^some .*total=(\d+)/m.exec(readFileSync(`/proc/pressure/${resource}`, 'utf8'))[1]);
  } catch {
    return undefined;
  }
}

/** The machine's CPU time so far, in clock ticks, from /proc/stat: user, nice, system, idle, iowait, irq, softirq, steal... */
const procStat = () => readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);

function cpuTicks() {
  try {
    const f = procStat();
    return { total: f.reduce((a, b) => a + b, 0), steal: f[7] ?? 0 };
  } catch {
    return null;
  }
}

/** The share of CPU time stolen by the hypervisor between two cpuTicks() samples, as text. */
function stealBetween(a, b) {
  if (!a || !b || b.total === a.total) return 'not visible';
  return `${(((b.steal - a.steal) / (b.total - a.total)) * 100).toFixed(1)}%`;
}

/** PostgreSQL's version and the settings that move the benchmark's figures. */
async function pgSettings(url) {
  const names = [
    'shared_buffers',
    'work_mem',
    'effective_cache_size',
    'max_connections',
    'synchronous_commit',
    'fsync',
    'wal_level',
    'autovacuum',
    'jit',
    'random_page_cost',
    'max_parallel_workers_per_gather',
  ];
  return sql(url, async (c) => {
    const version = (await c.query('SHOW server_version')).rows[0].server_version;
    const rows = (await c.query(`SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1)`, [names])).rows;
    const shown = names.map((n) => rows.find((r) => r.name === n)).filter(Boolean);
    return `PostgreSQL ${version}; ${shown.map((r) => `${r.name}=${r.setting}${r.unit ? ` (${r.unit})` : ''}`).join(', ')}`;
  });
}

/** CPU model, cores, time since boot and the kernel's proactive reclaim: the machine a figure came from. */
function machineLine() {
  const os = require('node:os');
  const cpus = os.cpus();
  const up = `up ${Math.round(os.uptime() / 60)} min`;
  return `${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores; node ${process.version}; ${os.platform()} ${os.release()}; ${up}; ${damonReclaim()}`;
}

const DAMON = '/sys/kernel/mm/damon/admin/kdamonds';
const readTrim = (path) => readFileSync(path, 'utf8').trim();

/**
 * Whether the kernel pages out memory nobody touched (a DAMON `pageout` scheme, as this project's Firecracker guests
 * run: file pages idle for a minute are dropped, so a database read an hour after its seed comes from disk), and
 * after how long. Read from DAMON's sysfs; 'no DAMON pageout' where there is none or it cannot be read.
 */
function damonReclaim() {
  try {
    const found = [];
    for (let k = 0; k < Number(readTrim(`${DAMON}/nr_kdamonds`)); k++) {
      if (readTrim(`${DAMON}/${k}/state`) !== 'on') continue;
      const ctx = `${DAMON}/${k}/contexts/0`;
      const aggrMicros = Number(readTrim(`${ctx}/monitoring_attrs/intervals/aggr_us`));
      for (let s = 0; s < Number(readTrim(`${ctx}/schemes/nr_schemes`)); s++) {
        const scheme = `${ctx}/schemes/${s}`;
        if (readTrim(`${scheme}/action`) !== 'pageout') continue;
        const idleSeconds = (Number(readTrim(`${scheme}/access_pattern/age/min`)) * aggrMicros) / 1e6;
        found.push(`DAMON pageout of pages idle >= ${idleSeconds} s`);
      }
    }
    return found.length ? found.join(', ') : 'no DAMON pageout';
  } catch {
    return 'no DAMON pageout';
  }
}

const loadAverage = () =>
  require('node:os')
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/**
 * A ceiling process (bench/bare-server.js) on `dbUrl`, serving the bench project's list page, with the service's heap
 * flags and start environment (MALLOC_ARENA_MAX): with Node's defaults its young generation differed. It sends
 * 'ready' once listening.
 */
function startBare(dbUrl, workspaceId, projectId, port) {
  const { fork } = require('node:child_process');
  return fork(resolve(__dirname, 'bare-server.js'), [], {
    execArgv: startFlags(),
    env: {
      ...process.env,
      ...startCommand().env,
      DATABASE_URL: dbUrl,
      PORT: String(port),
      BENCH_WORKSPACE_ID: workspaceId,
      BENCH_PROJECT_ID: projectId,
      BENCH_IDENTIFIER: 'BENCH',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
}

Object.assign(module.exports, {
  median,
  shuffle,
  procStat,
  pressureStallMicros,
  cpuTicks,
  stealBetween,
  pgSettings,
  machineLine,
  loadAverage,
  startBare,
});
