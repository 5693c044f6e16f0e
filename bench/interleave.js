'use strict';
/**
 * Interleaved measurement (issue 27): instead of one long run per row in sequence, every round runs a short slice
 * of every row, the ceiling included, in a new random order, so a neighbour's burst on a shared machine lands on
 * the ceiling and the scenarios alike. Each row's ratio is taken against the ceiling's slice of the same round;
 * a row reports the median of its ratios and their spread. A run whose ceiling slices differ by more than 15%
 * (max - min over the median) is flagged noisy: its figures are not results.
 */
const autocannon = require('autocannon');
const { median, shuffle, pressureStallMicros } = require('./lib');

const NOISY = 0.15;
const pct = (x) => `${(x * 100).toFixed(0)}%`;
/** A slice in which other processes used more than this share of the machine's CPU is measured again. */
const DISTURBED = 0.05;
/** Times a disturbed slice is measured again before it is kept, marked, and the run called noisy. */
const RETRIES = 3;

// The load generator runs in this process for every row, so garbage one slice left (the 200-row pages' bodies
// most) would be collected during the next slice, on the same two cores as the servers it measures. A full
// collection between slices, unmeasured, starts each slice from the same state.
require('node:v8').setFlagsFromString('--expose-gc');
const collect = require('node:vm').runInNewContext('gc');

/**
 * One slice of `row`: req/s over the slice, latency percentiles, failed requests. `lead` seconds of the same load
 * run first, unmeasured: a server that sat idle through the other rows' slices (the ceiling most of all) was
 * slower for its first second back, which alone moved a lone server's back-to-back 2 s slices by a third.
 */
async function slice(row, seconds, connections, lead = 0, meter = undefined, wal = undefined) {
  const load = { connections: row.connections ?? connections, ...row.opts };
  collect();
  if (lead > 0) await autocannon({ ...load, duration: lead });
  const walBefore = await wal?.position();
  const before = meter?.snapshot();
  // Time some task waited on I/O: a cold page cache shows here, not in the CPU counters (BENCHMARKS.md, "Peak RSS
  // with `--no-allocation-site-pretenuring`": a million-item run on a seed an hour old waited half its time).
  const ioBefore = pressureStallMicros('io');
  const r = await autocannon({ ...load, duration: seconds });
  const foreign = meter ? meter.foreign(before, meter.snapshot()) : 0;
  const ioAfter = pressureStallMicros('io');
  const walAfter = await wal?.position();
  const took = r.duration > 0 ? r.duration : seconds;
  // Which statuses failed, so an error count is explained in the log rather than guessed at.
  if (r.non2xx) process.stderr.write(`[bench] ${row.name}: statuses ${JSON.stringify(r.statusCodeStats)}\n`);
  return {
    rps: r.requests.total / took,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
    foreign,
    ioStall: ioBefore === undefined || ioAfter === undefined ? undefined : (ioAfter - ioBefore) / (took * 1e6),
    walPerRequest: wal && r.requests.total > 0 ? (walAfter - walBefore) / r.requests.total : undefined,
  };
}

/**
 * One slice of a row in a round (`measure()`), measured again (up to RETRIES times) while other processes took
 * more than DISTURBED of the CPU (bench/foreign-cpu.js): such a slice measures the neighbour. The kept slice says
 * how many attempts it took; one still disturbed after them is kept as it is, and summarize() calls the run noisy.
 */
async function undisturbedSlice(measure, name, log) {
  for (let attempt = 0; ; attempt++) {
    const s = await measure();
    if (s.foreign <= DISTURBED || attempt === RETRIES) return { ...s, retries: attempt };
    log(`  ${name}: ${s.rps.toFixed(0)} req/s while other processes used ${pct(s.foreign)} of the CPU: again`);
  }
}

/**
 * Every row warmed once (a row may ask for a longer warm-up: the ceiling's own process gets no load from the other
 * rows, so its JIT warms only in its own slices), then `rounds` rounds of one slice per row in random order, each
 * after `lead` seconds of unmeasured load; the slices per row.
 */
