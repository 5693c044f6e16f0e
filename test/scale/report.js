'use strict';
/** The report of `npm run test:scale`: requests, errors by cause, latency through the balancer, the checks. */
const os = require('node:os');
const { execFileSync } = require('node:child_process');

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

const ms = (x) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : 'n/a');

/**
 * A failed request the kill explains: the balancer's 5xx for api2, or a reset, for a request under way between
 * the signal and the moment the process was seen gone (its socket accepted until then), give or take 50 ms.
 */
function killedInFlight(r, kill) {
  const inFlight = r.start <= (kill.goneAt ?? kill.at) + 50 && r.end >= kill.at;
  // The balancer's 502 names the instance; a response cut off after its headers reaches the client as a reset.
  return inFlight && ((r.status >= 500 && r.cause.startsWith('balancer') && r.server === kill.name) || r.status === 0);
}

function opTable(records) {
  const ops = [...new Set(records.map((r) => r.op))];
  const rows = ops.map((op) => {
    const mine = records.filter((r) => r.op === op);
    const t = mine.map((r) => r.end - r.start).sort((a, b) => a - b);
    const failed = mine.filter((r) => r.cause !== 'ok').length;
    return `| ${op.padEnd(13)} | ${String(mine.length).padStart(8)} | ${String(failed).padStart(6)} | ${ms(percentile(t, 50)).padStart(7)} | ${ms(percentile(t, 99)).padStart(7)} |`;
  });
  const all = records.map((r) => r.end - r.start).sort((a, b) => a - b);
  const failed = records.filter((r) => r.cause !== 'ok').length;
  return [
    '| request       | requests | failed |     p50 |     p99 |',
    '|---------------|----------|--------|---------|---------|',
    ...rows,
    `| ${'all'.padEnd(13)} | ${String(records.length).padStart(8)} | ${String(failed).padStart(6)} | ${ms(percentile(all, 50)).padStart(7)} | ${ms(percentile(all, 99)).padStart(7)} |`,
  ];
}

function errorLines(records, kill) {
  const causes = new Map();
  for (const r of records.filter((x) => x.cause !== 'ok')) {
    const why = killedInFlight(r, kill)
      ? `${r.cause} from ${r.server ?? kill.name}: in flight at its SIGKILL`
      : r.cause;
    causes.set(why, (causes.get(why) ?? 0) + 1);
  }
  if (!causes.size) return ['errors: none'];
  return ['errors by cause:', ...[...causes].map(([why, n]) => `  ${String(n).padStart(5)}  ${why}`)];
}

/** The failures no event explains, one line each (time from the start of the load), for the log of a failed run. */
function unexplainedLines(records, kill, t0) {
  const odd = records.filter((r) => r.cause !== 'ok' && !killedInFlight(r, kill));
  const line = (r) =>
    `  +${((r.start - t0) / 1000).toFixed(1)} s  ${r.op}  ${r.cause}  via ${r.server ?? '?'}  (${(r.end - r.start).toFixed(0)} ms)`;
  return odd.length ? ['failures no event explains:', ...odd.slice(0, 30).map(line)] : [];
}

function machine() {
  const haproxy = execFileSync('haproxy', ['-v'], { encoding: 'utf8' }).split('\n')[0].split(' ')[2];
  const bouncer = execFileSync('pgbouncer', ['--version'], { encoding: 'utf8' }).split('\n')[0].split(' ')[1];
  const load = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  return `${os.cpus()[0].model}, ${os.cpus().length} CPUs; load average ${load}; HAProxy ${haproxy}, PgBouncer ${bouncer}, node ${process.version}`;
}

