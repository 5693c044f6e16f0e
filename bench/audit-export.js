'use strict';
/*
 * Audit export benchmark (issue 6):
 *   npm run build && node bench/audit-export.js [--entries 1000000] [--per-page 200] [--port 3995]
 * or as part of `npm run bench` (bench/run.js calls `runAuditExport({ entries, admin })` and prints its table).
 *
 * Seeds a fresh database (BENCH_DATABASE_URL's server, else the embedded PostgreSQL under .data/bench)
 * with `--entries` audit entries in one workspace (+10% in another workspace), set-based, with the same
 * invariants the insert trigger keeps (sequence_number, created_at and id increasing together). Starts the
 * built service and runs the spec's export procedure through the API: paginate=cursor, per_page=200,
 * order_by=created_at, following next_cursor to the end. Prints the time per page for the first, middle
 * and last pages (they should be flat: keyset pagination, no offset), then a filtered export
 * (category=auth) and a descending walk for comparison.
 */
const { adminUrl, sql, freshDatabase, cli, waitFor, serviceEnv, spawnService, settle } = require('./lib');

const DB_NAME = 'wt_bench_audit';
const log = (...a) => process.stderr.write(`[audit-bench] ${a.join(' ')}\n`);

/**
 * n entries in workspace `ws`, sequenced after everything already there: the trigger is bypassed for speed,
 * and the seed assigns what it would (sequence_number from the sequence, created_at strictly increasing,
 * id = audit_log_id(created_at, sequence_number)).
 */
async function seed(c, ws, n, users) {
  await c.query(`ALTER TABLE audit_logs DISABLE TRIGGER audit_logs_sequence`);
  try {
    await c.query(
      `WITH base AS (SELECT greatest(now(), (SELECT max(created_at) FROM audit_logs WHERE workspace_id = $1) + interval '1 microsecond') AS t0),
            ev(k, name, cat, ttype) AS (VALUES
              (0, 'member.role_updated', 'member', 'workspace_member'), (1, 'project_member.added', 'member', 'project_member'),
              (2, 'api_key.created', 'auth', 'api_key'), (3, 'token.issued', 'auth', 'oauth_token'),
              (4, 'workspace.features_updated', 'settings', 'workspace'), (5, 'work_item_type.updated', 'settings', 'work_item_type'),
              (6, 'work_item_property.created', 'settings', 'work_item_property'), (7, 'workflow.updated', 'settings', 'workflow'),
              (8, 'project.updated', 'settings', 'project'), (9, 'auth.failed', 'auth', 'workspace'),
              (10, 'permission.denied', 'security', 'route'), (11, 'rate_limit.exceeded', 'security', 'workspace')),
            rows AS (
              SELECT g, nextval('audit_logs_sequence_number_seq') AS seq, (SELECT t0 FROM base) + make_interval(secs => g / 1000000.0) AS at,
                     ($2::uuid[])[1 + g % cardinality($2::uuid[])] AS actor, g % 12 AS k
                FROM generate_series(1, $3::int) g)
       INSERT INTO audit_logs (id, event_id, sequence_number, event_name, category, outcome, source, actor_type, actor_id,
                               actor_display_name, actor_email, target_type, target_id, target_display_name, old_value, new_value,
                               reason, metadata, ip_address, user_agent, workspace_id, created_at)
       SELECT audit_log_id(r.at, r.seq), gen_random_uuid(), r.seq, ev.name, ev.cat,
              CASE WHEN r.k >= 9 THEN 'failure' ELSE 'success' END, 'api',
              CASE WHEN r.k = 9 THEN 'anonymous' ELSE 'api_token' END, CASE WHEN r.k = 9 THEN NULL ELSE r.actor END,
              CASE WHEN r.k = 9 THEN '' ELSE 'Bench User ' || (r.g % 20) END, CASE WHEN r.k = 9 THEN '' ELSE 'bench' || (r.g % 20) || '@example.com' END,
              ev.ttype, md5(r.g::text), 'Target ' || (r.g % 5000), '{"role":"member"}', '{"role":"admin"}',
              CASE WHEN r.k >= 9 THEN 'seeded' ELSE '' END, jsonb_build_object('seeded', true, 'n', r.g),
              '10.0.' || (r.g % 50) || '.' || (r.g % 200), 'bench-agent/1.0', $1, r.at
         FROM rows r JOIN ev ON ev.k = r.k`,
      [ws, users, n],
    );
  } finally {
    await c.query(`ALTER TABLE audit_logs ENABLE TRIGGER audit_logs_sequence`);
  }
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

/** The spec's export procedure, timing each page. */
async function exportAll(base, key, query, maxPages = Infinity) {
  const times = [];
  let count = 0;
  let cursor = null;
  const started = Date.now();
  for (;;) {
    const q = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) });
    const t0 = process.hrtime.bigint();
    const r = await fetch(`${base}?${q}`, { headers: { 'X-Api-Key': key } });
    const body = await r.json();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 200) throw new Error(`export page ${times.length}: ${r.status} ${JSON.stringify(body)}`);
    count += body.data.length;
    if (!body.has_more || times.length >= maxPages) break;
    cursor = body.next_cursor;
  }
  return { times, count, seconds: (Date.now() - started) / 1000 };
}

