'use strict';
/*
 * npm run test:scale [-- --duration 60 --workers 24 --rate 5]
 *
 * Several instances behind real components, on loopback: PostgreSQL (embedded under .data/scale, or DATABASE_URL's
 * server, on which it creates the database wt_scale), PgBouncer in session mode and HAProxy from Debian's packages
 * (installed with apt-get when missing), a Redis of its own and three API instances. Through the balancer it runs a
 * mixed load for `--duration` seconds while it restarts api1 gracefully (SIGTERM) and kills api2 (SIGKILL), then
 * checks what docs/scaling.md lists and prints a report; the last line is "N passed, N failed".
 * Ports: SCALE_PORT_BASE (default: the first free seven from 29100) to SCALE_PORT_BASE + 6. Logs: .data/scale/logs/.
 */
const { writeFileSync } = require('node:fs');
const { resolve } = require('node:path');
const lib = require('../../bench/lib');
const stack = require('./stack');
const { seed, createProject } = require('./setup');
const { Worker, call } = require('./load');
const checks = require('./checks');
const { verify } = require('./verify');
const { report } = require('./report');

const opt = lib.numberOption;
const DURATION = opt('duration', 60);
const WORKERS = opt('workers', 24);
const RATE = opt('rate', 5);
/** Long enough for the probe to spend a budget on a busy machine (1000 requests took 58 s at load average 30). */
const WINDOW_SECONDS = 120;
/** Per credential and window: a load key spends at most two thirds of it, the rate-limit probe all of it. */
const LIMIT = Math.max(1000, Math.ceil(RATE * WINDOW_SECONDS * 1.5));
const { sleep } = lib;
const log = stack.log;

function instanceEnv(ctx, port) {
  return {
    ...process.env,
    DATABASE_URL: ctx.bouncerUrl,
    REDIS_URL: ctx.redisUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: ctx.balancer,
    TRUST_PROXY: 'true',
    RATE_LIMIT_MAX: String(LIMIT),
    RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
    DB_POOL_SIZE: '8',
    LOG_LEVEL: 'warn',
    SEED_ON_EMPTY: 'false',
    // As docker/compose.yaml: out of HAProxy's rotation before it stops listening (deploy/haproxy.cfg's checks).
    SHUTDOWN_DRAIN_SECONDS: '5',
  };
}

async function startInstances(ctx) {
  ctx.apiPorts.forEach((port, i) => stack.startInstance(ctx.procs, `api${i + 1}`, instanceEnv(ctx, port)));
  await Promise.all(ctx.apiPorts.map((p) => stack.waitReady(p)));
}

/** Until the balancer has seen every instance up (its health checks run every 500 ms). */
async function balancerReady(ctx) {
  const seen = new Set();
  for (let i = 0; i < 200 && seen.size < ctx.apiPorts.length; i++) {
    const r = await call(ctx.balancer, 'GET', '/readyz');
    if (r.status === 200) seen.add(r.server);
    await sleep(50);
  }
  if (seen.size < ctx.apiPorts.length) throw new Error(`the balancer reached only ${[...seen].join(', ')}`);
}

async function startStack(ctx) {
  const pg = await stack.startPostgres(ctx.ports.pg);
  Object.assign(ctx, { pg, dbUrl: pg.url });
  log(`PostgreSQL ${pg.version} (${pg.embedded ? 'embedded' : 'DATABASE_URL'}); seeding`);
  ctx.data = await seed(pg.url, WORKERS);
  ctx.redisUrl = await stack.startRedis(ctx.procs, ctx.ports.redis);
  ctx.bouncerUrl = await stack.startPgBouncer(ctx.procs, pg.url, ctx.ports.bouncer);
  log('PgBouncer and Redis up; starting 3 instances');
  await startInstances(ctx);
  await stack.startHaproxy(ctx.procs, ctx.ports.balancer, ctx.apiPorts);
  await balancerReady(ctx);
  ctx.projectId = await createProject(ctx.balancer, ctx.data);
  log(`HAProxy on ${ctx.balancer} routes to ${ctx.apiPorts.join(', ')}`);
}

