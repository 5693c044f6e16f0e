'use strict';
// The ceiling of the benchmark: bare Fastify + pg, no framework, no auth, serving the same SQL the
// service runs for list page 1 (rows with their id arrays, and the total count, in parallel).
// It authenticates nothing and resolves no workspace or project: that is the framework's share. Like the
// service (src/common/database/statement-cache.ts), it runs both as named prepared statements.
const Fastify = require('fastify');
const { Pool } = require('pg');

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE || 10) });
const WS = process.env.BENCH_WORKSPACE_ID;
const PROJECT = process.env.BENCH_PROJECT_ID;
const IDENT = process.env.BENCH_IDENTIFIER;

const LIST_SQL = `SELECT page.*,
  ARRAY(SELECT a.assignee_id FROM work_item_assignees a WHERE a.work_item_id = page.id ORDER BY a.assignee_id) AS assignee_ids,
  ARRAY(SELECT l.label_id FROM work_item_labels l WHERE l.work_item_id = page.id ORDER BY l.label_id) AS label_ids
  FROM (SELECT w.id, w.name, w.sequence_id, w.priority, w.state_id, w.type_id, w.parent_id,
               to_char(w.start_date, 'YYYY-MM-DD') AS start_date, to_char(w.target_date, 'YYYY-MM-DD') AS target_date,
               w.is_draft, w.archived_at, w.created_at, w.created_by_id
          FROM work_items w
         WHERE w.workspace_id = $1 AND w.project_id = $2 AND w.deleted_at IS NULL AND w.archived_at IS NULL
         ORDER BY w.created_at DESC, w.id DESC LIMIT 51) page`;
// The unfiltered total, read as the service reads it: the trigger-maintained live-row counter.
const COUNT_SQL = `SELECT coalesce(sum(n), 0)::int AS c FROM project_work_item_counts WHERE project_id = $2 AND workspace_id = $1`;

const app = Fastify({ logger: false });
app.get('/list', async () => {
  const [rows, count] = await Promise.all([
    pool.query({ name: 'bare_list', text: LIST_SQL, values: [WS, PROJECT] }),
    pool.query({ name: 'bare_count', text: COUNT_SQL, values: [WS, PROJECT] }),
  ]);
  const data = rows.rows.slice(0, 50).map((r) => ({
    id: r.id, name: r.name, identifier: `${IDENT}-${r.sequence_id}`, sequence_id: r.sequence_id, priority: r.priority,
    state_id: r.state_id, type_id: r.type_id, assignee_ids: r.assignee_ids, label_ids: r.label_ids, parent_id: r.parent_id,
    start_date: r.start_date, target_date: r.target_date, is_draft: r.is_draft,
    archived_at: r.archived_at ? r.archived_at.toISOString() : null, created_at: r.created_at.toISOString(),
    created_by_id: r.created_by_id, custom_fields: null,
  }));
  return { data, next: rows.rows.length > 50 ? 50 : null, previous: null, total_count: count.rows[0].c, pagination: { style: 'offset' } };
});
app.listen({ port: Number(process.env.PORT || 3998), host: '127.0.0.1' }).then(() => process.send && process.send('ready'));
