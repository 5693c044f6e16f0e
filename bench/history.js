'use strict';
/*
 * npm run bench:history [-- --items 20000 --duration 10 --rounds 4 --connections 32 --warm-up 2 --explain 200]
 *
 * The cost of the work item history (docs/work-item-links-relations-history.md) on the two hot write paths. Seeds
 * one project as `npm run bench` does (its seedItems), starts the built service once, then measures `create`
 * (POST, name and priority) and `patch` (PATCH of a random item's name and priority: two history entries) in
 * `--rounds` rounds, each round once with the history triggers disabled (`off`: ALTER TABLE ... DISABLE TRIGGER,
 * what the service did before history existed) and once enabled (`on`), in alternating order (off, on, on, off,
 * ...), so a slow spell of the shared machine weighs on both sides. Prints the median req/s and latencies of each
 * side and the overhead of each round's pair (1 - on/off req/s) with its median and spread.
 * Then `--explain` times the triggers inside PostgreSQL, where they run, free of HTTP and of other load: EXPLAIN
 * ANALYZE of the PATCH's UPDATE (two fields) and of a one-row INSERT, each in a rolled-back transaction, reports
 * the statement's execution time and the history trigger's own time; the medians are printed.
 */
const autocannon = require('autocannon');
const lib = require('./lib');
const { adminUrl, sql, freshDatabase, cli, waitFor, serviceEnv, spawnService, settle, sleep, numberOption, api } = lib;
const { seedItems } = require('./run');

const opt = numberOption;
const ITEMS = opt('items', 20000);
const DURATION = opt('duration', 10);
const ROUNDS = opt('rounds', 4);
const CONNECTIONS = opt('connections', 32);
const WARM_UP = opt('warm-up', 2);
const EXPLAINS = opt('explain', 200);
const PORT = opt('port', 3993);

