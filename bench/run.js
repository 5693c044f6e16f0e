'use strict';
/*
 * npm run bench [-- --items 100000 --duration 10 --slices 5 --connections 32 --warm-up 2 --ceiling-warm-up 10 --lead 1 --repeat 1
 *                   --rows list,cursor,... | all --audit-entries 1000000 --compare ../other-checkout
 *                   --database wt_bench --seed-only --reuse --small-projects 0 --small-items 25]
 *
 * Seeds a fresh database (BENCH_DATABASE_URL's server, else the embedded PostgreSQL under .data/bench)
 * with set-based SQL: `--items` work items in one project (default 100k) with assignees and labels,
 * plus noise (10% each) in two other projects and in another workspace (whose project takes the rows' creates, so
 * that the lists read the same seeded items in every slice). Starts the built service and
 * a bare Fastify + pg server serving the same list SQL (the ceiling), and drives both with autocannon on
 * loopback, interleaved (bench/interleave.js): after `--warm-up` seconds per row, `--slices` rounds of one slice
 * per row (`--duration` / `--slices` seconds each, or `--slice S`) in random order. Prints the machine and the
 * database settings, then per row the median req/s, p50, p99 and ratio to the ceiling with its range, and flags
 * the run noisy when the ceiling's slices differ by more than 15%. `--repeat N` runs the table N times and
 * prints the medians of the runs too. Rows: bench/scenarios.js (`--rows all` adds ?expand lists, per_page=200
 * and the mixed workload at 64 connections to the default set).
 * Then the audit export (bench/audit-export.js) over `--audit-entries` entries (0 skips it).
 * `--compare DIR`: an A/B in one run. The built service of another checkout (DIR, e.g. main's, with the same
 * migrations: it runs on this run's database) is started beside this one (port + 3) and every selected row is
 * measured against both, in the same interleaved rounds, so both sides see the same neighbours; its rows are named
 * `<row> [DIR's name]`.
 */
const { readFileSync } = require('node:fs');
const { basename, resolve } = require('node:path');
const { Client } = require('pg');
const lib = require('./lib');
const { bulkVsSingle } = require('./bulk');
const { adminUrl, sql, freshDatabase, cli, waitFor, serviceEnv, spawnService, settle } = lib;
const { runAuditExport } = require('./audit-export');
const { interleave, summarize, combine, table } = require('./interleave');
const { foreignCpuMeter } = require('./foreign-cpu');
const { scenarios, selectRows: pickRows } = require('./scenarios');

const opt = lib.numberOption;
const ITEMS = opt('items', 100000);
const CONNECTIONS = opt('connections', 32);
const AUDIT_ENTRIES = opt('audit-entries', 1000000);
const SERVICE_PORT = opt('port', 3997);
const BARE_PORT = SERVICE_PORT + 1;
const BARE200_PORT = SERVICE_PORT + 4;
/** The database seeded (dropped first): `--database NAME`, for a run that must not touch another's wt_bench. */
const DB_NAME = lib.stringOption('database') ?? 'wt_bench';
/** `--seed-only`: seed the database and stop (for `npm run bench:plans` on it), no load. */
const SEED_ONLY = process.argv.includes('--seed-only');
/**
 * `--small-projects N` (default 0): N more projects in the bench workspace, each with its own states and
 * `--small-items` items (default 25), beside the big one: the statistics of a deployment of many projects
 * (docs/work-items-plans.md, What to change next 10), for `npm run bench:plans -- --project S1` and the big project's.
 */
