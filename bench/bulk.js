'use strict';
/*
 * 50 work items created by one bulk-create against 50 single creates (issue 19: the bulk must be at least 10x faster).
 * Part of `npm run bench` (a line after the load table); on its own against a running service:
 *   WT_URL=http://127.0.0.1:3000 WT_KEY=<api key> WT_ITEMS=/api/v2/workspaces/<slug>/projects/<id>/work-items/ node bench/bulk.js
 * Each round creates 50 items one request after another, then 50 with one bulk-create; prints the median of 5 rounds.
 */
const ROWS = 50;

async function post(base, path, key, body) {
  const r = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'X-Api-Key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const j = await r.json();
  if (r.status >= 300) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(j)}`);
  return j;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median milliseconds of 50 single creates and of one bulk-create of 50, over `rounds` rounds. */
async function bulkVsSingle(base, key, items, rounds = 5) {
  const single = [];
  const bulk = [];
  for (let r = 0; r < rounds; r++) {
    let t0 = performance.now();
    for (let i = 0; i < ROWS; i++) await post(base, items, key, { name: `single ${r}.${i}`, priority: 'high' });
    single.push(performance.now() - t0);
    t0 = performance.now();
    const res = await post(base, `${items}bulk-create/`, key, {
      items: Array.from({ length: ROWS }, (_, i) => ({ name: `bulk ${r}.${i}`, priority: 'high' })),
    });
    bulk.push(performance.now() - t0);
    if (res.succeeded !== ROWS) throw new Error(`bulk-create wrote ${res.succeeded} of ${ROWS}`);
  }
  const s = median(single);
  const b = median(bulk);
  return `${ROWS} work items: ${ROWS} single creates ${s.toFixed(0)} ms, one bulk-create ${b.toFixed(0)} ms (${(s / b).toFixed(1)}x; median of ${rounds} rounds, one request at a time)`;
}

module.exports = { bulkVsSingle };

if (require.main === module) {
  const { WT_URL, WT_KEY, WT_ITEMS } = process.env;
  if (!WT_URL || !WT_KEY || !WT_ITEMS) throw new Error('set WT_URL, WT_KEY and WT_ITEMS');
  bulkVsSingle(WT_URL, WT_KEY, WT_ITEMS).then(
    (line) => process.stdout.write(`${line}\n`),
    (e) => {
      process.stderr.write(`${e.stack || e}\n`);
      process.exit(1);
    },
  );
}
