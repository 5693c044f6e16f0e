'use strict';
/*
 * npm run bench:history [-- --items 20000 --duration 10 --rounds 4 --connections 32 --warm-up 2 --explain 200
 *                          --compare-before [--before <migration>,...] [--revert <migration>,...] --statements 2000]
 *
 * The cost of the work item history (docs/work-item-links-relations-history.md) on the two hot write paths. Seeds
 * one project as `npm run bench` does (its seedItems), starts the built service once, then measures `create`
 * (POST, name and priority) and `patch` (PATCH of a random item's name and priority: two history entries) in
 * `--rounds` rounds, each round once with the history triggers disabled (`off`: ALTER TABLE ... DISABLE TRIGGER,
 * what the service did before history existed) and once enabled (`on`), in alternating order (off, on, on, off,
 * ...), so a slow spell of the shared machine weighs on both sides. Prints the median req/s and latencies of each
 * side and the overhead of each round's pair (1 - on/off req/s) with its median and spread.
 * Then `--explain` times the statements inside PostgreSQL, where they run, free of HTTP and of other load: EXPLAIN
 * ANALYZE of the PATCH's statement (updateManySql: the statement the service sends, two fields) and of a one-row
 * INSERT, each in a rolled-back transaction, reports the statement's execution time and the history trigger's own
 * time; the medians are printed.
 * `--compare-before` adds a third side, `before`: history on, with the migrations of BEFORE reverted (their down(),
 * re-applied for the other sides), so this issue's changes to the history write are measured against the code
 * they replaced, round by round on the same data.
 * `--statements` (default 2000) then runs that many committed PATCH statements and one-row INSERTs per side from one
 * connection, in four blocks alternating between the sides, and reports the CPU time its backend used per statement
 * (/proc: the statement, its triggers, its WAL records and commit, without the HTTP and the service; named, so each
 * connection plans it as the service's prepared statements are planned): what history adds to the database's work
 * on a write, measured in the process that does it, so other load moves it least.
 * Each row also reports the CPU time per request of the service process and of PostgreSQL (user + system from
 * /proc: the postmaster's children, plus what the postmaster collected from exited ones), the figure least moved
 * by other work on a shared machine (req/s is not). It counts the whole server, so it is this run's own only with
 * the embedded PostgreSQL (the default); with BENCH_DATABASE_URL on a shared server it also counts other databases.
 */
const { execFileSync } = require('node:child_process');
const { readFileSync, readdirSync } = require('node:fs');
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
const STATEMENTS = opt('statements', 2000);
const PORT = opt('port', 3993);

const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
/** /proc/<pid>/stat's fields after the command name (index 1: ppid, 11-14: utime, stime, cutime, cstime). */
const statFields = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');

/**
 * CPU ms used so far by the service and by PostgreSQL: the postmaster's live children and, through its cutime and
 * cstime, the children it has reaped (autovacuum workers, backends that ended). Null where /proc shows no server.
 */
function cpuNow(servicePid, postmasterPid) {
  const busy = (f, children) =>
    (Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0)) * TICK_MS;
  let pg = busy(statFields(postmasterPid), true);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const f = statFields(name);
      if (Number(f[1]) === postmasterPid) pg += busy(f, false);
    } catch {
      /* ended meanwhile */
    }
  }
  return { service: busy(statFields(servicePid), true), pg };
}

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

/**
 * Issue 18's migrations of this change, newest last: reverted for the `before` side (the earlier ones, compared
 * before, are part of every side now). `--before <file>,<file>` names others (migration files without `.ts`).
 */
const BEFORE_ARG = process.argv.indexOf('--before');
const BEFORE =
  BEFORE_ARG > 0
    ? process.argv[BEFORE_ARG + 1].split(',')
    : ['1795700000000-ActivityEntryOneIndex', '1795701000000-CheaperActivityStamps'];
/** `--revert <file>,<file>`: migrations reverted on every side, newest last (to measure one step of several). */
const REVERT_ARG = process.argv.indexOf('--revert');
const REVERT = REVERT_ARG > 0 ? process.argv[REVERT_ARG + 1].split(',') : [];
const COMPARE_BEFORE = process.argv.includes('--compare-before');
const SIDES = COMPARE_BEFORE ? ['off', 'on', 'before'] : ['off', 'on'];
const migrations = (files = BEFORE) =>
  files.map((file) => {
    const m = require(`../dist/migrations/${file}`);
    const Class = Object.values(m).find((x) => typeof x === 'function' && x.prototype?.up);
    return new Class();
  });