const SMALL_PROJECTS = opt('small-projects', 0);
const SMALL_ITEMS = opt('small-items', 25);
/** `--reuse`: keep `--database` when a finished seed of `--items` is there (migrated, analyzed again), else seed. */
const REUSE = process.argv.includes('--reuse');
/** Seconds of each row's load before the measured slices, not measured: JIT, prepared statements, plans, cache. */
const WARM_UP = opt('warm-up', 2);
/** The ceiling's own warm-up: its process is loaded only by its own slices (bench/interleave.js). */
const CEILING_WARM_UP = opt('ceiling-warm-up', 10);
/** Unmeasured seconds of each slice's load before its measured part (bench/interleave.js, `slice`). */
const LEAD = opt('lead', 1);
/** Interleaved slices per row and their length (issue 27): `--slices 5 --slice 2`; `--duration` is their sum. */
const SLICES = opt('slices', 5);
const SLICE_SECONDS = opt('slice', opt('duration', 10) / SLICES);
/** Runs of the whole table; with more than one, the medians of the runs are printed too. */
const REPEAT = opt('repeat', 1);
const selectRows = (all) => pickRows(all, lib.stringOption('rows'));
const COMPARE = lib.stringOption('compare');
const COMPARE_PORT = SERVICE_PORT + 3;

