'use strict';
/*
 * node bench/plans-guessed.js --database NAME [--workspace] [--only REGEX] [--timeout 10] [--factor 3] [--keep]
 *
 * Plans under the statistics of a workspace of many projects (issue 27; docs/work-items-plans.md, What to change
 * next 10 and Done 40-44), in one command. On a database `npm run bench -- --seed-only --database NAME` left
 * (BENCH_DATABASE_URL's server), it makes a copy, NAME_guessed (`CREATE DATABASE ... TEMPLATE NAME`: nothing may
 * be connected to NAME meanwhile), tells PostgreSQL there what a deployment of 2,000 projects with 10,000 states
 * would (`n_distinct` of work_items.project_id and state_id, then ANALYZE: any one project's state, or priority, is
 * then guessed at a row or two), runs `bench/plans.js` on NAME and on the copy, and prints every statement whose
 * execution time or buffers are more than `--factor` times (and 1 ms or 20 buffers more than) what they are with
 * NAME's own statistics. Exits 1 when there is one. The copy is dropped at the end unless `--keep`. Needs a build
 * (`npm run build`), as bench/plans.js does.
 */
const { spawnSync } = require('node:child_process');
const { resolve } = require('node:path');
const lib = require('./lib');

const DB = lib.stringOption('database');
const ONLY = lib.stringOption('only');
const TIMEOUT = lib.numberOption('timeout', 10);
const FACTOR = lib.numberOption('factor', 3);
const KEEP = process.argv.includes('--keep');
const WORKSPACE = process.argv.includes('--workspace');

/** What a workspace of many projects, each with its own states, tells the planner (docs: Done 41). */
const GUESSED = [
  'ALTER TABLE work_items ALTER COLUMN project_id SET (n_distinct = 2000)',
  'ALTER TABLE work_items ALTER COLUMN state_id SET (n_distinct = 10000)',
  'ANALYZE work_items',
];

/** bench/plans.js's summary rows of `database`: query and statement -> [plan, planning ms, execution ms, buffers]. */
function plansOf(database) {
  const args = [resolve(__dirname, 'plans.js'), '--database', database, '--timeout', String(TIMEOUT)];
  if (WORKSPACE) args.push('--workspace');
  if (ONLY) args.push('--only', ONLY);
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`bench/plans.js --database ${database} failed:\n${run.stderr}`);
  const rows = new Map();
  for (const line of run.stdout.split('\n')) {
    if (!line.startsWith('| ')) continue;
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 8 || cells[1] === 'query' || cells[1].startsWith('---')) continue;
    let key = `${cells[1]}: ${cells[2]}`;
    while (rows.has(key)) key += ' (again)';
    rows.set(key, { plan: cells[3], ms: Number(cells[5]), buffers: Number(cells[6].replace(/,/g, '')) || 0 });
  }
  return rows;
}

/** The statements at least FACTOR times slower or larger on the copy. */
function worse(own, guessed) {
  const found = [];
  for (const [key, a] of own) {
    const b = guessed.get(key);
    if (!b) continue;
    const slower = b.ms > a.ms * FACTOR && b.ms - a.ms > 1;
    const larger = b.buffers > a.buffers * FACTOR && b.buffers - a.buffers > 20;
    if (slower || larger) found.push({ key, a, b });
  }
  return found;
}

async function main() {
  if (!DB || !process.env.BENCH_DATABASE_URL) throw new Error('set BENCH_DATABASE_URL and --database NAME');
  const copy = `${DB}_guessed`;
  await lib.sql(process.env.BENCH_DATABASE_URL, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${copy}`);
    await c.query(`CREATE DATABASE ${copy} TEMPLATE ${DB}`);
  });
  try {
    await lib.sql(lib.withDb(process.env.BENCH_DATABASE_URL, copy), async (c) => {
      for (const statement of GUESSED) await c.query(statement);
    });
    const found = worse(plansOf(DB), plansOf(copy));
    console.log(
      `statements more than ${FACTOR}x slower or larger with the guessed statistics (${copy}): ${found.length}`,
    );
    console.log('| query: statement | own: plan, ms, buffers | guessed: plan, ms, buffers |\n| --- | --- | --- |');
    for (const { key, a, b } of found)
      console.log(`| ${key} | ${a.plan}, ${a.ms}, ${a.buffers} | ${b.plan}, ${b.ms}, ${b.buffers} |`);
    process.exitCode = found.length ? 1 : 0;
  } finally {
    if (!KEEP) await lib.sql(process.env.BENCH_DATABASE_URL, (c) => c.query(`DROP DATABASE IF EXISTS ${copy}`));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
