'use strict';
/**
 * The components of `npm run test:scale`, all on loopback with ports of their own: PostgreSQL (embedded, or
 * DATABASE_URL's server), PgBouncer in session mode and HAProxy from Debian's packages (deploy/pgbouncer.ini and
 * deploy/haproxy.cfg), a Redis of its own, and the API instances.
 */
const { execFileSync, spawn } = require('node:child_process');
const { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { resolve } = require('node:path');
const lib = require('../../bench/lib');

const { ROOT, sleep } = lib;
const DIR = resolve(ROOT, '.data/scale');
const LOGS = resolve(DIR, 'logs');
const DB_NAME = 'wt_scale';
/** Binary -> Debian package. */
const PACKAGES = { pgbouncer: 'pgbouncer', haproxy: 'haproxy', 'redis-server': 'redis-server' };
const SBIN = ['/usr/sbin', '/usr/bin', '/sbin', '/bin', '/usr/local/sbin', '/usr/local/bin'];

const log = (...a) => process.stderr.write(`[scale] ${a.join(' ')}\n`);

function binary(name) {
  const dirs = [...(process.env.PATH || '').split(':'), ...SBIN];
  return dirs.map((d) => resolve(d, name)).find((p) => existsSync(p));
}

/** Installs the Debian packages whose binaries are missing, and says so. */
function ensurePackages() {
  const missing = Object.keys(PACKAGES).filter((b) => !binary(b));
  if (!missing.length) return;
  const pkgs = missing.map((b) => PACKAGES[b]);
  if (process.getuid?.() !== 0) {
    throw new Error(`missing ${pkgs.join(', ')}: install them (sudo apt-get install ${pkgs.join(' ')}) and rerun`);
  }
  log(`installing the missing Debian packages with apt-get: ${pkgs.join(', ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...pkgs], { stdio: ['ignore', 'ignore', 'inherit'], env });
  log(`installed ${pkgs.join(', ')}`);
}

/**
 * Ports of their own: SCALE_PORT_BASE and the next six. The default, 29100, is below Linux's ephemeral range
 * (32768-60999), where an outgoing connection of anything else on the machine (a test suite's, a pool's) may hold
 * the very port a component is about to listen on. Without SCALE_PORT_BASE the first base from 29100 up (in
 * steps of 10) whose seven ports are all free is taken.
 */
async function ports() {
  const given = process.env.SCALE_PORT_BASE;
  for (let base = Number(given || 29100), tries = given ? 1 : 20; tries > 0; base += 10, tries--) {
    const all = Array.from({ length: 7 }, (_, i) => base + i);
    if ((await Promise.all(all.map(isFree))).every(Boolean)) {
      return { balancer: base, apis: [base + 1, base + 2, base + 3], bouncer: base + 4, pg: base + 5, redis: base + 6 };
    }
    log(`a port of ${base}..${base + 6} is taken${given ? '' : ', trying the next ten'}`);
  }
  throw new Error(`no seven free ports from ${given || 29100} (set SCALE_PORT_BASE)`);
}

/** Whether 127.0.0.1:`port` can be listened on now. */
function isFree(port) {
  const server = require('node:net').createServer();
  return new Promise((res) => {
    server.once('error', () => res(false));
    server.listen(port, '127.0.0.1', () => server.close(() => res(true)));
  });
}

/** Every process this run started, stopped at the end whatever happens. */
class Processes {
  constructor() {
    this.all = new Map();
    process.on('exit', () => {
      for (const p of this.all.values()) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    });
  }

  start(name, cmd, args, opts = {}) {
    const fd = openSync(resolve(LOGS, `${name}.log`), 'a');
    const p = spawn(cmd, args, { ...opts, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    p.exited = new Promise((r) => p.once('exit', (code, signal) => r({ code, signal })));
    this.all.set(name, p);
    return p;
  }

  async stopAll() {
    const live = [...this.all.values()].filter((p) => p.exitCode === null && p.signalCode === null);
    for (const p of live) p.kill('SIGTERM');
    await Promise.race([Promise.all(live.map((p) => p.exited)), sleep(5000)]);
    for (const p of live) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  }
}

/** A TCP port that accepts connections (the component is up), or an error after `ms`. */
async function waitPort(port, name, ms = 15000) {
  const net = require('node:net');
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const ok = await new Promise((r) => {
      const s = net.connect(port, '127.0.0.1', () => (s.destroy(), r(true)));
      s.on('error', () => r(false));
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`${name} did not listen on ${port} (see ${LOGS}/${name}.log)`);
}

/** Until the instance on `port` answers /readyz with 200 (a busy 2-core machine may take a while to start one). */
async function waitReady(port, ms = 120000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(5000) })).ok) return;
    } catch {
      /* not up yet */
    }
    await sleep(100);
  }
  throw new Error(`the instance on ${port} was not ready within ${ms / 1000} s (see ${LOGS})`);
}

/** PostgreSQL: DATABASE_URL's server, else the embedded one under .data/scale; a fresh database on it. */
async function startPostgres(port) {
  let admin = process.env.DATABASE_URL;
  let stop = async () => undefined;
  if (!admin) {
    const { startEmbeddedPostgres } = require(resolve(ROOT, 'dist/src/common/database/embedded.js'));
    const h = await startEmbeddedPostgres(resolve(DIR, 'pg-data'), port, 'postgres');
    admin = h.url;
    stop = h.stop;
  }
  const url = await lib.freshDatabase(admin, DB_NAME);
  // PgBouncer 1.18 drops node-postgres's `options` startup parameter (deploy/pgbouncer.ini): the setting the
  // service asks for there is the database's own default instead.
  await lib.sql(admin, (c) => c.query(`ALTER DATABASE ${DB_NAME} SET max_parallel_workers_per_gather = 0`));
  const version = await lib.sql(url, async (c) => (await c.query('SHOW server_version')).rows[0].server_version);
  return { url, stop, version, embedded: !process.env.DATABASE_URL };
}

function prepareDirs() {
  rmSync(LOGS, { recursive: true, force: true });
  mkdirSync(LOGS, { recursive: true });
}

/** deploy/pgbouncer.ini with the test's addresses, ports and files (the keys it marks "test:"), all else as is. */
function pgbouncerIni(dbUrl, port, dir) {
  const u = new URL(dbUrl);
  const set = {
    listen_addr: '127.0.0.1',
    listen_port: port,
    unix_socket_dir: '',
    auth_type: u.password ? 'scram-sha-256' : 'trust',
    auth_file: resolve(dir, 'userlist.txt'),
    logfile: '',
    pidfile: '',
  };
  const text = readFileSync(resolve(ROOT, 'deploy/pgbouncer.ini'), 'utf8')
    .split('\n')
    .map((line) => {
      const key = /^(\w+)\s*=/.exec(line)?.[1];
      return key && key in set ? `${key} = ${set[key]}` : line;
    })
    .join('\n');
  const target = `${DB_NAME} = host=${u.hostname} port=${u.port || 5432} dbname=${DB_NAME}`;
  if (!/^worktracking = .*$/m.test(text)) throw new Error('deploy/pgbouncer.ini has no "worktracking = ..." database');
  return text.replace(/^worktracking = .*$/m, target);
}

/** PgBouncer (Debian's), which refuses to run as root: as the `postgres` user then. */
async function startPgBouncer(procs, dbUrl, port) {
  const dir = resolve(DIR, 'pgbouncer');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const u = new URL(dbUrl);
  const user = decodeURIComponent(u.username || 'postgres');
  writeFileSync(resolve(dir, 'pgbouncer.ini'), pgbouncerIni(dbUrl, port, dir));
  writeFileSync(resolve(dir, 'userlist.txt'), `"${user}" "${decodeURIComponent(u.password)}"\n`, { mode: 0o600 });
  const root = process.getuid?.() === 0;
  const args = [...(root ? ['-u', 'postgres'] : []), resolve(dir, 'pgbouncer.ini')];
  if (root) fixOwner(dir);
  procs.start('pgbouncer', binary('pgbouncer'), args);
  await waitPort(port, 'pgbouncer');
  u.host = `127.0.0.1:${port}`;
  return u.toString();
}

/** Gives `dir` and its files to the `postgres` user (whatever its ids on this machine). */
function fixOwner(dir) {
  execFileSync('chown', ['-R', 'postgres:', dir]);
}

/** A Redis of its own: nothing persisted, loopback only. */
async function startRedis(procs, port) {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  procs.start('redis', binary('redis-server'), args);
  await waitPort(port, 'redis');
  return `redis://127.0.0.1:${port}`;
}

/** HAProxy with deploy/haproxy.cfg as written; its request log is logs/haproxy.log. */
async function startHaproxy(procs, port, apiPorts) {
  const cfg = resolve(ROOT, 'deploy/haproxy.cfg');
  const env = { ...process.env, HAPROXY_BIND: `127.0.0.1:${port}` };
  apiPorts.forEach((p, i) => (env[`API${i + 1}_ADDR`] = `127.0.0.1:${p}`));
  execFileSync(binary('haproxy'), ['-c', '-q', '-f', cfg], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  procs.start('haproxy', binary('haproxy'), ['-db', '-f', cfg], { env });
  await waitPort(port, 'haproxy');
}

/** The service as `npm run start:prod` starts it, as instance `name`. */
function startInstance(procs, name, env) {
  const words = require('../../package.json').scripts['start:prod'].split(/\s+/);
  // Leading `NAME=value` words are environment assignments (MALLOC_ARENA_MAX), applied as the shell would.
  const assigned = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
    const [k, ...v] = words.shift().split('=');
    assigned[k] = v.join('=');
  }
  const [cmd, ...args] = words;
  return procs.start(
    name,
    cmd,
    args.map((a) => (a.startsWith('-') ? a : resolve(ROOT, a))),
    { env: { ...env, ...assigned } },
  );
}

module.exports = { DIR, LOGS, DB_NAME, log, ensurePackages, ports, Processes, waitPort, waitReady, prepareDirs };
Object.assign(module.exports, { startPostgres, startPgBouncer, startRedis, startHaproxy, startInstance });
