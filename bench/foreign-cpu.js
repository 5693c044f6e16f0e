'use strict';
/**
 * CPU time on the machine that is not the benchmark's own (issue 27's noise). Per slice: the machine's busy time
 * (user + nice + system in /proc/stat) minus what the benchmark's processes used (this harness, the servers it
 * measures, and the PostgreSQL server's processes that serve the bench database or the whole server). Measured on
 * an idle 2-core guest, the ceiling's 2-second slices were 1,300-1,580 req/s with no foreign time, and 860-1,140
 * while a package install ran beside it: the slices a neighbour took 20-40% of the CPU from are the outliers that
 * made every run NOISY, and the load average or steal time (0.0% throughout) did not show them.
 */
const { readFileSync, readdirSync } = require('node:fs');
const { procStat } = require('./lib');

/** utime + stime of a process, in clock ticks; 0 when it is gone. */
function processTicks(pid) {
  try {
    // The command name is in parentheses and may hold spaces; the fields after it are fixed.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/**
 * Whether a PostgreSQL process works for the benchmark: every process of the server but the client backends of
 * other databases (another engineer's tests on the same server are foreign load). A client backend's title is
 * `postgres: [cluster:] user database host(port) state`.
 */
function servesBench(title, database) {
  const client = /\s(\[local\]|[\d.:a-f]+\(\d+\))\s/.test(title);
  return !client || title.includes(` ${database} `);
}

/** The PostgreSQL processes that serve `database` (see servesBench), each with its clock ticks. */
function postgresTicks(database, into) {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres')) continue;
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (servesBench(title, database)) into.set(Number(pid), processTicks(pid));
    } catch {
      /* the process ended while being read */
    }
  }
  return into;
}

/**
 * The benchmark's CPU between two snapshots of its processes' ticks (pid -> ticks): what each process present at
 * the end used since the start (all of it for one started since). A process gone by the end is left out: a sum
 * would drop by all it ever used (a pool's backend closed mid-slice once made a slice read 1,591% foreign).
 */
function usedBetween(a, b) {
  let used = 0;
  for (const [pid, ticks] of b) used += Math.max(0, ticks - (a.get(pid) ?? 0));
  return used;
}

/** The machine's busy and total clock ticks. */
function machineTicks() {
  const f = procStat();
  return { busy: f[0] + f[1] + f[2], total: f.reduce((a, b) => a + b, 0) };
}

/**
 * A meter over the benchmark's processes: `pids()` lists the servers (read at each snapshot: a restarted service
 * has a new pid), `database` the bench database. `snapshot()` before and after a slice; `foreign(a, b)` the share
 * of the machine's CPU between them that none of them used. Undefined where /proc is not there.
 */
function foreignCpuMeter(pids, database) {
  try {
    machineTicks();
  } catch {
    return undefined;
  }
  const ours = () => {
    const ticks = new Map([process.pid, ...pids()].map((pid) => [pid, processTicks(pid)]));
    return postgresTicks(database, ticks);
  };
  return {
    snapshot: () => ({ ...machineTicks(), ours: ours() }),
    foreign: (a, b) => {
      const total = b.total - a.total;
      if (total <= 0) return 0;
      // Process times and /proc/stat are sampled apart, so a quiet slice can read a little below zero.
      return Math.min(1, Math.max(0, b.busy - a.busy - usedBetween(a.ours, b.ours)) / total);
    },
  };
}

module.exports = { foreignCpuMeter, servesBench, usedBetween, processTicks, postgresTicks };
