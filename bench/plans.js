'use strict';
/*
 * npm run bench:plans [-- --workspace] [-- --no-stats | --analyze] [-- --database NAME] [-- --only REGEX] [-- --project IDENT]   (after `npm run bench`, on
 * the database it leaves: BENCH_DATABASE_URL's server, database wt_bench or `--database` (as given to `npm run bench
 * -- --database NAME --seed-only`); --workspace: the workspace-wide list's statements instead of
 * the project list's; --no-stats: first drop the work item tables' statistics and turn their autovacuum off, as on
 * a server that never analyzed them (after a bulk import, or with autovacuum off; needs a superuser); --analyze:
 * first ANALYZE them and turn their autovacuum back on; --only: the rows whose name matches REGEX, case-insensitive;
 * --then-project UUID: after the six runs for the planned project, the plan shown is the one those runs left, run for
 * project UUID instead (any id: one with no items reads as a new project's list would))
 *
 * The work item list's plans at the benchmark's scale: for every filter and ordering of gap-reference 3.1, the
 * statements WorkItemsRepository.list sends (captured from the compiled code, not written by hand) are prepared
 * and run as the service runs them (a named prepared statement, parallel query off), six times so PostgreSQL settles
 * on its cached plan, then EXPLAIN (ANALYZE, BUFFERS) EXECUTE shows the plan it keeps. A statement the service sends
 * unnamed (PLANNED_PER_REQUEST) is planned for its values each time: its plan is shown as such ("per request"). Prints a
 * summary table and every plan as markdown (docs/work-items-plans.md holds the last output).
 */
const { resolve } = require('node:path');
const { Client } = require('pg');
const { withDb } = require('./lib');

const ROOT = resolve(__dirname, '..');
const { parseListQuery } = require(resolve(ROOT, 'dist/src/common/pagination/list-query.js'));
const { WORK_ITEM_LIST, WORKSPACE_WORK_ITEM_LIST } = require(
  resolve(ROOT, 'dist/src/work-items/work-items.queries.js'),
);
const { WorkItemsRepository } = require(resolve(ROOT, 'dist/src/work-items/work-items.repository.js'));
const { PLANNED_PER_REQUEST } = require(resolve(ROOT, 'dist/src/common/database/statement-cache.js'));

/** The list's tables; the gap tables (migration WorkItemLinkGaps) where the database has them (not before it). */
let TABLES = [
  'work_items',
  'work_item_assignees',
  'work_item_labels',
  'module_work_items',
  'work_item_assignee_gaps',
  'work_item_label_gaps',
];
let STATS_NOTE = 'as the database has them';
const timeoutAt = process.argv.indexOf('--timeout');
const TIMEOUT_S = timeoutAt > 0 ? Number(process.argv[timeoutAt + 1]) : 10;
const databaseAt = process.argv.indexOf('--database');
const onlyAt = process.argv.indexOf('--only');
/** `--project IDENT`: the project whose list is planned (default the big one; S1.. from `--small-projects`). */
const projectAt = process.argv.indexOf('--project');
const PROJECT = projectAt > 0 ? process.argv[projectAt + 1] : 'BENCH';
const thenAt = process.argv.indexOf('--then-project');
const THEN_PROJECT = thenAt > 0 ? process.argv[thenAt + 1] : undefined;
const ONLY = onlyAt > 0 ? new RegExp(process.argv[onlyAt + 1], 'i') : null;