async function interleave(rows, { rounds, seconds, warmUp, lead, connections, meter, wal, log }) {
  for (const row of rows) {
    const w = Math.max(warmUp, row.warmUp ?? 0);
    if (w > 0) await slice(row, w, connections);
  }
  const samples = new Map(rows.map((r) => [r.name, []]));
  for (let i = 0; i < rounds; i++) {
    for (const row of shuffle(rows)) {
      const s = await undisturbedSlice(() => slice(row, seconds, connections, lead, meter, wal), row.name, log);
      samples.get(row.name).push(s);
      // Every slice in the order it ran, so a noisy ceiling slice can be matched with the slice before it.
      const io = s.ioStall === undefined ? '' : `, I/O stall ${pct(s.ioStall)}`;
      log(
        `  ${row.name}: ${s.rps.toFixed(0)} req/s, p50 ${s.p50} ms, p99 ${s.p99} ms, foreign CPU ${pct(s.foreign)}${io}`,
      );
    }
    log(`round ${i + 1}/${rounds}`);
  }
  return samples;
}

const spreadOf = (xs) => (Math.max(...xs) - Math.min(...xs)) / median(xs);

/**
 * Per row: median req/s, p50, p99, ratio to the ceiling (median and range); the run's noise verdict. A row that
 * names a ceiling of its own (`row.ceiling`, a row id: the 200-row page's) is measured against that one.
 */
function summarize(rows, samples, ceilingName) {
  const ceilingRps = samples.get(ceilingName).map((s) => s.rps);
  const out = rows.map((row) => {
    const own = row.ceiling && rows.find((r) => r.id === row.ceiling);
    const ceiling = samples.get(own ? own.name : ceilingName);
    const s = samples.get(row.name);
    const ratios = s.map((x, i) => x.rps / ceiling[i].rps);
    return {
      name: row.name,
      rps: median(s.map((x) => x.rps)),
      p50: median(s.map((x) => x.p50)),
      p99: median(s.map((x) => x.p99)),
      ratio: median(ratios),
      low: Math.min(...ratios),
      high: Math.max(...ratios),
      p50Ratio: median(s.map((x, i) => x.p50 / ceiling[i].p50)),
      errors: s.reduce((n, x) => n + x.errors, 0),
      walPerRequest: s.every((x) => x.walPerRequest !== undefined) ? median(s.map((x) => x.walPerRequest)) : undefined,
    };
  });
  const spread = spreadOf(ceilingRps);
  const foreign = foreignOf([...samples.values()].flat());
  return {
    rows: out,
    ceilingRps,
    spread,
    ...foreign,
    ioStall: ioStallOf(samples),
    noisy: spread > NOISY || foreign.disturbed > 0,
  };
}

/**
 * The slice that waited on I/O longest and its row, or undefined without /proc/pressure/io. Reported, not judged:
 * the writes' own WAL flushes wait on I/O in every quiet run too, and no threshold has been measured yet.
 */
function ioStallOf(samples) {
  const all = [...samples].flatMap(([row, slices]) => slices.map((s) => ({ share: s.ioStall, row })));
  return worstStall(all);
}

/** The largest of `{ share, row }` stalls, skipping unknown shares; undefined when none is known. */
function worstStall(stalls) {
  return stalls.filter((x) => x?.share !== undefined).reduce((a, b) => (a && a.share >= b.share ? a : b), undefined);
}

/** Slices measured again for foreign CPU, slices kept while still disturbed, the most foreign CPU in a kept one. */
function foreignOf(slices) {
  return {
    retried: slices.reduce((n, s) => n + (s.retries ?? 0), 0),
    disturbed: slices.filter((s) => (s.foreign ?? 0) > DISTURBED).length,
    maxForeign: Math.max(0, ...slices.map((s) => s.foreign ?? 0)),
  };
}