const log = (...a) => process.stderr.write(`[bench] ${a.join(' ')}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const api = (method, path, key, body) => lib.api(SERVICE_PORT, method, path, key, body);

/** The item `w`'s priority rank, as the link rows copy it (PRIORITY_RANK, migration WorkItemLinkPriorityCopies). */
const RANK = `(CASE w.priority WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END)`;

/**
 * The gap triggers (migration WorkItemLinkGaps): per statement they lock the items a link statement touches and keep
 * one row per item without links. A seed writes a whole project at once with nobody else writing, so it turns them
 * off and fills the project's gap rows in one statement per kind at the end (3 times faster at 100,000 items).
 */
const GAP_TRIGGERS = [
  ['work_items', 'trg_work_item_gaps_item_ins'],
  ['work_items', 'trg_work_item_gaps_item_upd'],
  ['work_item_assignees', 'trg_work_item_assignee_gaps_link_ins'],
  ['work_item_assignees', 'trg_work_item_assignee_gaps_link_del'],
  ['work_item_labels', 'trg_work_item_label_gaps_link_ins'],
  ['work_item_labels', 'trg_work_item_label_gaps_link_del'],
];
const GAP_TABLES = [
  ['work_item_assignee_gaps', 'work_item_assignees'],
  ['work_item_label_gaps', 'work_item_labels'],
];

/** Runs `seed`, with the gap triggers off if the schema has them, then fills `project`'s gap rows. */
async function withoutGapTriggers(c, project, seed) {
  const present = (await c.query(`SELECT to_regclass('work_item_label_gaps') IS NOT NULL AS yes`)).rows[0].yes;
  if (!present) return seed();
  const toggle = async (on) => {
    for (const [table, trigger] of GAP_TRIGGERS)
      await c.query(`ALTER TABLE ${table} ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${trigger}`);
  };
  await toggle(false);
  try {
    await seed();
    for (const [gaps, links] of GAP_TABLES) {
      await c.query(
        `INSERT INTO ${gaps} (workspace_id, work_item_id, project_id, item_created_at)
         SELECT w.workspace_id, w.id, w.project_id, w.created_at FROM work_items w
          WHERE w.project_id = $1 AND w.deleted_at IS NULL AND w.archived_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM ${links} x WHERE x.workspace_id = w.workspace_id AND x.work_item_id = w.id)
         ON CONFLICT DO NOTHING`,
        [project],
      );
    }
  } finally {
    await toggle(true);
  }
}

/** Set-based seed of one project: n items, assignees from `members`, labels from `labels`. */
async function seedItems(c, ws, project, n, ownerId, members, labels) {
  await withoutGapTriggers(c, project, () => seedProject(c, ws, project, n, ownerId, members, labels));
}

async function seedProject(c, ws, project, n, ownerId, members, labels) {
  const states = (
    await c.query(`SELECT id FROM states WHERE project_id = $1 AND deleted_at IS NULL ORDER BY sequence`, [project])
  ).rows.map((r) => r.id);
  await c.query(
    `INSERT INTO work_items (workspace_id, project_id, sequence_id, name, description_html, description_stripped, priority, state_id,
                             sort_order, start_date, target_date, created_at, updated_at, created_by_id, updated_by_id)
     SELECT $1, $2, g, 'Work item number ' || g, '<p>Seeded item ' || g || '</p>', 'Seeded item ' || g,
            (ARRAY['urgent','high','medium','low','none'])[1 + g % 5], ($3::uuid[])[1 + (g * 7) % cardinality($3::uuid[])],
            g * 65535.0, CASE WHEN g % 3 = 0 THEN date '2025-01-01' + (g % 365) END, CASE WHEN g % 3 = 0 THEN date '2025-03-01' + (g % 365) END,
            now() - make_interval(secs => ($4 - g)), now() - make_interval(secs => ($4 - g) / 2.0), $5, $5
       FROM generate_series(1, $4::int) g`,
    [ws, project, states, n, ownerId],
  );
  await c.query(`UPDATE projects SET last_sequence_id = $2 WHERE id = $1`, [project, n]);
  if (members.length) {
    await c.query(
      `INSERT INTO work_item_assignees (work_item_id, assignee_id, workspace_id, project_id, item_created_at, item_state_group_rank, item_live, item_priority_rank)
       SELECT w.id, ($3::uuid[])[1 + w.sequence_id % cardinality($3::uuid[])], $1::uuid, $2::uuid, w.created_at, w.state_group_rank, true, ${RANK}
         FROM work_items w WHERE w.project_id = $2
       UNION ALL
       SELECT w.id, ($3::uuid[])[1 + (w.sequence_id / 7 + 1) % cardinality($3::uuid[])], $1::uuid, $2::uuid, w.created_at, w.state_group_rank, true, ${RANK}
         FROM work_items w
        WHERE w.project_id = $2 AND w.sequence_id % 3 = 0 AND (w.sequence_id / 7 + 1) % cardinality($3::uuid[]) <> w.sequence_id % cardinality($3::uuid[])`,
      [ws, project, members],
    );
    // A rare assignee (the owner: n / 50,000 items) for bench:plans' rows of a filter few items match.
    await c.query(
      `INSERT INTO work_item_assignees (work_item_id, assignee_id, workspace_id, project_id, item_created_at, item_state_group_rank, item_live, item_priority_rank)
       SELECT w.id, $3::uuid, $1::uuid, $2::uuid, w.created_at, w.state_group_rank, true, ${RANK}
         FROM work_items w WHERE w.project_id = $2 AND w.sequence_id % 50000 = 25000
       ON CONFLICT DO NOTHING`,
      [ws, project, ownerId],
    );
  }
  if (labels.length) {
    await c.query(
      `INSERT INTO work_item_labels (work_item_id, label_id, workspace_id, project_id, item_created_at, item_state_group_rank, item_live, item_priority_rank)
       SELECT w.id, ($3::uuid[])[1 + w.sequence_id % cardinality($3::uuid[])], $1, $2, w.created_at, w.state_group_rank, true, ${RANK}
         FROM work_items w WHERE w.project_id = $2 AND w.sequence_id % 4 <> 0`,
      [ws, project, labels],
    );
  }
  // 1% archived, 0.5% deleted: the live-row partial indexes have something to leave out (the links'
  // copies follow by trigger).
  await c.query(`UPDATE work_items SET archived_at = now() WHERE project_id = $1 AND sequence_id % 100 = 17`, [
    project,
  ]);
  await c.query(`UPDATE work_items SET deleted_at = now() WHERE project_id = $1 AND sequence_id % 200 = 33`, [project]);
}

/** `--compare`: the other checkout's service, started on this run's database, and the selected rows against it. */
async function compareRows(dbUrl, ctx, children) {
  const other = spawnService(serviceEnv(dbUrl, COMPARE_PORT), undefined, resolve(COMPARE));
  children.push(other);
  await waitFor(`http://127.0.0.1:${COMPARE_PORT}/healthz`);
  const tag = basename(resolve(COMPARE));
  return selectRows(scenarios({ ...ctx, S: `http://127.0.0.1:${COMPARE_PORT}` }))
    .filter((r) => !r.id.startsWith('ceiling'))
    .map((r) => ({ ...r, name: `${r.name} [${tag}]` }));
}

