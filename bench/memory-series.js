'use strict';
/*
 * node bench/memory-series.js SERIES.jsonl [BENCH-STDERR]
 *
 * Reads the time series bench/peak-probe.js writes with PEAK_PROBE_SERIES=1 (issue 27, docs/read-path-profile.md
 * "Peak memory, fifth pass") and prints:
 * - every moment VmRSS rose by more than 1.5 MB within a second, with V8's physical heap then and its largest so
 *   far, and the anonymous memory outside V8's heap and the malloc arenas (`other`): memory V8 freed but kept;
 * - per minute: the live heap's floor (the least `heapUsed` seen), the old space's range, full collections and
 *   scavenges;
 * - with the benchmark's stderr, each line prefixed with `HH:MM:SS ` (bench/run.js's slice lines), per row: scavenges
 *   and full collections per 1,000 requests and the largest old space and V8 heap seen during its slices (each
 *   slice taken as the 4 s before its line: `--duration 20`).
 */
const { readFileSync } = require('node:fs');

const rows = readFileSync(process.argv[2], 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
// The arenas are read every fifth second: carry them forward.
let arenas = { heap: 0, arenas: 0 };
for (const r of rows) {
  if (r.heap !== undefined) arenas = { heap: r.heap, arenas: r.arenas };
  else Object.assign(r, arenas);
}
const f = (x, d = 0) => x.toFixed(d);

function rises() {
  console.log('VmRSS rises (MB): time, VmRSS (+rise), V8 heap (largest so far), new, old, other anonymous');
  let top = 0;
  rows.forEach((r, i) => {
    top = Math.max(top, r.v8);
    const prev = rows[i - 1];
    if (!prev || r.rss - prev.rss <= 1.5) return;
    const other = r.anon - r.v8 - r.heap - r.arenas;
    const at = new Date(r.t * 1000).toISOString().slice(11, 19);
    console.log(
      `${at} ${f(r.rss)} (+${f(r.rss - prev.rss, 1)}) v8 ${f(r.v8)} (${f(top)}) new ${f(r.new)} old ${f(r.old)} other ${f(other, 1)}`,
    );
  });
  const last = rows[rows.length - 1];
  const other = last.anon - last.v8 - last.heap - last.arenas;
  console.log(
    `last: VmRSS ${f(last.rss)}, VmHWM ${f(last.hwm)}, V8 heap ${f(last.v8)} (largest ${f(top)}), malloc ${f(last.heap)} + ${f(last.arenas)}, other ${f(other, 1)}`,
  );
}

function perMinute() {
  console.log('\nper minute: floor of heapUsed, old space min-max, V8 heap max, full GCs, scavenges, VmRSS at the end');
  const t0 = rows[0].t;
  const groups = new Map();
  for (const r of rows) {
    const k = Math.floor((r.t - t0) / 60);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(r);
  }
  for (const [k, g] of groups) {
    const a = g[0];
    const b = g[g.length - 1];
    const min = (key) => Math.min(...g.map((r) => r[key]));
    const max = (key) => Math.max(...g.map((r) => r[key]));
    console.log(
      `${k}: used >= ${f(min('used'), 1)}, old ${f(min('old'))}-${f(max('old'))}, v8 <= ${f(max('v8'))}, full ${b.gc.major - a.gc.major}, scavenges ${b.gc.minor - a.gc.minor}, VmRSS ${f(b.rss)}`,
    );
  }
}

function perRow(file) {
  const day = new Date(rows[0].t * 1000).toISOString().slice(0, 10);
  const at = (t) => rows.reduce((best, r) => (r.t <= t ? r : best), rows[0]);
  const byRow = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^(\d\d:\d\d:\d\d) \[bench\]\s+(.*?): (\d+) req\/s(.*)$/.exec(line);
    if (!m || m[4].includes('again')) continue;
    const t = Date.parse(`${day}T${m[1]}Z`) / 1000;
    const a = at(t - 4);
    const b = at(t);
    const d = byRow.get(m[2]) ?? { requests: 0, minor: 0, major: 0, old: 0, v8: 0 };
    d.requests += Number(m[3]) * 4;
    d.minor += b.gc.minor - a.gc.minor;
    d.major += b.gc.major - a.gc.major;
    for (const r of rows)
      if (r.t >= t - 4 && r.t <= t) ((d.old = Math.max(d.old, r.old)), (d.v8 = Math.max(d.v8, r.v8)));
    byRow.set(m[2], d);
  }
  console.log('\n| row | requests | scavenges /1k | full GCs /1k | largest old space | largest V8 heap |');
  console.log('|---|---|---|---|---|---|');
  const sorted = [...byRow].sort((x, y) => y[1].major / y[1].requests - x[1].major / x[1].requests);
  for (const [name, d] of sorted) {
    const per1k = (x) => f((x * 1000) / d.requests, 2);
    console.log(`| ${name} | ${d.requests} | ${per1k(d.minor)} | ${per1k(d.major)} | ${f(d.old)} | ${f(d.v8)} |`);
  }
}

rises();
perMinute();
if (process.argv[3]) perRow(process.argv[3]);