/** Whether BEFORE is reverted in the database now. */
let reverted = false;

/** Puts the database in `side`'s state: history triggers off or on, and (--compare-before) BEFORE reverted or not. */
async function setHistory(dbUrl, side) {
  await sql(dbUrl, async (c) => {
    // The migrations first, then the triggers' switch (a migration may re-create a trigger, enabled).
    const revert = side === 'before';
    if (COMPARE_BEFORE && revert !== reverted) {
      const q = { query: (text) => c.query(text).then((r) => r.rows) };
      const ms = migrations();
      if (revert) for (const m of [...ms].reverse()) await m.down(q);
      else for (const m of ms) await m.up(q);
      reverted = revert;
    }
    for (const [table, name] of TRIGGERS)
      await c.query(`ALTER TABLE ${table} ${side === 'off' ? 'DISABLE' : 'ENABLE'} TRIGGER ${name}`);
  });
}

async function measure(opts, pids) {
  const url = `http://127.0.0.1:${PORT}`;
  if (WARM_UP > 0) await autocannon({ connections: CONNECTIONS, ...opts, url, duration: WARM_UP });
  const before = cpuNow(pids.service, pids.postmaster);
  const r = await autocannon({ connections: CONNECTIONS, ...opts, url, duration: DURATION });
  const after = cpuNow(pids.service, pids.postmaster);
  const errors = r.errors + r.timeouts + r.non2xx;
  if (errors) log(`${errors} failed requests`);
  const perReq = (k) => ((after[k] - before[k]) * 1000) / r.requests.total;
  const service = perReq('service');
  const pg = perReq('pg');
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, service, pg, cpu: service + pg };
}

/**
 * The PATCH's statement as the service sends it (updateManySql of the built checkout: name and priority of one
 * item; it names the workspace, so it reads the item by primary key), with its parameters for item `id`.
 */
function patchStatement() {
  const { updateManySql } = require('../dist/src/work-items/work-items.repository');
  const text = updateManySql({ sent: new Set(['name', 'priority']), assignees: false, labels: false });
  const params = (seeded, ownerId, id, name, priority) => {
    const row = { id, name, priority, sent: ['name', 'priority'], assignee_ids: null, label_ids: null };
    return [seeded.ws, seeded.projectId, JSON.stringify([row]), ownerId, false];
  };
  return { text, params };
}