/** The seed's mark on its database, set once seeding finished: `--reuse` trusts only a finished seed of this size. */
const seedMark = () =>
  `wt bench seed: ${ITEMS} items${SMALL_PROJECTS ? ` and ${SMALL_PROJECTS} projects of ${SMALL_ITEMS}` : ''}`;

/** `--reuse`: the database's URL when it holds a finished seed of `--items`, else undefined (then seeded afresh). */
async function reusableSeed(adminUrl) {
  const mark = await sql(adminUrl, async (c) => {
    const r = await c.query(
      `SELECT shobj_description(oid, 'pg_database') AS mark FROM pg_database WHERE datname = $1`,
      [DB_NAME],
    );
    return r.rows[0]?.mark;
  });
  if (mark === seedMark()) return lib.withDb(adminUrl, DB_NAME);
  log(`--reuse: ${DB_NAME} holds no finished seed of ${ITEMS} items (${mark ?? 'none'}); seeding afresh`);
  return undefined;
}

/** Users, workspaces, projects and `--items` work items (+ noise) in a fresh database; the service started. */
async function seedDatabase(adminUrl, dbUrl, children) {
  cli(dbUrl, 'migrate');
  const owner = cli(dbUrl, 'user', 'create', '--email', 'bench@example.com', '--display-name', 'Bench Owner');
  cli(dbUrl, 'workspace', 'create', '--slug', 'bench', '--name', 'Bench');
  cli(dbUrl, 'workspace', 'create', '--slug', 'noise', '--name', 'Noise');
  cli(dbUrl, 'member', 'add', '--workspace', 'bench', '--email', 'bench@example.com', '--role', 'owner');
  cli(dbUrl, 'member', 'add', '--workspace', 'noise', '--email', 'bench@example.com', '--role', 'owner');
  const key = cli(dbUrl, 'api-key', 'create', '--email', 'bench@example.com').key;
  const env = serviceEnv(dbUrl, SERVICE_PORT);
  const service = spawnService(env);
  children.push(service);
  await waitFor(`http://127.0.0.1:${SERVICE_PORT}/healthz`);
  const project = (scope, name, identifier) =>
    api('POST', `/api/v2/workspaces/${scope}/projects/`, key, { name, identifier });
  const main = await project('bench', 'Bench', 'BENCH');
  const noise = [await project('bench', 'Noise one', 'NA'), await project('bench', 'Noise two', 'NB')];
  const other = await project('noise', 'Other workspace', 'NC');
  const seeded = await sql(dbUrl, async (c) => {
    const ws = (await c.query(`SELECT id, slug FROM workspaces`)).rows;
    const wsId = (slug) => ws.find((w) => w.slug === slug).id;
    const bench = wsId('bench');
    const members = (
      await c.query(
        `WITH u AS (INSERT INTO users (email, display_name) SELECT 'member' || g || '@example.com', 'Member ' || g FROM generate_series(1, 20) g RETURNING id),
              wm AS (INSERT INTO workspace_members (workspace_id, member_id, role) SELECT $1, id, 'member' FROM u),
              pm AS (INSERT INTO project_members (workspace_id, project_id, member_id, role) SELECT $1, $2, id, 'contributor' FROM u)
         SELECT id FROM u`,
        [bench, main.id],
      )
    ).rows.map((r) => r.id);
    const labels = (
      await c.query(
        `INSERT INTO labels (workspace_id, project_id, name, color, sort_order) SELECT $1, $2, 'label ' || g, '#00aaff', g * 65535 FROM generate_series(1, 10) g RETURNING id`,
        [bench, main.id],
      )
    ).rows.map((r) => r.id);
    log(`seeding ${ITEMS} work items (+ ${3 * Math.round(ITEMS / 10)} noise)`);
    await seedItems(c, bench, main.id, ITEMS, owner.id, members, labels);
    await seedItems(c, bench, noise[0].id, Math.round(ITEMS / 10), owner.id, members, labels);
    await seedItems(c, bench, noise[1].id, Math.round(ITEMS / 10), owner.id, [], []);
    await seedItems(c, wsId('noise'), other.id, Math.round(ITEMS / 10), owner.id, [], []);
    if (SMALL_PROJECTS) await seedSmallProjects(c, await smallProjects(key), bench, owner.id);
    await settle(c, log);
    return { bench, members, creates: other.id, ...(await seedSamples(c, bench, main.id, members)) };
  });
  await sql(adminUrl, (c) => c.query(`COMMENT ON DATABASE ${DB_NAME} IS '${seedMark()}'`));
  return { key, main, seeded, env, service };
}

