'use strict';
/*
 * npm run bench:profile [-- --rows list,cursor,per200,expand,get,create --items 20000 --duration 15 --warm-up 5 --connections 16
 *                          --top 10 --port 3970 --keep DIR --database wt_bench_profile]
 *
 * Where the service's CPU goes under one kind of load (issue 27: "profile the service under the list-page-1 load").
 * Seeds one project as `npm run bench` does (its seedItems; BENCH_DATABASE_URL's server, else the embedded
 * PostgreSQL), then for every row starts the built service under `node --cpu-prof`, loads it with autocannon for
 * `--warm-up` seconds (not counted) and `--duration` seconds, and stops it. Only the samples of the measured
 * seconds count. Each sample is charged to the code that ran it (a native frame to its JavaScript caller) and
 * grouped: issue 23's mechanisms (ETags, conditional requests, idempotency, transaction scope), the rest of our
 * code (dist/src), Nest and rxjs, the pg stack (pg, pg-protocol, pg-types, postgres-date/-array, pg-pool), Fastify
 * (its JSON serialization and the socket write of the response included), GC. Prints one table of shares and,
 * per row, the `--top` functions of our own code. Shares of one process's samples do not depend on what else the
 * machine runs, which is what makes this usable on a shared machine where req/s figures are not.
 * `--keep DIR` keeps the .cpuprofile files (open them in Chrome DevTools or speedscope).
 */
const { spawn } = require('node:child_process');
const { mkdtempSync, readdirSync, readFileSync, mkdirSync, copyFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const autocannon = require('autocannon');
const lib = require('./lib');
const { adminUrl, sql, freshDatabase, cli, waitFor, serviceEnv, settle, numberOption, stringOption, api, ROOT } = lib;
const { seedItems } = require('./run');

const ITEMS = numberOption('items', 20000);
const DURATION = numberOption('duration', 15);
const WARM_UP = numberOption('warm-up', 5);
const CONNECTIONS = numberOption('connections', 16);
const TOP = numberOption('top', 10);
const PORT = numberOption('port', 3970);
const ROWS = (stringOption('rows') ?? 'list,get,create').split(',');
const KEEP = stringOption('keep');
/** The database seeded (dropped first): `--database NAME`, for a run that must not touch another's. */
const DB_NAME = stringOption('database') ?? 'wt_bench_profile';
const log = (...a) => process.stderr.write(`[profile] ${a.join(' ')}\n`);

/** Groups of samples: a name and a test on the charged frame's `url#function`. */
const GROUPS = [
  ['issue 23 mechanisms', /dist\/src\/(common\/http\/conditional|idempotency\/|common\/database\/transaction-scope)/],
  ['our other code', /dist\/src\//],
  ['Nest + rxjs', /node_modules\/(@nestjs|rxjs)\//],
  ['pg stack', /node_modules\/(pg|pg-protocol|pg-types|postgres-date|postgres-array|pg-pool)\//],
  [
    'Fastify (+ JSON, socket write)',
    /node_modules\/(fastify|fast-json-stringify|find-my-way|@fastify|light-my-request)\//,
  ],
  ['GC', /#\(garbage collector\)$/],
];

/**
 * The loads: autocannon options for a project's items path, a sampler of seeded items and the cursor of the page
 * after the seed's middle item (`cursor`: a page as deep as the project is half long).
 */
function loads(items, pick, cursor) {
  const get = (path) => ({ requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) }] });
  return {
    list: get(() => `${items}?per_page=50`),
    cursor: get(() => `${items}?per_page=50&order_by=-created_at&cursor=${cursor}`),
    per200: get(() => `${items}?per_page=200`),
    expand: get(() => `${items}?per_page=50&expand=state,labels,assignees`),
    get: get(() => `${items}${pick().id}/?expand=state,labels,assignees`),
    identifier: get(() => `/api/v2/workspaces/bench/work-items/BENCH-${pick().sequence_id}/`),
    create: {
      requests: [
        { method: 'POST', path: items, body: JSON.stringify({ name: 'Created by the profile', priority: 'high' }) },
      ],
    },
    patch: {
      requests: [
        {
          method: 'PATCH',
          setupRequest: (req) => ({
            ...req,
            path: `${items}${pick().id}/`,
            body: JSON.stringify({ name: `Patched ${Date.now()}`, priority: 'low' }),
          }),
        },
      ],
    },
  };
}

/** Self time per sample, charged to the nearest frame with a file outside Node's own (a native frame has none). */
function charge(profile, fromUs, toUs) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const owner = (id) => {
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur).callFrame;
      if (f.url && !f.url.startsWith('node:')) return f;
    }
    return null;
  };
  const out = [];
  let t = 0;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    if (t < fromUs || t > toUs) return;
    const frame = byId.get(id).callFrame;
    if (frame.functionName === '(idle)' || frame.functionName === '(program)') return;
    const o = owner(id);
    out.push({ frame, owner: o, key: `${o ? o.url : ''}#${frame.functionName}`, us: profile.timeDeltas[i] ?? 0 });
  });
  return out;
}