/** Execution time and history trigger time (ms) of `statement` in `count` rolled-back runs. */
async function explainTimes(dbUrl, statement, params, trigger, count) {
  return sql(dbUrl, async (c) => {
    const out = [];
    for (let i = 0; i < count; i++) {
      await c.query('BEGIN');
      try {
        const [{ 'QUERY PLAN': plan }] = (await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`, params(i))).rows;
        const trig = (plan[0].Triggers ?? []).find((t) => t['Trigger Name'] === trigger)?.Time ?? 0;
        out.push({ exec: plan[0]['Execution Time'], trigger: trig });
      } finally {
        await c.query('ROLLBACK');
      }
    }
    return out;
  });
}

async function rows(dbUrl, key, projectId, sample, pids) {
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
    const got = Object.fromEntries(SIDES.map((x) => [x, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? SIDES : [...SIDES].reverse()) {
        await setHistory(dbUrl, side);
        got[side].push(await measure(opts, pids));
        await sleep(200);
      }
    }
    out.push([name, got]);
  }
  return out;
}

const pct = (x) => `${(x * 100).toFixed(1)}%`;
const stat = (xs, k) => median(xs.map((x) => x[k]));
/** Median and spread of the rounds' paired overheads. */
const spread = (xs) => `${pct(median(xs))} (${pct(Math.min(...xs))}..${pct(Math.max(...xs))})`;

/** The sides with history on (each compared with `off`). */
const ON_SIDES = SIDES.filter((x) => x !== 'off');

function table(results) {
  const head = ON_SIDES.map((x) => `req/s overhead ${x}: median (min..max of rounds)`).join(' | ');
  const lines = [
    `| scenario | req/s ${SIDES.join(' / ')} | ${head} | p50/p99 ms ${SIDES.join(' / ')} |`,
    `|---|---|${ON_SIDES.map(() => '---|').join('')}---|`,
  ];
  for (const [name, got] of results) {
    const loss = (x) => got.off.map((off, i) => 1 - got[x][i].rps / off.rps);
    const rps = SIDES.map((x) => stat(got[x], 'rps').toFixed(0)).join(' / ');
    const lat = SIDES.map((x) => `${stat(got[x], 'p50')}/${stat(got[x], 'p99')}`).join(' / ');
    lines.push(`| ${name} | ${rps} | ${ON_SIDES.map((x) => spread(loss(x))).join(' | ')} | ${lat} |`);
  }
  return lines;
}

/** CPU µs per request (medians of the rounds) and each history side's paired overhead over `off` (x/off - 1). */
function cpuTable(results) {
  const us = (x) => x.toFixed(0);
  const head = ON_SIDES.map((x) => `${x}: total CPU overhead, median (min..max) | ${x}: PostgreSQL CPU overhead`);
  const lines = [
    `| scenario | ${SIDES.map((x) => `CPU µs/req ${x}: service + PostgreSQL = total`).join(' | ')} | ${head.join(' | ')} |`,
    `|---|${SIDES.map(() => '---|').join('')}${ON_SIDES.map(() => '---|---|').join('')}`,
  ];
  for (const [name, got] of results) {
    const cpu = (x) => `${us(stat(got[x], 'service'))} + ${us(stat(got[x], 'pg'))} = ${us(stat(got[x], 'cpu'))}`;
    const over = (x, k) => spread(got.off.map((off, i) => got[x][i][k] / off[k] - 1));
    const overheads = ON_SIDES.map((x) => `${over(x, 'cpu')} | ${over(x, 'pg')}`);
    lines.push(`| ${name} | ${SIDES.map(cpu).join(' | ')} | ${overheads.join(' | ')} |`);
  }
  return lines;
}

/** Runs `fn(side)` for each of `sides` (history set accordingly) in four blocks, alternating their order. */
async function inBlocks(dbUrl, sides, fn) {
  for (let block = 0; block < 4; block++) {
    for (const side of block % 2 ? [...sides].reverse() : sides) {
      await setHistory(dbUrl, side);
      await fn(side);
    }
  }
}

/**
 * EXPLAIN ANALYZE of the PATCH's UPDATE and a one-row INSERT on each history side, EXPLAINS of each per side in
 * four blocks alternating between the sides; one table row per statement and side.
 */
async function explainSides(dbUrl, seeded, ownerId) {
  const got = Object.fromEntries(SIDES.map((x) => [x, { upd: [], ins: [] }]));
  const per = Math.max(1, Math.round(EXPLAINS / 4));
  let n = 0;
  await inBlocks(dbUrl, SIDES, async (side) => {
    const patch = patchStatement();
    got[side].upd.push(
      ...(await explainTimes(
        dbUrl,
        patch.text,
        (i) =>
          patch.params(
            seeded,
            ownerId,
            seeded.sample[i % seeded.sample.length].id,
            `Explained ${i}`,
            i % 2 ? 'urgent' : 'low',
          ),
        'wt_activity_work_item_upd',
        per,
      )),
    );
    got[side].ins.push(
      ...(await explainTimes(
        dbUrl,
        `INSERT INTO work_items (workspace_id, project_id, sequence_id, name, state_id, created_by_id, updated_by_id)
           VALUES ($1, $2, $3, 'Explained', $4, $5, $5)`,
        (i) => [seeded.ws, seeded.projectId, ITEMS + 1000000 + n++, seeded.state, ownerId],
        'wt_activity_work_item_ins',
        per,
      )),
    );
  });
  const lines = [];
  for (const [label, k] of [
    ["PATCH's statement (name + priority: 2 entries)", 'upd'],
    ['one-row INSERT (1 entry)', 'ins'],
  ]) {
    for (const side of SIDES) {
      const exec = median(got[side][k].map((x) => x.exec));
      const trig = median(got[side][k].map((x) => x.trigger));
      lines.push(
        `| ${label}, ${side} | ${exec.toFixed(3)} | ${trig.toFixed(3)} | ${((trig / exec) * 100).toFixed(0)}% |`,
      );
    }
  }
  return lines;
}

/**
 * CPU µs per committed statement of one backend, per side (off included), STATEMENTS of each statement per side
 * in four blocks alternating between the sides.
 */
async function backendCpu(dbUrl, seeded, ownerId) {
  const got = Object.fromEntries(SIDES.map((x) => [x, { upd: [], ins: [] }]));
  const per = Math.max(1, Math.round(STATEMENTS / 4));
  let n = 0;
  await inBlocks(dbUrl, SIDES, (side) =>
    sql(dbUrl, async (c) => {
      const patch = patchStatement();
      const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;
      const cpu = () => {
        const f = statFields(pid);
        return (Number(f[11]) + Number(f[12])) * TICK_MS;
      };
      for (const k of ['upd', 'ins']) {
        const t0 = cpu();
        for (let i = 0; i < per; i++, n++) {
          // Named (prepared) statements, as the service sends every parameterized statement (statement-cache.ts).
          if (k === 'upd')
            await c.query({
              name: 'patch',
              text: patch.text,
              values: patch.params(
                seeded,
                ownerId,
                seeded.sample[n % seeded.sample.length].id,
                `Statement ${n}`,
                n % 2 ? 'urgent' : 'low',
              ),
            });
          else
            await c.query({
              name: 'insert',
              text: `INSERT INTO work_items (workspace_id, project_id, sequence_id, name, state_id, created_by_id, updated_by_id)
                 VALUES ($1, $2, $3, 'Statement', $4, $5, $5)`,
              values: [seeded.ws, seeded.projectId, ITEMS + 2000000 + n, seeded.state, ownerId],
            });
        }
        got[side][k].push(((cpu() - t0) * 1000) / per);
      }
    }),
  );
  const lines = [];
  for (const [label, k] of [
    ["PATCH's statement (name + priority: 2 entries)", 'upd'],
    ['one-row INSERT (1 entry)', 'ins'],
  ]) {
    const us = (x) => median(got[x][k]);
    const over = ON_SIDES.map((x) => `${x} ${us(x).toFixed(0)} (+${((us(x) / us('off') - 1) * 100).toFixed(0)}%)`);
    lines.push(`| ${label} | ${us('off').toFixed(0)} | ${over.join(' | ')} |`);
  }
  return lines;
}

async function main() {
  const admin = await adminUrl();
  const children = [];
  try {
    const dbUrl = await freshDatabase(admin.url, 'wt_bench_history');
    cli(dbUrl, 'migrate');
    await sql(dbUrl, async (c) => {
      for (const m of migrations(REVERT).reverse())
        await m.down({ query: (text) => c.query(text).then((r) => r.rows) });
    });
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
      const state = (
        await c.query(`SELECT state_id FROM work_items WHERE workspace_id = $1 AND id = $2`, [ws, sample[0].id])
      ).rows[0].state_id;
      return { ws, sample, state };
    });
    // The postmaster: the parent of this connection's backend (read while the backend lives).
    const postmaster = await sql(dbUrl, async (c) =>
      Number(statFields((await c.query('SELECT pg_backend_pid() AS p')).rows[0].p)[1]),
    );
    const pids = { service: service.pid, postmaster };
    const results = await rows(dbUrl, key, project.id, seeded.sample, pids);
    const explained = await explainSides(dbUrl, { ...seeded, projectId: project.id }, owner.id);
    const perStatement = STATEMENTS > 0 ? await backendCpu(dbUrl, { ...seeded, projectId: project.id }, owner.id) : [];
    const lines = [
      `history triggers ${SIDES.join('/')}: ${ITEMS} work items; ${CONNECTIONS} connections, ${DURATION} s per row after ${WARM_UP} s ` +
        `of warm-up, ${ROUNDS} rounds alternating; node ${process.version}; ${require('node:os').cpus().length} CPUs`,
      ...(ROUNDS ? table(results) : ['(--rounds 0: no HTTP rows)']),
      '',
      `CPU time per request (user + system from /proc; PostgreSQL: the whole server${
        process.env.BENCH_DATABASE_URL ? ', shared: other databases count too' : ''
      }):`,
      ...(ROUNDS ? cpuTable(results) : []),
      '',
      `inside PostgreSQL (EXPLAIN ANALYZE, median of ${EXPLAINS} rolled-back statements):`,
      `| statement, side | execution ms (trigger included) | history trigger ms | share |`,
      '|---|---|---|---|',
      ...explained,
      '',
      `one backend's CPU µs per committed statement (median of 4 blocks of ${Math.round(STATEMENTS / 4)}; /proc user + system):`,
      `| statement | off | ${ON_SIDES.join(' | ')} |`,
      `|---|---|${ON_SIDES.map(() => '---|').join('')}`,
      ...perStatement,
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