/** `--small-projects`: the projects S1..SN created through the API (eight at a time), so each has its own states. */
async function smallProjects(key) {
  log(`creating ${SMALL_PROJECTS} small projects`);
  const ids = [];
  for (let i = 1; i <= SMALL_PROJECTS; i += 8) {
    const batch = [];
    for (let j = i; j < Math.min(i + 8, SMALL_PROJECTS + 1); j++)
      batch.push(api('POST', '/api/v2/workspaces/bench/projects/', key, { name: `Small ${j}`, identifier: `S${j}` }));
    ids.push(...(await Promise.all(batch)).map((p) => p.id));
  }
  return ids;
}

/**
 * SMALL_ITEMS items in each of `projects`, in one statement: states of their own project, priorities and dates as
 * the big project's, created over the same span of time (so the workspace's orderings interleave them), half of
 * them assigned to the owner. Triggers on (a few hundred thousand rows at most: the gap rows are kept by them).
 */
async function seedSmallProjects(c, projects, ws, ownerId) {
  log(`seeding ${SMALL_ITEMS} work items in each of ${projects.length} small projects`);
  await c.query(
    `INSERT INTO work_items (workspace_id, project_id, sequence_id, name, description_html, description_stripped, priority, state_id,
                             sort_order, start_date, target_date, created_at, updated_at, created_by_id, updated_by_id)
     SELECT $1, p.id, g, 'Small item ' || g, '<p>Small item ' || g || '</p>', 'Small item ' || g,
            (ARRAY['urgent','high','medium','low','none'])[1 + (g + n) % 5], s.ids[1 + (g * 7 + n) % cardinality(s.ids)],
            g * 65535.0, CASE WHEN g % 3 = 0 THEN date '2025-01-01' + ((g + n) % 365) END,
            CASE WHEN g % 3 = 0 THEN date '2025-03-01' + ((g + n) % 365) END,
            now() - make_interval(secs => (n * 7919 + g * 104729) % $4), now() - make_interval(secs => ((n * 7919 + g * 104729) % $4) / 2.0), $3, $3
       FROM unnest($2::uuid[]) WITH ORDINALITY AS p(id, ordinal)
      CROSS JOIN LATERAL (SELECT p.ordinal::int AS n) k
      CROSS JOIN LATERAL (SELECT array_agg(id ORDER BY sequence) AS ids FROM states WHERE project_id = p.id AND deleted_at IS NULL) s
      CROSS JOIN generate_series(1, $5::int) g`,
    [ws, projects, ownerId, ITEMS, SMALL_ITEMS],
  );
  await c.query(`UPDATE projects SET last_sequence_id = $2 WHERE id = ANY($1::uuid[])`, [projects, SMALL_ITEMS]);
  await c.query(
    `INSERT INTO work_item_assignees (work_item_id, assignee_id, workspace_id, project_id, item_created_at, item_state_group_rank, item_live, item_priority_rank)
     SELECT w.id, $2::uuid, w.workspace_id, w.project_id, w.created_at, w.state_group_rank, true, ${RANK}
       FROM work_items w WHERE w.project_id = ANY($1::uuid[]) AND w.sequence_id % 2 = 0`,
    [projects, ownerId],
  );
}