/** The median of several runs' summaries, row by row (`--repeat N`); noisy when any run was. */
function combine(runs) {
  const rows = runs[0].rows.map((first, i) => {
    const all = runs.map((r) => r.rows[i]);
    const pick = (k) => median(all.map((r) => r[k]));
    return {
      name: first.name,
      rps: pick('rps'),
      p50: pick('p50'),
      p99: pick('p99'),
      ratio: pick('ratio'),
      low: Math.min(...all.map((r) => r.ratio)),
      high: Math.max(...all.map((r) => r.ratio)),
      p50Ratio: pick('p50Ratio'),
      errors: all.reduce((n, r) => n + r.errors, 0),
      walPerRequest: all.every((r) => r.walPerRequest !== undefined) ? pick('walPerRequest') : undefined,
    };
  });
  const ceilingRps = runs.flatMap((r) => r.ceilingRps);
  return {
    rows,
    ceilingRps,
    spread: Math.max(...runs.map((r) => r.spread)),
    retried: runs.reduce((n, r) => n + r.retried, 0),
    disturbed: runs.reduce((n, r) => n + r.disturbed, 0),
    maxForeign: Math.max(...runs.map((r) => r.maxForeign)),
    ioStall: worstStall(runs.map((r) => r.ioStall)),
    noisy: runs.some((r) => r.noisy),
  };
}

/** The table of one summary, with the noise verdict under it. */
function table(summary, title) {
  const pad = (s, n) => String(s).padEnd(n);
  const lines = [
    title,
    `| ${pad('scenario', 50)} | ${pad('req/s', 7)} | ${pad('p50 ms', 6)} | ${pad('p99 ms', 6)} | ${pad('vs ceiling (median)', 19)} | ${pad('range', 11)} | ${pad('p50 vs ceiling', 14)} | errors |`,
    `|${'-'.repeat(52)}|${'-'.repeat(9)}|${'-'.repeat(8)}|${'-'.repeat(8)}|${'-'.repeat(21)}|${'-'.repeat(13)}|${'-'.repeat(16)}|--------|`,
  ];
  for (const r of summary.rows) {
    lines.push(
      `| ${pad(r.name, 50)} | ${pad(r.rps.toFixed(0), 7)} | ${pad(r.p50, 6)} | ${pad(r.p99, 6)} | ${pad(pct(r.ratio), 19)} | ${pad(`${pct(r.low)}-${pct(r.high)}`, 11)} | ${pad(`${r.p50Ratio.toFixed(2)}x`, 14)} | ${pad(r.errors, 6)} |`,
    );
  }
  const slices = summary.ceilingRps.map((x) => x.toFixed(0)).join(', ');
  const foreign =
    `foreign CPU (other processes' share of the machine): at most ${pct(summary.maxForeign)} in a kept slice; ` +
    `${summary.retried} slice(s) measured again above ${pct(DISTURBED)}, ${summary.disturbed} kept above it`;
  const why = summary.spread > NOISY ? `the ceiling's slices differ by ${pct(summary.spread)} (> ${pct(NOISY)})` : '';
  const disturbed = summary.disturbed > 0 ? `${summary.disturbed} slice(s) stayed disturbed` : '';
  const verdict = summary.noisy
    ? `NOISY: ${[why, disturbed].filter(Boolean).join('; ')}: not a result, rerun on a quiet machine`
    : `quiet: the ceiling's slices differ by ${pct(summary.spread)} (<= ${pct(NOISY)})`;
  lines.push(`ceiling slices req/s: ${slices}`, foreign);
  if (summary.ioStall) {
    lines.push(
      `I/O stall (/proc/pressure/io, some): at most ${pct(summary.ioStall.share)} of a slice (${summary.ioStall.row})`,
    );
  }
  const wal = walLine(summary.rows);
  if (wal) lines.push(wal);
  lines.push(verdict);
  return lines.join('\n');
}

/** WAL is a write's main cost that grows with the data (full-page images of pages first changed since a checkpoint). */
const WAL_SHOWN = 100;

/**
 * The median WAL bytes each row's requests wrote (the server's insert position before and after each slice; the
 * whole server's, so nothing else may write meanwhile), for the rows that write more than WAL_SHOWN bytes a request.
 */
function walLine(rows) {
  const writers = rows.filter((r) => r.walPerRequest !== undefined && r.walPerRequest > WAL_SHOWN);
  if (!writers.length) return '';
  const kb = (b) => `${(b / 1024).toFixed(1)} kB`;
  return `WAL per request (median of the slices): ${writers.map((r) => `${r.name} ${kb(r.walPerRequest)}`).join('; ')}`;
}

module.exports = { interleave, undisturbedSlice, summarize, combine, table, NOISY, DISTURBED };