/** --no-stats / --analyze: the work item tables as never analyzed, or analyzed now; says which in STATS_NOTE. */
async function statistics(c) {
  const present = await c.query(`SELECT t FROM unnest($1::text[]) t WHERE to_regclass(t) IS NOT NULL`, [TABLES]);
  TABLES = present.rows.map((r) => r.t);
  if (process.argv.includes('--no-stats')) {
    for (const t of TABLES) await c.query(`ALTER TABLE ${t} SET (autovacuum_enabled = false)`);
    // The tables' own statistics and their indexes' (an expression index, ix_work_items_priority's rank, has its
    // own): a server that never analyzed the tables has neither.
    await c.query(
      `DELETE FROM pg_statistic WHERE starelid = ANY($1::regclass[])
          OR starelid IN (SELECT indexrelid FROM pg_index WHERE indrelid = ANY($1::regclass[]))`,
      [TABLES],
    );
    // Extended statistics (st_work_items_project_workspace) are built by ANALYZE too.
    await c.query(
      `DELETE FROM pg_statistic_ext_data WHERE stxoid IN (SELECT oid FROM pg_statistic_ext WHERE stxrelid = ANY($1::regclass[]))`,
      [TABLES],
    );
    await c.query(`UPDATE pg_class SET reltuples = -1 WHERE oid = ANY($1::regclass[])`, [TABLES]);
    STATS_NOTE = `none: ${TABLES.join(', ')} as never analyzed (pg_statistic and pg_statistic_ext_data rows deleted, reltuples -1, autovacuum off)`;
  } else if (process.argv.includes('--analyze')) {
    for (const t of TABLES) await c.query(`ALTER TABLE ${t} RESET (autovacuum_enabled)`);
    for (const t of TABLES) await c.query(`ANALYZE ${t}`);
    STATS_NOTE = `${TABLES.join(', ')} analyzed just before`;
  }
}

/** Parameters written as SQL literals; `project` (the planned one) replaced by `as` (--then-project) if given. */
const literalsOf = (params, project, as) =>
  params.map((v) =>
    v === null
      ? 'NULL'
      : Array.isArray(v)
        ? `'{${v.join(',')}}'`
        : `'${String(v === project && as ? as : v).replace(/'/g, "''")}'`,
  );

/**
 * Runs statement `i` as the service does (named, six times; unnamed statements are planned for their values each
 * time), then as PREPARE / EXECUTE and EXPLAIN: its plan (for THEN_PROJECT, if given). `g`: 'generic', 'per execution'
 * or 'per request'.
 */