/** `--reuse`: a finished seed, migrated to this checkout, analyzed and checkpointed again; the service started. */
async function openSeed(dbUrl, children) {
  cli(dbUrl, 'migrate');
  const key = cli(dbUrl, 'api-key', 'create', '--email', 'bench@example.com').key;
  const seeded = await sql(dbUrl, async (c) => {
    const { ws: bench, project: main, members, creates } = await lib.benchSeedIds(c);
    await settle(c, log);
    return { bench, main, members, creates, ...(await seedSamples(c, bench, main, members)) };
  });
  const env = serviceEnv(dbUrl, SERVICE_PORT);
  const service = spawnService(env);
  children.push(service);
  await waitFor(`http://127.0.0.1:${SERVICE_PORT}/healthz`);
  return { key, main: { id: seeded.main }, seeded, env, service };
}

/** The rows the scenarios pick from: 1,000 random items, the deep cursor's anchor, the filtered row's match count. */
async function seedSamples(c, bench, mainId, members) {
  const sample = (
    await c.query(
      `SELECT id, sequence_id FROM work_items WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL ORDER BY random() LIMIT 1000`,
      [mainId],
    )
  ).rows;
  const deep = Math.min(50000, Math.floor(ITEMS * 0.9));
  const anchor = (
    await c.query(
      `SELECT (created_at)::text AS v, id FROM work_items WHERE workspace_id = $1 AND project_id = $2 AND deleted_at IS NULL AND archived_at IS NULL
        ORDER BY created_at DESC, id DESC OFFSET $3 LIMIT 1`,
      [bench, mainId, deep - 1],
    )
  ).rows[0];
  const started = (
    await c.query(
      `SELECT count(*)::int AS c FROM work_items w JOIN states s ON s.id = w.state_id
        JOIN work_item_assignees a ON a.work_item_id = w.id AND a.assignee_id = $2
       WHERE w.project_id = $1 AND s."group" = 'started' AND w.deleted_at IS NULL AND w.archived_at IS NULL`,
      [mainId, members[0]],
    )
  ).rows[0].c;
  return { sample, anchor, deep, started };
}

function rssPeakMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)[1]);
  return kb / 1024;
}