function summarize(samples) {
  const total = samples.reduce((n, s) => n + s.us, 0);
  const shares = GROUPS.map(([name, re]) => {
    const mine = samples.filter(
      (s) =>
        re.test(s.key) &&
        !GROUPS.slice(
          0,
          GROUPS.findIndex((g) => g[0] === name),
        ).some(([, r]) => r.test(s.key)),
    );
    return [name, mine.reduce((n, s) => n + s.us, 0) / total];
  });
  const ours = new Map();
  for (const s of samples) {
    if (!s.owner || !/dist\/src\//.test(s.owner.url)) continue;
    const where = `${s.owner.functionName || '(anonymous)'} ${s.owner.url.split('/dist/src/')[1]}:${s.owner.lineNumber + 1}`;
    const k = s.frame === s.owner ? where : `${where} [${s.frame.functionName}]`;
    ours.set(k, (ours.get(k) ?? 0) + s.us);
  }
  const top = [...ours]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .map(([k, us]) => [k, us / total]);
  return { total, shares, top };
}

async function profileRow(name, opts, env, key) {
  const dir = mkdtempSync(join(tmpdir(), 'wt-prof-'));
  const start = lib.startCommand();
  const started = process.hrtime.bigint();
  const child = spawn(start.cmd, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...start.flags, ...start.script], {
    env: { ...env, ...start.env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitFor(`http://127.0.0.1:${PORT}/healthz`);
  const base = {
    url: `http://127.0.0.1:${PORT}`,
    connections: CONNECTIONS,
    headers: { 'X-Api-Key': key, 'content-type': 'application/json' },
  };
  await autocannon({ ...base, ...opts, duration: WARM_UP });
  const from = Number(process.hrtime.bigint() - started) / 1000;
  const result = await autocannon({ ...base, ...opts, duration: DURATION });
  const to = Number(process.hrtime.bigint() - started) / 1000;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGINT');
  await exited;
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (KEEP) {
    mkdirSync(KEEP, { recursive: true });
    copyFileSync(join(dir, file), join(KEEP, `${name}.cpuprofile`));
  }
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  log(`${name}: ${(result.requests.total / DURATION).toFixed(0)} req/s, ${result.non2xx} non-2xx`);
  return { name, rps: result.requests.total / DURATION, ...summarize(charge(profile, from, to)) };
}

function report(results) {
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  const lines = [
    `CPU profile of the service: ${ITEMS} work items, ${CONNECTIONS} connections, ${DURATION} s measured after ${WARM_UP} s of warm-up; ${lib.machineLine()}`,
    `| load | req/s | ${GROUPS.map(([n]) => n).join(' | ')} | other (Node, V8, libuv) |`,
    `|---|---|${GROUPS.map(() => '---|').join('')}---|`,
  ];
  for (const r of results) {
    const rest = 1 - r.shares.reduce((n, [, x]) => n + x, 0);
    lines.push(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.shares.map(([, x]) => pct(x)).join(' | ')} | ${pct(rest)} |`);
  }
  for (const r of results) {
    lines.push('', `Top functions of our own code under \`${r.name}\` (share of all samples):`, '');
    for (const [k, x] of r.top) lines.push(`- ${pct(x)} ${k}`);
  }
  process.stdout.write(lines.join('\n') + '\n');
}

async function main() {
  const admin = await adminUrl();
  try {
    const dbUrl = await freshDatabase(admin.url, DB_NAME);
    cli(dbUrl, 'migrate');
    const owner = cli(dbUrl, 'user', 'create', '--email', 'bench@example.com', '--display-name', 'Bench Owner');
    cli(dbUrl, 'workspace', 'create', '--slug', 'bench', '--name', 'Bench');
    cli(dbUrl, 'member', 'add', '--workspace', 'bench', '--email', 'bench@example.com', '--role', 'owner');
    const key = cli(dbUrl, 'api-key', 'create', '--email', 'bench@example.com').key;
    const env = { ...serviceEnv(dbUrl, PORT), OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' };
    const sample = await seed(dbUrl, env, key, owner.id);
    const pick = () => sample.rows[Math.floor(Math.random() * sample.rows.length)];
    const all = loads(`/api/v2/workspaces/bench/projects/${sample.project}/work-items/`, pick, sample.cursor);
    const results = [];
    for (const row of ROWS) {
      if (!all[row]) throw new Error(`--rows: unknown ${row}; rows: ${Object.keys(all).join(', ')}`);
      results.push(await profileRow(row, all[row], env, key));
    }
    report(results);
  } finally {
    await admin.stop();
  }
}

/** The project (created through the API, so it has its states), its items seeded set-based, a sample of them. */
async function seed(dbUrl, env, key, ownerId) {
  const child = spawn(process.execPath, [resolve(ROOT, 'dist/src/main.js')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await waitFor(`http://127.0.0.1:${PORT}/healthz`);
    const project = await api(PORT, 'POST', '/api/v2/workspaces/bench/projects/', key, {
      name: 'Bench',
      identifier: 'BENCH',
    });
    return await sql(dbUrl, async (c) => {
      const ws = (await c.query(`SELECT id FROM workspaces WHERE slug = 'bench'`)).rows[0].id;
      log(`seeding ${ITEMS} work items`);
      await seedItems(c, ws, project.id, ITEMS, ownerId, [], []);
      await settle(c, log);
      const rows = (
        await c.query(
          `SELECT id, sequence_id FROM work_items WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL ORDER BY random() LIMIT 1000`,
          [project.id],
        )
      ).rows;
      const middle = (
        await c.query(
          `SELECT created_at::text AS v, id FROM work_items WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL
            ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
          [project.id, Math.floor(ITEMS / 2)],
        )
      ).rows[0];
      const cursor = Buffer.from(JSON.stringify(['-created_at', middle.v, middle.id]), 'utf8').toString('base64url');
      return { project: project.id, rows, cursor };
    });
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

module.exports = { loads };

// Run as a script (npm run bench:profile); bench/memory.js only borrows the loads.
if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
