'use strict';
/*
 * node --require=./bench/peak-probe.js dist/src/main.js   (or bench/memory.js --flags "... --require=<abs path>")
 *
 * Peak memory breakdown of the process it is preloaded into (issue 27, docs/read-path-profile.md "Peak memory,
 * third pass"): every 250 ms, when VmRSS is at a new maximum, records V8's spaces (physical sizes) and the resident
 * memory of /proc/self/smaps by kind (the node binary, the main malloc arena `[heap]`, glibc thread arenas: 64
 * MB-aligned anonymous mappings, and other anonymous memory: V8's pages, stacks, large mallocs); written at exit to
 * $PEAK_PROBE_DIR (default the system temporary directory) as peak-<pid>.json. SIGWINCH writes a heap snapshot
 * there (for bench/heap-by-package.js).
 *
 * `PEAK_PROBE_SERIES=1`: also a time series, one JSON line a second in series-<pid>.jsonl (epoch seconds, VmRSS,
 * VmHWM, RssAnon, V8's spaces, external and array buffers, the anonymous memory V8 does not hold, collections so
 * far by kind), to tell which part grows over a long load and when. `PEAK_PROBE_MATCH=TEXT`: the probe runs only in
 * a process whose script path contains TEXT (preloaded through NODE_OPTIONS into a benchmark that starts several).
 * SIGUSR2 writes the live heap after two full collections to the series (`"live"`), between the loads of a run.
 */
const fs = require('node:fs');
const v8 = require('node:v8');
const { join } = require('node:path');
const DIR = process.env.PEAK_PROBE_DIR || require('node:os').tmpdir();
const ACTIVE = !process.env.PEAK_PROBE_MATCH || (process.argv[1] ?? '').includes(process.env.PEAK_PROBE_MATCH);

if (ACTIVE) start();

function smapsByKind() {
  const text = fs.readFileSync('/proc/self/smaps', 'utf8');
  const out = {};
  let kind = null;
  let prevEnd = -1,
    prevKind = null;
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const path = head[4];
      const lo = parseInt(head[1], 16),
        hi = parseInt(head[2], 16);
      const aligned64 = lo % (64 * 1048576) === 0;
      kind = path
        ? path.includes('/bin/node')
          ? 'node binary'
          : path.startsWith('[')
            ? path
            : 'file ' + path.split('/').slice(-1)[0]
        : aligned64 && hi - lo <= 64 * 1048576
          ? 'anon: malloc thread arena (64 MB-aligned)'
          : 'anon: other (V8 pages, stacks, large mallocs)';
      if (!path && lo === prevEnd && prevKind === 'anon: malloc thread arena (64 MB-aligned)') kind = prevKind;
      prevEnd = hi;
      prevKind = kind;
      continue;
    }
    const r = /^Rss:\s+(\d+) kB/.exec(line);
    if (r && kind) out[kind] = (out[kind] || 0) + Number(r[1]) / 1024;
  }
  return out;
}

let max = 0;
let best = null;

function start() {
  const timer = setInterval(() => {
    const rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
    if (rss <= max) return;
    max = rss;
    const mu = process.memoryUsage();
    const mb = (x) => +(x / 1048576).toFixed(1);
    best = {
      rss: +rss.toFixed(1),
      v8: Object.fromEntries(
        v8
          .getHeapSpaceStatistics()
          .filter((s) => s.physical_space_size > 0)
          .map((s) => [s.space_name, mb(s.physical_space_size)]),
      ),
      v8physical: mb(v8.getHeapStatistics().total_physical_size),
      external: mb(mu.external),
      arrayBuffers: mb(mu.arrayBuffers),
      smaps: Object.fromEntries(
        Object.entries(smapsByKind())
          .map(([k, v]) => [k, +v.toFixed(1)])
          .filter(([, v]) => v >= 0.5),
      ),
    };
  }, 250);
  timer.unref();
  process.on('exit', () => fs.writeFileSync(join(DIR, `peak-${process.pid}.json`), JSON.stringify(best, null, 1)));
  process.on('SIGWINCH', () => v8.writeHeapSnapshot(join(DIR, `heap-${process.pid}-${Date.now()}.heapsnapshot`)));
  if (process.env.PEAK_PROBE_SERIES) series();
  if (process.env.PEAK_PROBE_PROMOTED) promotedProfile(Number(process.env.PEAK_PROBE_PROMOTED));
}

/**
 * `PEAK_PROBE_PROMOTED=S`: from S seconds after start until exit, a sampling heap profile that keeps objects a full
 * collection freed but drops those a scavenge freed: what survived the young generation (was promoted), live or
 * not, by allocation site. Written at exit as promoted-<pid>.heapprofile (Chrome DevTools reads it).
 */
function promotedProfile(delaySeconds) {
  const { Session } = require('node:inspector');
  const session = new Session();
  session.connect();
  const timer = setTimeout(() => {
    session.post('HeapProfiler.enable');
    session.post('HeapProfiler.startSampling', { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true });
  }, delaySeconds * 1000);
  timer.unref();
  process.on('exit', () => {
    session.post('HeapProfiler.stopSampling', (err, res) => {
      if (!err) fs.writeFileSync(join(DIR, `promoted-${process.pid}.heapprofile`), JSON.stringify(res.profile));
    });
  });
}

/** VmRSS, VmHWM and RssAnon of this process, in MB. */
function statusMb() {
  const text = fs.readFileSync('/proc/self/status', 'utf8');
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(text)[1]) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM'), anon: kb('RssAnon') };
}

function series() {
  const { PerformanceObserver, constants } = require('node:perf_hooks');
  const gcs = { minor: 0, major: 0, incremental: 0, weak: 0, majorMs: 0 };
  const kinds = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const k = kinds[e.detail?.kind];
      if (k) gcs[k]++;
      if (k === 'major') gcs.majorMs += e.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  const file = join(DIR, `series-${process.pid}.jsonl`);
  const r1 = (x) => +x.toFixed(1);
  const line = (extra) => {
    const s = statusMb();
    const mu = process.memoryUsage();
    const spaces = Object.fromEntries(
      v8.getHeapSpaceStatistics().map((x) => [x.space_name.replace('_space', ''), r1(x.physical_space_size / 1048576)]),
    );
    const v8phys = v8.getHeapStatistics().total_physical_size / 1048576;
    const row = {
      t: r1(Date.now() / 1000),
      rss: r1(s.rss),
      hwm: r1(s.hwm),
      anon: r1(s.anon),
      v8: r1(v8phys),
      used: r1(mu.heapUsed / 1048576),
      notV8anon: r1(s.anon - v8phys),
      ext: r1(mu.external / 1048576),
      ab: r1(mu.arrayBuffers / 1048576),
      ...spaces,
      gc: { ...gcs, majorMs: Math.round(gcs.majorMs) },
      ...extra,
    };
    fs.appendFileSync(file, JSON.stringify(row) + '\n');
  };
  let n = 0;
  // Every fifth line the malloc arenas too (reading smaps takes a few milliseconds).
  const arenas = () => {
    const k = smapsByKind();
    return { heap: r1(k['[heap]'] ?? 0), arenas: r1(k['anon: malloc thread arena (64 MB-aligned)'] ?? 0) };
  };
  const t = setInterval(() => line(n++ % 5 === 0 ? arenas() : {}), 1000);
  t.unref();
  process.on('SIGUSR2', () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = require('node:vm').runInNewContext('gc');
    gc();
    gc();
    line({ live: r1(process.memoryUsage().heapUsed / 1048576) });
  });
}
