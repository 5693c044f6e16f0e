'use strict';
/*
 * node bench/link-gap-writes.js --database NAME [--rounds 3] [--first 0]   (BENCH_DATABASE_URL's server; the database a
 * `npm run bench -- --items 1000000 --seed-only` seed left, migrated with WorkItemLinkGaps)
 *
 * What the gap tables (migration WorkItemLinkGaps, docs/work-items-plans.md "Items without assignees or labels") cost
 * the link writes. Each statement runs alone in a transaction that is rolled back, timed by the client, on rows no
 * earlier run touched, in `--rounds` rounds; each round runs every statement once with the gap triggers disabled
 * (`main`: ALTER TABLE ... DISABLE TRIGGER, the link and item writes exactly as main runs them; the label deletion
 * without its carrier lock) and once enabled (`gaps`), alternating which side goes first, on the same data and
 * cache. Prints every time and each side's range per statement.
 */
const { Client } = require('pg');
const { randomUUID } = require('node:crypto');
const lib = require('./lib');

const ROUNDS = lib.numberOption('rounds', 3);
const DATABASE = lib.stringOption('database');

/** The gap triggers (migration WorkItemLinkGaps) a `main` run disables: the link tables' and work_items'. */
const TRIGGERS = [
  ['work_item_assignees', 'trg_work_item_assignee_gaps_link_ins'],
  ['work_item_assignees', 'trg_work_item_assignee_gaps_link_del'],
  ['work_item_labels', 'trg_work_item_label_gaps_link_ins'],
  ['work_item_labels', 'trg_work_item_label_gaps_link_del'],
  ['work_items', 'trg_work_item_gaps_item_ins'],
  ['work_items', 'trg_work_item_gaps_item_upd'],
];

/**
 * The statements, each for run `k` (0, 1, ...: rows of its own) on the seed `s` (workspace, project, members,
 * labels). `gaps`: the side, for the label deletion's carrier lock (the labels service sends it first).
 */
const STATEMENTS = [
  {
    name: 'one assignee added',
    sql: (s, k) => [
      `INSERT INTO work_item_assignees (work_item_id, assignee_id, workspace_id, project_id)
       SELECT id, $3, workspace_id, project_id FROM work_items WHERE workspace_id = $1 AND project_id = $2 AND sequence_id = $4
       ON CONFLICT DO NOTHING`,
      [s.ws, s.project, s.members[(1000 + k * 3 + 10) % 20], 1000 + k * 3],
    ],
  },
  {
    // An item with one assignee (sequence numbers not divisible by 3): it becomes unassigned.
    name: 'one assignee removed (the last)',
    sql: (s, k) => [
      `DELETE FROM work_item_assignees x USING work_items w
        WHERE w.workspace_id = $1 AND w.project_id = $2 AND w.sequence_id = $3 AND x.workspace_id = $1 AND x.work_item_id = w.id`,
      [s.ws, s.project, 3 * (700 + k * 5) + 1],
    ],
  },
  ...[100, 10000].map((n) => ({
    name: `${n} items labelled`,
    sql: (s, k) => [
      `INSERT INTO work_item_labels (work_item_id, label_id, workspace_id, project_id)
       SELECT id, $3, workspace_id, project_id FROM work_items WHERE workspace_id = $1 AND project_id = $2 AND sequence_id >= $4 AND sequence_id < $4 + $5`,
      [s.ws, s.project, randomUUID(), (n === 100 ? 100000 : 200000) + k * n, n],
    ],
  })),
  {
    name: 'a label deleted (its links stripped)',
    sql: (s, k, gaps) => {
      const strip = `DELETE FROM work_item_labels WHERE workspace_id = $1 AND label_id = $2`;
      const lock = `SELECT 1 FROM (SELECT x.work_item_id FROM work_item_labels x WHERE x.workspace_id = $1 AND x.label_id = $2 ORDER BY x.work_item_id) k
        CROSS JOIN LATERAL (SELECT 1 FROM work_items w WHERE w.workspace_id = $1 AND w.id = k.work_item_id FOR NO KEY UPDATE OF w) l`;
      return [gaps ? [lock, strip] : [strip], [s.ws, s.labels[k % s.labels.length]]];
    },
  },
  {
    name: 'item created (no links)',
    sql: (s, k) => [
      `INSERT INTO work_items (workspace_id, project_id, sequence_id, name, priority, state_id, sort_order, created_by_id, updated_by_id)
       SELECT $1, $2, 2000000 + $3::int, 'gap bench', 'none', w.state_id, 1, w.created_by_id, w.created_by_id
         FROM work_items w WHERE w.workspace_id = $1 AND w.project_id = $2 AND w.sequence_id = 1`,
      [s.ws, s.project, k],
    ],
  },
  {
    name: 'item created with an assignee and a label',
    sql: (s, k) => [
      `WITH item AS (
         INSERT INTO work_items (workspace_id, project_id, sequence_id, name, priority, state_id, sort_order, created_by_id, updated_by_id)
         SELECT $1, $2, 2100000 + $3::int, 'gap bench', 'none', w.state_id, 1, w.created_by_id, w.created_by_id
           FROM work_items w WHERE w.workspace_id = $1 AND w.project_id = $2 AND w.sequence_id = 1 RETURNING *
       ), a AS (INSERT INTO work_item_assignees (work_item_id, assignee_id, workspace_id, project_id) SELECT id, $4, $1, $2 FROM item)
       INSERT INTO work_item_labels (work_item_id, label_id, workspace_id, project_id) SELECT id, $5, $1, $2 FROM item`,
      [s.ws, s.project, k, s.members[0], s.labels[0]],
    ],
  },
];