/** SIGTERM: the instance finishes what it accepted and exits; then it is started again. */
async function gracefulRestart(ctx, name, port) {
  const p = ctx.procs.all.get(name);
  const t0 = Date.now();
  p.kill('SIGTERM');
  const { code, signal } = await p.exited;
  const stoppedMs = Date.now() - t0;
  stack.startInstance(ctx.procs, name, instanceEnv(ctx, port));
  await stack.waitReady(port);
  return { name, at: t0, code, signal, stoppedMs, backMs: Date.now() - t0 };
}

/** SIGKILL: whatever the instance was answering is lost with it; started again 2 s later. */
async function killAndRestart(ctx, name, port) {
  const p = ctx.procs.all.get(name);
  const at = Date.now();
  p.kill('SIGKILL');
  await p.exited;
  // Until the kernel has torn the process down, its listening socket still accepts connections: a request that
  // arrives then is lost with the instance like one it was answering (seen: 100 ms after the signal on a busy CI
  // machine). `goneAt` is when the process was seen gone; a request started after it had no such excuse.
  const goneAt = Date.now();
  await sleep(2000);
  stack.startInstance(ctx.procs, name, instanceEnv(ctx, port));
  await stack.waitReady(port);
  return { name, at, goneAt, backMs: Date.now() - at };
}

/** The events beside the load, at fixed fractions of it. */
async function timeline(ctx, t0) {
  const at = (f) => sleep(Math.max(0, t0 + DURATION * 1000 * f - Date.now()));
  const ev = {};
  await at(0.2);
  ev.restart = await gracefulRestart(ctx, 'api1', ctx.apiPorts[0]);
  await at(0.45);
  ev.kill = await killAndRestart(ctx, 'api2', ctx.apiPorts[1]);
  await at(0.65);
  const checkCtx = { ...ctx.data, apiPorts: ctx.apiPorts, bouncerUrl: ctx.bouncerUrl, projectId: ctx.projectId };
  ev.keyRevocation = await checks.keyRevocation(checkCtx);
  ev.memberRemoval = await checks.memberRemoval(checkCtx);
  await at(0.8);
  ev.rateLimit = await checks.sharedRateLimit({ ...checkCtx, limit: LIMIT, windowSeconds: WINDOW_SECONDS });
  return ev;
}

/**
 * The load runs for `--duration` seconds and, on a machine slow enough that the events take longer (an instance
 * may need most of a minute to start on a busy 2-core machine), until the last of them is over.
 */
async function runLoad(ctx) {
  const records = [];
  const record = (r) => records.push(r);
  const loadCtx = { balancer: ctx.balancer, slug: ctx.data.slug, projectId: ctx.projectId };
  const workers = ctx.data.loadKeys.map(
    (key, i) => new Worker(i, loadCtx, key, ctx.data.users.slice(2 * i, 2 * i + 2), record),
  );
  const t0 = Date.now();
  log(`load: ${WORKERS} workers at up to ${RATE} req/s each for ${DURATION} s`);
  let eventsDone = false;
  const done = () => eventsDone && Date.now() >= t0 + DURATION * 1000;
  const events = timeline(ctx, t0).finally(() => (eventsDone = true));
  const [ev] = await Promise.all([events, ...workers.map((w) => w.run(done, RATE))]);
  return { records, workers, events: ev, t0, seconds: (Date.now() - t0) / 1000 };
}

async function main() {
  stack.ensurePackages();
  stack.prepareDirs();
  const ports = await stack.ports();
  const ctx = {
    ports,
    apiPorts: ports.apis,
    balancer: `http://127.0.0.1:${ports.balancer}`,
    procs: new stack.Processes(),
  };
  try {
    await startStack(ctx);
    const load = await runLoad(ctx);
    const db = await verify(ctx.dbUrl, ctx.projectId, load.workers);
    const text = report({
      load,
      db,
      pg: ctx.pg,
      duration: DURATION,
      workers: WORKERS,
      rate: RATE,
      limit: LIMIT,
      windowSeconds: WINDOW_SECONDS,
    });
    writeFileSync(resolve(stack.DIR, 'report.txt'), text.out);
    process.stdout.write(text.out);
    return text.failed;
  } finally {
    await ctx.procs.stopAll();
    if (ctx.pg) await ctx.pg.stop();
  }
}

main().then(
  (failed) => process.exit(failed ? 1 : 0),
  (e) => {
    process.stderr.write(`${e.stack || e}\n0 passed, 1 failed\n`);
    process.exit(1);
  },
);