function checkList(load, db) {
  const { events, records } = load;
  const unexplained = records.filter((r) => r.cause !== 'ok' && !killedInFlight(r, events.kill));
  const within = (arr) => arr.every((x) => x !== null && x.lastAccepted < 1000);
  const acked = db.items.acked;
  return [
    [
      'no acknowledged create, patch or membership change lost',
      !db.items.lost.length && !db.items.wrongSequence.length && !db.items.lostPatch.length && !db.members.wrong.length,
    ],
    [
      'no write applied twice (rows = acknowledged creates + at most the unanswered ones)',
      db.rowsInDb >= acked && db.rowsInDb <= acked + db.unackedCreates,
    ],
    ["every request answered 2xx but the killed instance's in-flight ones", unexplained.length === 0],
    ['graceful restart (SIGTERM) exited 0', events.restart.code === 0],
    ['rate limits shared across instances', events.rateLimit.pass],
    ['API key revoked (CLI): refused by every instance within 1 s', within(events.keyRevocation)],
    ['member removed through api1: refused by every instance within 1 s', within(events.memberRemoval)],
    ['sequence numbers unique', db.sequences.duplicatesInDb === 0 && db.sequences.duplicatesAcked === 0],
  ];
}

/** Per instance: the last request still accepted (when it was sent) and the first refusal (when it arrived). */
function revocation(perInstance) {
  const one = (x, i) => {
    if (!x) return `api${i + 1} never refused it`;
    const last =
      x.lastAccepted === -Infinity || x.lastAccepted < -1e9
        ? 'none accepted after'
        : `last accepted sent at +${x.lastAccepted} ms`;
    return `api${i + 1} ${last}, first refusal at +${x.refusedAt} ms`;
  };
  return perInstance.map(one).join('; ');
}

function eventLines(events, db, t0) {
  const { restart, kill, rateLimit: rl } = events;
  const at = (t) => `+${((t - t0) / 1000).toFixed(1)} s`;
  return [
    `api1 SIGTERM at ${at(restart.at)}, api2 SIGKILL at ${at(kill.at)} (seen gone at ${at(kill.goneAt)})`,
    `api1 SIGTERM: exited with ${restart.code ?? restart.signal} after ${restart.stoppedMs} ms, ready again after ${restart.backMs} ms`,
    `api2 SIGKILL: started again after 2 s, ready again after ${kill.backMs} ms`,
    `API key revoked with the CLI: ${revocation(events.keyRevocation)}`,
    `member removed through api1: ${revocation(events.memberRemoval)}`,
    `rate limit: X-RateLimit-Remaining through api1,2,3,1,2,3 = ${rl.seen.join(', ')}; ${rl.ok} of ${rl.sent} requests served, then ${rl.after.join('/')} from api1/api2/api3 (${rl.letThrough} let through after the budget while Redis did not answer in time; ${rl.seconds.toFixed(1)} s)`,
    `writes: ${db.items.acked} acknowledged creates, ${db.unackedCreates} unanswered (${db.rowsInDb - db.items.acked} of them landed); ${db.items.patchUnknown} items with an unanswered patch; memberships checked ${db.members.checked}, unknown ${db.members.unknown}`,
  ];
}

function report({ load, db, pg, duration, workers, rate, limit, windowSeconds }) {
  const perServer = new Map();
  for (const r of load.records) if (r.server) perServer.set(r.server, (perServer.get(r.server) ?? 0) + 1);
  const results = checkList(load, db);
  const failed = results.filter(([, ok]) => !ok).length;
  const lines = [
    `scale test: 3 instances behind HAProxy, PgBouncer (session), Redis, PostgreSQL ${pg.version}; ${workers} workers at up to ${rate} req/s each for ${duration} s (ran ${load.seconds.toFixed(0)} s: until the events below were over); rate limit ${limit} per credential per ${windowSeconds} s`,
    `machine: ${machine()}`,
    '',
    ...opTable(load.records),
    `throughput ${(load.records.length / load.seconds).toFixed(0)} req/s; answered by ${[...perServer].map(([s, n]) => `${s} ${n}`).join(', ')}`,
    ...errorLines(load.records, load.events.kill),
    ...unexplainedLines(load.records, load.events.kill, load.t0),
    '',
    ...eventLines(load.events, db, load.t0),
    '',
    ...results.map(([name, ok]) => `${ok ? 'PASS' : 'FAIL'}  ${name}`),
    `${results.length - failed} passed, ${failed} failed`,
  ];
  return { out: lines.join('\n') + '\n', failed };
}

module.exports = { report };