async function runPlan(c, s, i, project) {
  const unnamed = s.sql.startsWith(PLANNED_PER_REQUEST);
  const stmt = `plan_${i}`;
  for (let k = 0; k < 6; k++) await c.query({ name: stmt, text: s.sql, values: s.params });
  const { generic_plans: generic } = (
    await c.query(`SELECT generic_plans FROM pg_prepared_statements WHERE name = $1`, [stmt])
  ).rows[0];
  const literals = literalsOf(s.params, project);
  await c.query(`PREPARE x_${i} AS ${s.sql}`);
  for (let k = 0; k < 6; k++) await c.query(`EXECUTE x_${i}(${literals.join(', ')})`);
  if (unnamed) await c.query(`SET plan_cache_mode = force_custom_plan`);
  const args = literalsOf(s.params, project, THEN_PROJECT).join(', ');
  const plan = (await c.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE x_${i}(${args})`)).rows.map(
    (r) => r['QUERY PLAN'],
  );
  if (unnamed) await c.query(`RESET plan_cache_mode`);
  const g = unnamed ? 'per request' : Number(generic) > 0 ? 'generic' : 'per execution';
  return { g, plan };
}

async function main() {
  const admin = process.env.BENCH_DATABASE_URL;
  if (!admin)
    throw new Error('set BENCH_DATABASE_URL (the server `npm run bench` used; its database wt_bench is read)');
  const c = new Client({
    connectionString: withDb(admin, databaseAt > 0 ? process.argv[databaseAt + 1] : 'wt_bench'),
    // A statement whose plan walks the project once per row runs for minutes at this scale: cut short, reported.
    // The service's session settings (SESSION_OPTIONS, src/common/database/data-source.ts).
    options: `-c max_parallel_workers_per_gather=0 -c jit=off -c statement_timeout=${TIMEOUT_S * 1000}`,
  });
  await c.connect();
  const one = async (sql, params = []) => (await c.query(sql, params)).rows[0];
  await statistics(c);
  const { ws, project } = await one(
    `SELECT w.id AS ws, p.id AS project FROM projects p JOIN workspaces w ON w.id = p.workspace_id WHERE p.identifier = $1`,
    [PROJECT],
  );
  const states = Object.fromEntries(
    (await c.query(`SELECT "group", id FROM states WHERE project_id = $1 AND deleted_at IS NULL`, [project])).rows.map(
      (r) => [r.group, r.id],
    ),
  );
  const member = (await one(`SELECT id FROM users WHERE email = 'member1@example.com'`)).id;
  // The project's labels; a project without any (a small one) filters by the big project's, which match none here.
  const labelAt = async (k) =>
    (
      await one(
        `SELECT id FROM labels WHERE workspace_id = $1 ORDER BY project_id = $2 DESC, sort_order OFFSET $3 LIMIT 1`,
        [ws, project, k],
      )
    ).id;
  const [label, label2] = [await labelAt(0), await labelAt(1)];
  const member2 = (await one(`SELECT id FROM users WHERE email = 'member2@example.com'`)).id;
  // The project's member assigned to the fewest live items (the seed's owner: a few dozen at a million items).
  const rare = (
    await one(
      `SELECT m.member_id AS id FROM project_members m WHERE m.project_id = $1
        ORDER BY coalesce((SELECT sum(k.n) FROM work_item_assignee_counts k WHERE k.project_id = $1 AND k.assignee_id = m.member_id), 0), m.member_id
        LIMIT 1`,
      [project],
    )
  ).id;
  const { live } = await one(
    `SELECT count(*)::int AS live FROM work_items WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL`,
    [project],
  );
  // A place `at` items from the project's newest, or `share` of the way down a project too small to hold it.
  const placeAt = (at, share) => (at < live ? at : Math.floor((live - 1) * share));
  const anchor = await one(
    `SELECT created_at::text AS v, id FROM work_items WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
    [project, placeAt(49999, 0.5)],
  );
  const cursor = Buffer.from(JSON.stringify(['-created_at', anchor.v, anchor.id]), 'utf8').toString('base64url');
  // created_at, to the second, of the project's item `at` places from its newest (the filter's precision).
  const createdAt = async (at) =>
    (
      await one(
        `SELECT to_char(date_trunc('second', created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS t FROM work_items
          WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
        [project, at],
      )
    ).t;
  const [newest100k, newest1k, newest2k] = [
    await createdAt(placeAt(100000, 0.1)),
    await createdAt(placeAt(1000, 0.4)),
    await createdAt(placeAt(2000, 0.8)),
  ];

  const QUERIES = [
    ['page 1 (default -created_at)', {}],
    // The benchmark's `?expand=` row: the page's objects read by the page statement (a third element: ListArrays).
    ['page 1 ?expand=state,labels,assignees', {}, { expanded: ['state', 'labels', 'assignees'] }],
    ['cursor page 50,000 deep', { paginate: 'cursor', cursor }],
    ['offset 10000', { offset: '10000' }],
    ['state_group + assignee_id', { state_group: 'started', assignee_id: member }],
    ['assignee_id', { assignee_id: member }],
    ['assignee_id__in', { assignee_id__in: member }],
    ['assignee_id__isnull=true', { assignee_id__isnull: 'true' }],
    ['label_id', { label_id: label }],
    ['label_id__in (two labels)', { label_id__in: `${label},${label2}` }],
    ['label_id__in (two labels) offset 5000', { label_id__in: `${label},${label2}`, offset: '5000' }],
    ['label_id + priority', { label_id: label, priority: 'high' }],
    ['label_id + priority__in', { label_id: label, priority__in: 'high,low' }],
    ['label_id__in (two labels) + priority', { label_id__in: `${label},${label2}`, priority: 'medium' }],
    ['label_id + priority (common)', { label_id: label2, priority: 'high' }],
    ['label_id + priority (common) offset 5000', { label_id: label2, priority: 'high', offset: '5000' }],
    ['assignee_id + priority', { assignee_id: member, priority: 'high' }],
    ['assignee_id + priority + state_group', { assignee_id: member, priority: 'high', state_group: 'started' }],
    ['label_id order_by=priority', { label_id: label, order_by: 'priority' }],
    ['assignee_id order_by=-updated_at', { assignee_id: member, order_by: '-updated_at' }],
    ['assignee_id (rare) order_by=-updated_at', { assignee_id: rare, order_by: '-updated_at' }],
    ['assignee_id (rare) order_by=priority', { assignee_id: rare, order_by: 'priority' }],
    ['assignee_id (rare) order_by=-state_group', { assignee_id: rare, order_by: '-state_group' }],
    ['assignee_id__in (two members)', { assignee_id__in: `${member},${member2}` }],
    ['module_id__isnull=true', { module_id__isnull: 'true' }],
    ['label_id__isnull=true', { label_id__isnull: 'true' }],
    ['state_id', { state_id: states.started }],
    ['state_id__in', { state_id__in: `${states.started},${states.backlog}` }],
    ['state_group', { state_group: 'started' }],
    ['state_group__in', { state_group__in: 'backlog,completed' }],
    ['priority', { priority: 'high' }],
    ['priority__in', { priority__in: 'urgent,high' }],
    // Cursor pages of the filters read one range per value in created_at order (the cursor from the unfiltered list).
    ['state_id cursor', { state_id: states.started, paginate: 'cursor', cursor }],
    ['state_id__in cursor', { state_id__in: `${states.started},${states.backlog}`, paginate: 'cursor', cursor }],
    ['state_group cursor', { state_group: 'started', paginate: 'cursor', cursor }],
    ['priority cursor', { priority: 'high', paginate: 'cursor', cursor }],
    ['priority__in cursor', { priority__in: 'urgent,high', paginate: 'cursor', cursor }],
    ['type_id__in', { type_id__in: states.started }],
    ['parent_id__isnull=false', { parent_id__isnull: 'false' }],
    ['cycle_id__isnull=false', { cycle_id__isnull: 'false' }],
    ['module_id__isnull=false', { module_id__isnull: 'false' }],
    ['sequence_id', { sequence_id: '500000' }],
    ['external_source + external_id', { external_source: 'jira', external_id: 'X-1' }],
    ['created_at range', { created_at__gte: '2020-01-01T00:00:00Z', created_at__lte: '2030-01-01T00:00:00Z' }],
    ['created_at range (all but the newest 100,000)', { created_at__lte: newest100k }],
    ['created_at range (1,000 items)', { created_at__gte: newest2k, created_at__lte: newest1k }],
    ['created_at range + state_group', { created_at__gte: '2020-01-01T00:00:00Z', state_group: 'started' }],
    ['target_date range', { target_date__gte: '2025-03-01', target_date__lte: '2025-03-31' }],
    ['start_date range', { start_date__gte: '2025-01-01', start_date__lte: '2025-01-31' }],
    ['target_date one day', { target_date__gte: '2025-06-15', target_date__lte: '2025-06-15' }],
    ['target_date range matching none', { target_date__gte: '2030-01-01' }],
    [
      'target_date range offset 1000',
      { target_date__gte: '2025-03-01', target_date__lte: '2025-03-31', offset: '1000' },
    ],
    ['search (3+ characters)', { search: 'number 12345' }],
    ['search (common term)', { search: 'number 1' }],
    ['search (3+ characters) offset 1000', { search: 'number 12345', offset: '1000' }],
    ['order_by=-id', { order_by: '-id' }],
    ['order_by=priority', { order_by: 'priority' }],
    ['order_by=priority&priority=low', { order_by: 'priority', priority: 'low' }],
    ['order_by=-priority&priority__in=low,high', { order_by: '-priority', priority__in: 'low,high' }],
    [
      'order_by=-priority&priority__in=low,high offset 5000',
      { order_by: '-priority', priority__in: 'low,high', offset: '5000' },
    ],
    ['order_by=-priority', { order_by: '-priority' }],
    ['order_by=priority offset 5000', { order_by: 'priority', offset: '5000' }],
    ['order_by=-priority offset 5000', { order_by: '-priority', offset: '5000' }],
    ['order_by=priority&priority=low offset 5000', { order_by: 'priority', priority: 'low', offset: '5000' }],
    ['order_by=-priority&priority=low offset 5000', { order_by: '-priority', priority: 'low', offset: '5000' }],
    [
      'order_by=priority&priority__in=low,high offset 5000',
      { order_by: 'priority', priority__in: 'low,high', offset: '5000' },
    ],
    ['order_by=-state_group', { order_by: '-state_group' }],
    ['order_by=state_group offset 5000', { order_by: 'state_group', offset: '5000' }],
    ['order_by=-state_group offset 5000', { order_by: '-state_group', offset: '5000' }],
    [
      'order_by=state_group&state_group=started offset 5000',
      { order_by: 'state_group', state_group: 'started', offset: '5000' },
    ],
    [
      'order_by=-state_group&state_group__in=backlog,completed offset 5000',
      { order_by: '-state_group', state_group__in: 'backlog,completed', offset: '5000' },
    ],
    [
      'order_by=state_group&state_group__in=backlog,completed',
      { order_by: 'state_group', state_group__in: 'backlog,completed' },
    ],
    ['order_by=-updated_at', { order_by: '-updated_at' }],
    ['order_by=sequence_id', { order_by: 'sequence_id' }],
    ['order_by=sort_order', { order_by: 'sort_order' }],
  ];

  const WORKSPACE = process.argv.includes('--workspace');
  // The workspace-wide list (GET /workspaces/{slug}/work-items/): the owner reads every project of the workspace;
  // a member reading only the two smaller projects is the case where the walk skips other projects' rows.
  const wsProjects = (
    await c.query(
      `SELECT id, identifier FROM projects WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY identifier`,
      [ws],
    )
  ).rows;
  const all = wsProjects.map((p) => p.id);
  const small = wsProjects.filter((p) => ['NA', 'NB'].includes(p.identifier)).map((p) => p.id);
  const wsAnchor = await one(
    `SELECT created_at::text AS v, id FROM work_items WHERE workspace_id = $1 AND deleted_at IS NULL AND archived_at IS NULL ORDER BY created_at DESC, id DESC OFFSET 49999 LIMIT 1`,
    [ws],
  );
  const wsCursor = Buffer.from(JSON.stringify(['-created_at', wsAnchor.v, wsAnchor.id]), 'utf8').toString('base64url');
  const WS_QUERIES = [
    ['workspace: page 1 (owner, every project)', all, {}],
    ['workspace: cursor page 50,000 deep', all, { paginate: 'cursor', cursor: wsCursor }],
    ['workspace: offset 10000', all, { offset: '10000' }],
    ['workspace: order_by=-updated_at', all, { order_by: '-updated_at' }],
    ['workspace: project_id=BENCH (one project)', [project], {}],
    ['workspace: member of the two smaller projects', small, {}],
    ['workspace: member of the two smaller projects, order_by=-updated_at', small, { order_by: '-updated_at' }],
    ['workspace: priority=high', all, { priority: 'high' }],
    ['workspace: state_group=started', all, { state_group: 'started' }],
    ['workspace: assignee_id', all, { assignee_id: member }],
    ['workspace: label_id', all, { label_id: label }],
    ['workspace: assignee_id__in (two members)', all, { assignee_id__in: `${member},${member2}` }],
    // The benchmark's first label is only on urgent items: with another priority it meets none of them.
    ['workspace: label_id + priority (none meet)', all, { label_id: label, priority: 'high' }],
    ['workspace: label_id + priority__in', all, { label_id: label, priority__in: 'urgent,high' }],
    ['workspace: assignee_id + state_group', all, { assignee_id: member, state_group: 'completed' }],
    ['workspace: assignee_id order_by=-updated_at', all, { assignee_id: member, order_by: '-updated_at' }],
    ['workspace: assignee_id (rare) order_by=-updated_at', all, { assignee_id: rare, order_by: '-updated_at' }],
    ['workspace: search', all, { search: 'number 12345' }],
  ];

  const statements = [];
  const repo = new WorkItemsRepository({ driver: {} });
  let current;
  // The repository's reader records each statement and answers with one blank row (a page that is not empty,
  // so a counter read by the page statement is not read again on its own).
  const blank = { id: '00000000-0000-0000-0000-000000000000', c: 0, __total: 0, __cv: null };
  repo.reader = repo.pageReader = {
    query: async (sql, params) => (statements.push({ name: current, sql, params: params ?? [] }), [{ ...blank }]),
  };
  if (WORKSPACE) {
    for (const [name, projects, raw] of WS_QUERIES) {
      if (ONLY && !ONLY.test(name)) continue;
      current = name;
      // `partial`: the list covers fewer projects than the workspace has, as the service tells the repository.
      const query = parseListQuery({ per_page: '50', ...raw }, WORKSPACE_WORK_ITEM_LIST);
      await repo.listWorkspace(ws, projects, query, undefined, projects.length < all.length);
    }
  } else {
    for (const [name, raw, arrays] of QUERIES) {
      if (ONLY && !ONLY.test(name)) continue;
      current = name;
      const query = parseListQuery({ per_page: '50', ...raw }, WORK_ITEM_LIST);
      await repo.list(ws, project, query, { assignees: true, labels: true, modules: true, ...arrays });
    }
  }

  const rows = [];
  const details = [];
  for (let i = 0; i < statements.length; i++) {
    const s = statements[i];
    const kind = /count\(\*\)|sum\(k\.n\)|sum\(n\)/.test(s.sql) && !/SELECT page\.\*/.test(s.sql) ? 'count' : 'page';
    let g;
    let plan;
    try {
      ({ g, plan } = await runPlan(c, s, i, project));
    } catch (e) {
      if (!/statement timeout/.test(e.message)) throw e;
      rows.push(`| ${s.name} | ${kind} | | | > ${TIMEOUT_S * 1000} (cancelled) | |`);
      details.push(
        `### ${s.name}: ${kind}\n\n\`\`\`sql\n${s.sql.replace(/\s+/g, ' ').trim()}\n\`\`\`\n\ncancelled after ${TIMEOUT_S} s\n`,
      );
      continue;
    }
    const exec = plan.find((l) => l.startsWith('Execution Time'))?.replace(/[^\d.]/g, '') ?? '';
    const buffers = (plan.find((l) => /Buffers: shared/.test(l)) ?? '')
      .match(/(hit|read)=(\d+)/g)
      ?.reduce((n, kv) => n + Number(kv.split('=')[1]), 0);
    const planning = plan.find((l) => l.startsWith('Planning Time'))?.replace(/[^\d.]/g, '') ?? '';
    rows.push(`| ${s.name} | ${kind} | ${g} | ${planning} | ${exec} | ${buffers ?? ''} |`);
    details.push(
      `### ${s.name}: ${kind}\n\n\`\`\`sql\n${s.sql.replace(/\s+/g, ' ').trim()}\n\`\`\`\n\n\`\`\`\n${plan.join('\n')}\n\`\`\`\n`,
    );
  }
  const out = [
    `statistics: ${STATS_NOTE}`,
    '',
    '| query | statement | plan | planning ms | execution ms | buffers |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    ...details,
  ];
  process.stdout.write(out.join('\n') + '\n');
  await c.end();
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