const log = (...a) => process.stderr.write(`[history] ${a.join(' ')}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Every history trigger (migration WorkItemLinksRelationsHistory) on the tables the two paths write. */
const TRIGGERS = [
  ['work_items', 'wt_activity_work_item_ins'],
  ['work_items', 'wt_activity_work_item_upd'],
  ['work_item_assignees', 'wt_activity_assignee_ins'],
  ['work_item_assignees', 'wt_activity_assignee_del'],
  ['work_item_labels', 'wt_activity_label_ins'],
  ['work_item_labels', 'wt_activity_label_del'],
];

async function setHistory(dbUrl, on) {
  await sql(dbUrl, async (c) => {
    for (const [table, name] of TRIGGERS)
      await c.query(`ALTER TABLE ${table} ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${name}`);
  });
}

async function measure(opts) {
  const url = `http://127.0.0.1:${PORT}`;
  if (WARM_UP > 0) await autocannon({ connections: CONNECTIONS, ...opts, url, duration: WARM_UP });
  const r = await autocannon({ connections: CONNECTIONS, ...opts, url, duration: DURATION });
  const errors = r.errors + r.timeouts + r.non2xx;
  if (errors) log(`${errors} failed requests`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

/** Median execution time and history trigger time (ms) of `statement` over EXPLAINS rolled-back runs. */
async function explainTimes(dbUrl, statement, params, trigger) {
  return sql(dbUrl, async (c) => {
    const exec = [];
    const trig = [];
    for (let i = 0; i < EXPLAINS; i++) {
      await c.query('BEGIN');
      try {
        const [{ 'QUERY PLAN': plan }] = (await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`, params(i))).rows;
        exec.push(plan[0]['Execution Time']);
        trig.push((plan[0].Triggers ?? []).find((t) => t['Trigger Name'] === trigger)?.Time ?? 0);
      } finally {
        await c.query('ROLLBACK');
      }
    }
    return { exec: median(exec), trigger: median(trig) };
  });
}

async function rows(dbUrl, key, projectId, sample) {
  const items = `/api/v2/workspaces/bench/projects/${projectId}/work-items/`;
  const headers = { 'X-Api-Key': key, 'content-type': 'application/json' };
  const pick = () => sample[Math.floor(Math.random() * sample.length)];
  const priorities = ['urgent', 'high', 'medium', 'low', 'none'];
  const scenarios = [
    [
      'create',
      {
        headers,
        requests: [{ method: 'POST', path: items, body: JSON.stringify({ name: 'Bench', priority: 'high' }) }],
      },
    ],
    [
      'patch (name + priority)',
      {
        headers,
        requests: [
          {
            method: 'PATCH',
            setupRequest: (req) => ({
              ...req,
              path: `${items}${pick().id}/`,
              body: JSON.stringify({ priority: priorities[Math.floor(Math.random() * 5)], name: `P ${Date.now()}` }),
            }),
          },
        ],
      },
    ],
  ];
  const out = [];
  for (const [name, opts] of scenarios) {
    const got = { off: [], on: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? ['off', 'on'] : ['on', 'off']) {
        await setHistory(dbUrl, side === 'on');
        got[side].push(await measure(opts));
        await sleep(200);
      }
    }
    out.push([name, got]);
  }
  return out;
}

function table(results) {
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  const stat = (xs, k) => median(xs.map((x) => x[k]));
  const lines = [
    '| scenario | req/s off / on | req/s overhead: median (min..max of rounds) | p50/p99 ms off | p50/p99 ms on |',
    '|---|---|---|---|---|',
  ];
  for (const [name, got] of results) {
    const loss = got.off.map((off, i) => 1 - got.on[i].rps / off.rps);
    lines.push(
      `| ${name} | ${stat(got.off, 'rps').toFixed(0)} / ${stat(got.on, 'rps').toFixed(0)} | ` +
        `${pct(median(loss))} (${pct(Math.min(...loss))}..${pct(Math.max(...loss))}) | ` +
        `${stat(got.off, 'p50')}/${stat(got.off, 'p99')} | ${stat(got.on, 'p50')}/${stat(got.on, 'p99')} |`,
    );
  }
  return lines;
}

async function main() {
  const admin = await adminUrl();
  const children = [];
  try {
    const dbUrl = await freshDatabase(admin.url, 'wt_bench_history');
    cli(dbUrl, 'migrate');
    const owner = cli(dbUrl, 'user', 'create', '--email', 'bench@example.com', '--display-name', 'Bench Owner');
    cli(dbUrl, 'workspace', 'create', '--slug', 'bench', '--name', 'Bench');
    cli(dbUrl, 'member', 'add', '--workspace', 'bench', '--email', 'bench@example.com', '--role', 'owner');
    const key = cli(dbUrl, 'api-key', 'create', '--email', 'bench@example.com').key;
    const service = spawnService(serviceEnv(dbUrl, PORT));
    children.push(service);
    // Up to two minutes: a start on a loaded shared machine can take longer than waitFor's 30 s.
    for (let attempt = 1; ; attempt++) {
      try {
        await waitFor(`http://127.0.0.1:${PORT}/healthz`);
        break;
      } catch (e) {
        if (attempt === 4) throw e;
      }
    }
    const project = await api(PORT, 'POST', '/api/v2/workspaces/bench/projects/', key, {
      name: 'Bench',
      identifier: 'BENCH',
    });
    const seeded = await sql(dbUrl, async (c) => {
      const ws = (await c.query(`SELECT id FROM workspaces WHERE slug = 'bench'`)).rows[0].id;
      log(`seeding ${ITEMS} work items`);
      await seedItems(c, ws, project.id, ITEMS, owner.id, [owner.id], []);
      await settle(c, log);
      const sample = (
        await c.query(
          `SELECT id FROM work_items WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL ORDER BY random() LIMIT 1000`,
          [project.id],
        )
      ).rows;
      const state = (await c.query(`SELECT state_id FROM work_items WHERE id = $1`, [sample[0].id])).rows[0].state_id;
      return { ws, sample, state };
    });
    const results = await rows(dbUrl, key, project.id, seeded.sample);
    await setHistory(dbUrl, true);
    const upd = await explainTimes(
      dbUrl,
      `UPDATE work_items SET name = $2, priority = $3, updated_at = now(), updated_by_id = $4 WHERE id = $1`,
      (i) => [seeded.sample[i % seeded.sample.length].id, `Explained ${i}`, i % 2 ? 'urgent' : 'low', owner.id],
      'wt_activity_work_item_upd',
    );
    const ins = await explainTimes(
      dbUrl,
      `INSERT INTO work_items (workspace_id, project_id, sequence_id, name, state_id, created_by_id, updated_by_id)
       VALUES ($1, $2, $3, 'Explained', $4, $5, $5)`,
      (i) => [seeded.ws, project.id, ITEMS + 1000000 + i, seeded.state, owner.id],
      'wt_activity_work_item_ins',
    );
    const lines = [
      `history triggers off/on: ${ITEMS} work items; ${CONNECTIONS} connections, ${DURATION} s per row after ${WARM_UP} s ` +
        `of warm-up, ${ROUNDS} rounds alternating; node ${process.version}; ${require('node:os').cpus().length} CPUs`,
      ...table(results),
      '',
      `inside PostgreSQL (EXPLAIN ANALYZE, median of ${EXPLAINS} rolled-back statements):`,
      `| statement | execution ms (trigger included) | history trigger ms | share |`,
      '|---|---|---|---|',
      `| PATCH's UPDATE (name + priority: 2 entries) | ${upd.exec.toFixed(3)} | ${upd.trigger.toFixed(3)} | ${((upd.trigger / upd.exec) * 100).toFixed(0)}% |`,
      `| one-row INSERT (1 entry) | ${ins.exec.toFixed(3)} | ${ins.trigger.toFixed(3)} | ${((ins.trigger / ins.exec) * 100).toFixed(0)}% |`,
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    for (const ch of children) ch.kill('SIGTERM');
    await sleep(500);
    await admin.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
