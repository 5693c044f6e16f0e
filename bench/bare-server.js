'use strict';
// The ceiling of the benchmark: bare Fastify + pg, no framework, no auth, serving the same SQL the
// service runs for list page 1 (rows with their id arrays and the total count, one statement).
// It authenticates nothing and resolves no workspace or project: that is the framework's share. Like the
// service (src/common/database/statement-cache.ts), it runs it as a named prepared statement.
const Fastify = require('fastify');
const { Pool } = require('pg');

// The service's session settings too (src/common/database/data-source.ts): no parallel query.
const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DB_POOL_SIZE || 10),
  options: '-c max_parallel_workers_per_gather=0',
});
const WS = process.env.BENCH_WORKSPACE_ID;
const PROJECT = process.env.BENCH_PROJECT_ID;
const IDENT = process.env.BENCH_IDENTIFIER;

// The statement the service runs for list page 1 (src/work-items/work-items.repository.ts with runList): the
// page with its id arrays, and the trigger-maintained live-row counter read by the same statement. The tenant
// scope is bound as one-row subqueries, as the service binds it, so both keep the same cached generic plan.
const LIST_SQL = `SELECT page.*,
  ARRAY(SELECT a.assignee_id FROM work_item_assignees a WHERE a.work_item_id = page.id ORDER BY a.assignee_id) AS assignee_ids,
  ARRAY(SELECT l.label_id FROM work_item_labels l WHERE l.work_item_id = page.id ORDER BY l.label_id) AS label_ids,
  (SELECT c FROM (SELECT coalesce(sum(n), 0)::int AS c FROM project_work_item_counts WHERE project_id = $2 AND workspace_id = $1) total) AS "__total"
  FROM (SELECT w.id, w.name, w.sequence_id, w.priority, w.state_id, w.type_id, w.parent_id,
               to_char(w.start_date, 'YYYY-MM-DD') AS start_date, to_char(w.target_date, 'YYYY-MM-DD') AS target_date,
               w.is_draft, w.archived_at, w.created_at, w.created_by_id
          FROM work_items w
         WHERE w.workspace_id = (SELECT $1::uuid) AND w.project_id = (SELECT $2::uuid) AND w.deleted_at IS NULL AND w.archived_at IS NULL
         ORDER BY w.created_at DESC, w.id DESC LIMIT 51) page`;

const app = Fastify({ logger: false });
app.get('/list', async () => {
  const { rows } = await pool.query({ name: 'bare_list', text: LIST_SQL, values: [WS, PROJECT] });
  const data = rows.slice(0, 50).map((r) => ({
    id: r.id,
    name: r.name,
    identifier: `${IDENT}-${r.sequence_id}`,
    sequence_id: r.sequence_id,
    priority: r.priority,
    state_id: r.state_id,
    type_id: r.type_id,
    assignee_ids: r.assignee_ids,
    label_ids: r.label_ids,
    parent_id: r.parent_id,
    start_date: r.start_date,
    target_date: r.target_date,
    is_draft: r.is_draft,
    archived_at: r.archived_at ? r.archived_at.toISOString() : null,
    created_at: r.created_at.toISOString(),
    created_by_id: r.created_by_id,
    custom_fields: null,
  }));
  return {
    data,
    next: rows.length > 50 ? 50 : null,
    previous: null,
    total_count: rows.length ? rows[0].__total : 0,
    pagination: { style: 'offset' },
  };
});
app
  .listen({ port: Number(process.env.PORT || 3998), host: '127.0.0.1' })
  .then(() => process.send && process.send('ready'));