async function seedOf(c) {
  const { ws, project, members } = await lib.benchSeedIds(c);
  const labels = (
    await c.query(`SELECT id FROM labels WHERE project_id = $1 AND deleted_at IS NULL ORDER BY sort_order`, [project])
  ).rows.map((r) => r.id);
  return { ws, project, members, labels };
}

async function setSide(c, gaps) {
  for (const [table, trigger] of TRIGGERS)
    await c.query(`ALTER TABLE ${table} ${gaps ? 'ENABLE' : 'DISABLE'} TRIGGER ${trigger}`);
}

/** One statement (or the service's pair) in a transaction rolled back: the milliseconds of its statements. */
async function timed(c, sqls, params) {
  await c.query('BEGIN');
  try {
    const started = process.hrtime.bigint();
    for (const text of [].concat(sqls)) await c.query(text, params);
    return Number(process.hrtime.bigint() - started) / 1e6;
  } finally {
    await c.query('ROLLBACK');
  }
}

async function main() {
  if (!DATABASE) throw new Error('--database NAME is required');
  const admin = await lib.adminUrl();
  const c = new Client({ connectionString: lib.withDb(admin.url, DATABASE) });
  await c.connect();
  const times = {};
  try {
    const seed = await seedOf(c);
    await c.query('SET max_parallel_workers_per_gather = 0');
    // `--first K`: a later run starts where an earlier one stopped (rows of its own).
    let k = lib.numberOption('first', 0);
    for (let round = 0; round < ROUNDS; round++) {
      const sides = round % 2 ? [true, false] : [false, true];
      for (const gaps of sides) {
        await setSide(c, gaps);
        for (const st of STATEMENTS) {
          const [sqls, params] = st.sql(seed, k, gaps);
          const ms = await timed(c, sqls, params);
          const side = gaps ? 'gaps' : 'main';
          (times[st.name] ??= { main: [], gaps: [] })[side].push(ms);
          process.stderr.write(`round ${round + 1} ${side} ${st.name}: ${ms.toFixed(1)} ms\n`);
        }
        k++;
      }
    }
  } finally {
    await setSide(c, true).catch(() => undefined);
    await c.end();
    await admin.stop();
  }
  const range = (xs) => `${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}`;
  console.log('| statement | main: ms | gaps: ms |\n| --- | --- | --- |');
  for (const [name, t] of Object.entries(times)) console.log(`| ${name} | ${range(t.main)} | ${range(t.gaps)} |`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