async function main() {
  const admin = await adminUrl();
  const children = [];
  const cleanup = async () => {
    for (const ch of children) ch.kill('SIGTERM');
    await sleep(300);
    await admin.stop();
  };
  try {
    const t0 = Date.now();
    const reused = REUSE ? await reusableSeed(admin.url) : undefined;
    const dbUrl = reused ?? (await freshDatabase(admin.url, DB_NAME));
    const {
      key,
      main,
      seeded,
      env,
      service: first,
    } = reused ? await openSeed(dbUrl, children) : await seedDatabase(admin.url, dbUrl, children);
    let service = first;
    const seedSeconds = (Date.now() - t0) / 1000;
    log(
      `${reused ? 'reused the seed' : 'seeded'} in ${seedSeconds.toFixed(1)} s; filtered list matches ${seeded.started} rows`,
    );
    if (SEED_ONLY) return;

    // Restart the service so its peak RSS covers the measured load only, not the seeding phase.
    service.kill('SIGTERM');
    await new Promise((r) => service.once('exit', r));
    service = spawnService(env);
    children.push(service);
    await waitFor(`http://127.0.0.1:${SERVICE_PORT}/healthz`);

    // Each ceiling gets a process of its own: sharing one, the 200-row page's slices left its heap grown, and the
    // 50-row ceiling's next slice paid the collection (slices 10-20% slower after a 200-row one).
    const bare = lib.startBare(dbUrl, seeded.bench, main.id, BARE_PORT);
    const bare200 = lib.startBare(dbUrl, seeded.bench, main.id, BARE200_PORT);
    children.push(bare, bare200);
    await Promise.all([bare, bare200].map((b) => new Promise((r) => b.once('message', r))));

    const ctx = {
      S: `http://127.0.0.1:${SERVICE_PORT}`,
      bare: `http://127.0.0.1:${BARE_PORT}`,
      bare200: `http://127.0.0.1:${BARE200_PORT}`,
      key,
      main,
      seeded,
    };
    const rows = selectRows(scenarios(ctx)).map((r) =>
      r.id.startsWith('ceiling') ? { ...r, warmUp: CEILING_WARM_UP } : r,
    );
    if (COMPARE) rows.push(...(await compareRows(dbUrl, ctx, children)));
    const loadBefore = lib.loadAverage();
    const ticks = lib.cpuTicks();
    // Every server this run started (the services, the ceilings) and the bench database's PostgreSQL processes.
    const meter = foreignCpuMeter(() => children.map((c) => c.pid), DB_NAME);
    const wal = await walMeter(dbUrl);
    const runs = [];
    for (let i = 0; i < REPEAT; i++) {
      const samples = await interleave(rows, {
        rounds: SLICES,
        seconds: SLICE_SECONDS,
        warmUp: WARM_UP,
        lead: LEAD,
        connections: CONNECTIONS,
        meter,
        wal,
        log,
      });
      runs.push(summarize(rows, samples, rows[0].name));
    }
    await wal.close();
    const rss = rssPeakMb(service.pid);
    const creates = `/api/v2/workspaces/noise/projects/${ctx.seeded.creates}/work-items/`;
    const bulkLine = await bulkVsSingle(ctx.S, key, creates);

    // The service is stopped before the audit export, which starts its own on another database.
    service.kill('SIGTERM');
    bare.kill('SIGTERM');
    bare200.kill('SIGTERM');

    const head = [
      `work items: ${ITEMS} in one project (+ noise); ${CONNECTIONS} connections (unless the row says); ${SLICES} interleaved slices of ${SLICE_SECONDS} s per row (each after ${LEAD} s unmeasured) after ${WARM_UP} s of warm-up (the ceiling ${CEILING_WARM_UP} s), randomised order; ${REPEAT} run(s)`,
      `machine: ${lib.machineLine()}; load average before ${loadBefore}, after ${lib.loadAverage()}; steal ${lib.stealBetween(ticks, lib.cpuTicks())}`,
      `database: ${await lib.pgSettings(dbUrl)} (the server's; the service's and the ceiling's sessions set max_parallel_workers_per_gather=0 and jit=off)`,
    ];
    const tables = runs.map((r, i) => table(r, `run ${i + 1} of ${REPEAT}`));
    if (REPEAT > 1) tables.push(table(combine(runs), `median of the ${REPEAT} runs`));
    const tail = `service peak RSS (VmHWM): ${rss.toFixed(0)} MB; seeding ${seedSeconds.toFixed(0)} s`;
    process.stdout.write([...head, ...tables, tail, bulkLine].join('\n') + '\n');
    if (AUDIT_ENTRIES > 0) {
      log(`audit export over ${AUDIT_ENTRIES} entries`);
      process.stdout.write(
        `\n${await runAuditExport({ entries: AUDIT_ENTRIES, admin: admin.url, port: SERVICE_PORT + 2 })}\n`,
      );
    }
  } finally {
    await cleanup();
  }
}

/**
 * The server's WAL insert position, in bytes, read on a connection of its own: exact at once, where pg_stat_wal's
 * counters reach the view only when a backend flushes its statistics (up to a second later).
 */
async function walMeter(url) {
  const c = new Client({ connectionString: url });
  await c.connect();
  return {
    position: async () => Number((await c.query(`SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn AS b`)).rows[0].b),
    close: () => c.end(),
  };
}

module.exports = { seedItems };

// Run as a script (npm run bench); bench/overhead.js only borrows the seed.
if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`${e.stack || e}\n`);
    process.exit(1);
  });
}