function summary(name, r, sample = 20) {
  const n = r.times.length;
  const mid = Math.max(0, Math.floor(n / 2) - sample / 2);
  const f = (x) => x.toFixed(1).padStart(7);
  return [
    `${name}: ${r.count} entries, ${n} pages, ${r.seconds.toFixed(1)} s (${(r.count / r.seconds).toFixed(0)} entries/s)`,
    `  ms per page   first ${sample}: ${f(mean(r.times.slice(0, sample)))}   middle ${sample}: ${f(mean(r.times.slice(mid, mid + sample)))}   last ${sample}: ${f(mean(r.times.slice(-sample)))}`,
    `  all pages     p50: ${f(pct(r.times, 50))}   p99: ${f(pct(r.times, 99))}   max: ${f(Math.max(...r.times))}`,
  ].join('\n');
}

/**
 * Seeds `entries` audit entries and runs the export procedure through the API. `admin` is the database
 * server to use (bench/run.js passes its own); without it the script starts or finds one itself.
 */
async function runAuditExport({ entries = 1_000_000, perPage = 200, port = 3995, admin = null } = {}) {
  const server = admin ? { url: admin, stop: async () => undefined } : await adminUrl();
  let service = null;
  try {
    const dbUrl = await freshDatabase(server.url, DB_NAME);
    cli(dbUrl, 'migrate');
    cli(dbUrl, 'user', 'create', '--email', 'audit-bench@example.com', '--display-name', 'Audit Bench');
    cli(dbUrl, 'workspace', 'create', '--slug', 'audit', '--name', 'Audit');
    cli(dbUrl, 'workspace', 'create', '--slug', 'audit-noise', '--name', 'Audit noise');
    cli(dbUrl, 'member', 'add', '--workspace', 'audit', '--email', 'audit-bench@example.com', '--role', 'owner');
    const key = cli(dbUrl, 'api-key', 'create', '--email', 'audit-bench@example.com').key;

    const t0 = Date.now();
    await sql(dbUrl, async (c) => {
      const ws = Object.fromEntries((await c.query(`SELECT slug, id FROM workspaces`)).rows.map((r) => [r.slug, r.id]));
      const users = (await c.query(`SELECT array_agg(gen_random_uuid()) AS u FROM generate_series(1, 20)`)).rows[0].u;
      log(`seeding ${entries} audit entries (+ ${Math.round(entries / 10)} in another workspace)`);
      await seed(c, ws['audit-noise'], Math.round(entries / 10), users);
      await seed(c, ws.audit, entries, users);
      await settle(c, log, 'audit_logs');
    });
    log(`seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    service = spawnService(serviceEnv(dbUrl, port));
    await waitFor(`http://127.0.0.1:${port}/healthz`);
    const base = `http://127.0.0.1:${port}/api/v2/workspaces/audit/audit-logs/`;
    const export_ = { paginate: 'cursor', per_page: String(perPage), order_by: 'created_at' };

    await exportAll(base, key, export_, 50); // warm-up: JIT, pool, the first index pages
    const lines = [
      `audit export: ${entries} entries in the workspace (+10% elsewhere), per_page ${perPage}; node ${process.version}; ${require('node:os').cpus().length} CPUs`,
    ];
    lines.push(summary('full export (order_by=created_at)', await exportAll(base, key, export_)));
    lines.push(
      summary('filtered export (category=auth)', await exportAll(base, key, { ...export_, category: 'auth' })),
    );
    lines.push(
      summary(
        'descending walk (order_by=-created_at, 10% of pages)',
        await exportAll(base, key, { ...export_, order_by: '-created_at', created_after: await tenthFromEnd(dbUrl) }),
      ),
    );
    return lines.join('\n');
  } finally {
    if (service) {
      service.kill('SIGTERM');
      await new Promise((r) => service.once('exit', r));
    }
    await server.stop();
  }
}

/** created_at of the entry 10% from the newest end of the main workspace (bounds the descending walk). */
async function tenthFromEnd(dbUrl) {
  return sql(dbUrl, async (c) => {
    const ws = (await c.query(`SELECT id FROM workspaces WHERE slug = 'audit'`)).rows[0].id;
    const n = (await c.query(`SELECT count(*)::int AS n FROM audit_logs WHERE workspace_id = $1`, [ws])).rows[0].n;
    const r = await c.query(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at FROM audit_logs WHERE workspace_id = $1
        ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
      [ws, Math.floor(n / 10)],
    );
    return r.rows[0].at;
  });
}

module.exports = { runAuditExport };

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  runAuditExport({ entries: opt('entries', 1_000_000), perPage: opt('per-page', 200), port: opt('port', 3995) }).then(
    (table) => process.stdout.write(`${table}\n`),
    (e) => {
      process.stderr.write(`${e.stack || e}\n`);
      process.exit(1);
    },
  );
}
