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
 */
const fs = require('node:fs');
const v8 = require('node:v8');
const { join } = require('node:path');
const DIR = process.env.PEAK_PROBE_DIR || require('node:os').tmpdir();

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
