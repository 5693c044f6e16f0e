'use strict';
/*
 * node bench/ceiling-noise.js --database wt_bench [--slices 15 --slice 2 --lead 1 --connections 32 --port 3870]
 *
 * Is this machine steady enough to benchmark on? The ceiling alone (bench/bare-server.js) on a seeded database
 * (`npm run bench -- --seed-only`), `--slices` slices of `--slice` seconds back to back, each after `--lead` s of
 * unmeasured load, and per slice what the machine did: CPU shares from /proc/stat, the CPU-pressure stall time
 * (/proc/pressure/cpu, where the kernel has it), the ticks of the harness, the ceiling and PostgreSQL, the foreign
 * share (bench/foreign-cpu.js) and PostgreSQL's checkpoints. Ends with the slices' spread, as run.js's noise check
 * computes it, over all slices and over those with at most 5% foreign CPU.
 */
const autocannon = require('autocannon');
const lib = require('./lib');
const { foreignCpuMeter } = require('./foreign-cpu');
const { DISTURBED } = require('./interleave');

const DB = lib.stringOption('database') ?? 'wt_bench';
const SLICES = lib.numberOption('slices', 15);
const SECONDS = lib.numberOption('slice', 2);
const LEAD = lib.numberOption('lead', 1);
const PORT = lib.numberOption('port', 3870);
const CONNECTIONS = lib.numberOption('connections', 32);
const base = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const url = lib.withDb(base, DB);

/** CPU-pressure stall so far, in ms (NaN without /proc/pressure). */
const cpuStall = () => (lib.pressureStallMicros('cpu') ?? NaN) / 1000;

/** The machine's counters at one moment. */
async function counters(c, meter) {
  const ck = await c.query(`SELECT checkpoints_timed + checkpoints_req AS n FROM pg_stat_bgwriter`);
  return { stat: lib.procStat(), stall: cpuStall(), meter: meter.snapshot(), checkpoints: Number(ck.rows[0].n) };
}

/** One line of the per-slice table from the counters before and after a slice. */
function sliceLine(i, r, a, b, meter) {
  const d = b.stat.map((x, j) => x - a.stat[j]);
  const total = d.reduce((x, y) => x + y, 0);
  const share = (j) => ((d[j] / total) * 100).toFixed(1).padStart(5);
  const foreign = meter.foreign(a.meter, b.meter);
  const fields = [
    String(i).padStart(2),
    (r.requests.total / SECONDS).toFixed(0).padStart(6),
    String(r.latency.p99).padStart(4),
    `${share(0)} ${share(2)} ${share(3)} ${share(4)} ${share(7)}`,
    (b.stall - a.stall).toFixed(0).padStart(6),
    (foreign * 100).toFixed(1).padStart(5),
    String(b.checkpoints - a.checkpoints),
  ];
  return { line: fields.join(' | '), rps: r.requests.total / SECONDS, foreign };
}

const spread = (xs) => (Math.max(...xs) - Math.min(...xs)) / lib.median(xs);

async function main() {
  await lib.sql(url, async (c) => {
    const { bench, main: project } = (
      await c.query(`SELECT w.id AS bench, p.id AS main FROM workspaces w JOIN projects p ON p.workspace_id = w.id
                      WHERE w.slug = 'bench' AND p.identifier = 'BENCH'`)
    ).rows[0];
    const bare = lib.startBare(url, bench, project, PORT);
    try {
      await new Promise((r) => bare.once('message', r));
      const load = { url: `http://127.0.0.1:${PORT}/list`, connections: CONNECTIONS };
      await autocannon({ ...load, duration: 10 });
      const meter = foreignCpuMeter(() => [bare.pid], DB);
      console.log(`machine: ${lib.machineLine()}; load average ${lib.loadAverage()}`);
      console.log(' # |  req/s |  p99 |  user   sys  idle iowait steal | stall ms | foreign % | checkpoints');
      const kept = [];
      const all = [];
      for (let i = 0; i < SLICES; i++) {
        if (LEAD > 0) await autocannon({ ...load, duration: LEAD });
        const a = await counters(c, meter);
        const r = await autocannon({ ...load, duration: SECONDS });
        const s = sliceLine(i, r, a, await counters(c, meter), meter);
        console.log(s.line);
        all.push(s.rps);
        if (s.foreign <= DISTURBED) kept.push(s.rps);
      }
      const pct = (x) => `${(x * 100).toFixed(0)}%`;
      console.log(`spread of all ${all.length} slices: ${pct(spread(all))}`);
      if (kept.length) console.log(`spread of the ${kept.length} with foreign CPU <= 5%: ${pct(spread(kept))}`);
    } finally {
      bare.kill('SIGTERM');
    }
  });
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
