import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { recordStatements } from '../helpers/record-statements';
import { Offender, ratchet, RoutingChecker } from '../helpers/statement-routing';
import { createTestApp, Tenant, TestApp } from '../helpers/test-app';

/**
 * Issue 25: every statement the service sends on the request path pins each tenant table it touches to one
 * workspace (a `workspace_id` equality), so a PostgreSQL distributed by workspace (Citus) routes it to one shard.
 * The statements are recorded at the driver while a broad tour of the API runs, then read by PostgreSQL's own
 * parser (test/helpers/statement-routing.ts). Statements outside requests (migrations, the admin CLI, start-up)
 * are not recorded.
 */
const CREDENTIAL_TABLES = ['apps', 'app_installations', 'oauth_tokens', 'audit_logs'];

/**
 * Exceptions: the webhook workers' maintenance (the undispatched-event sweep, pruning of old events, deliveries
 * and logs) reads across workspaces on a timer, off the request path; it runs when it runs, sometimes during the
 * tour; so does the minute's check of an instance without the job engine for any webhook work (WebhookQueue). On
 * Citus these are multi-shard statements by design (docs/scaling.md).
 */
const MAINTENANCE = [
  /^\s*DELETE FROM webhook_(events|deliveries|logs)\b[^;]*make_interval/,
  /^\s*SELECT workspace_id, id FROM webhook_events\s+WHERE dispatched_at IS NULL/,
  /^\s*SELECT \/\* pgboss: needed\? \*\/ EXISTS \(SELECT 1 FROM webhooks\)/,
];

/**
 * The statements known to miss the predicate today (issue 25 is fixing them), by PostgreSQL query fingerprint: a
 * ratchet. A statement that offends and is not listed fails the test (new code must route); a listed one that no
 * longer offends, or that the tour no longer sends, fails it too (take it out). `UPDATE_ROUTING_BASELINE=1 npx jest
 * test/e2e/statement-routing.spec.ts` rewrites the file; its diff shows what changed.
 */
const BASELINE = resolve(__dirname, 'statement-routing.baseline.json');

describe('statements route to one workspace (Citus-ready)', () => {
  let t: TestApp;
  let ten: Tenant;
  let statements: string[];
  let tenantTables: string[];

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    const member = await t.member(ten.slug, 'member');
    tenantTables = (
      await t.ds.query(
        `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
          JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'workspace_id' WHERE c.relkind = 'r'`,
      )
    )
      .map((r: { relname: string }) => r.relname)
      .filter((name: string) => !CREDENTIAL_TABLES.includes(name));
    const recorder = recordStatements(true);
    try {
      await tour(t, ten, member);
    } finally {
      statements = [...new Set(recorder.stop())];
    }
    // The tour is some 80 requests: on a loaded machine it takes longer than the default minute.
  }, 240_000);
  afterAll(() => t.close());

  it('every recorded statement pins each tenant table it reads or writes to one workspace, but the listed ones', async () => {
    const checker = await RoutingChecker.create(tenantTables);
    const byPrint = new Map<string, Offender>();
    for (const sql of statements.filter((s) => !MAINTENANCE.some((m) => m.test(s)))) {
      const problems = checker.check(sql);
      if (!problems.length) continue;
      const fingerprint = checker.fingerprint(sql);
      byPrint.set(fingerprint, { fingerprint, problems, sql: sql.replace(/\s+/g, ' ').trim().slice(0, 240) });
    }
    const offenders = [...byPrint.values()].sort((a, b) => a.fingerprint.localeCompare(b.fingerprint));
    if (process.env.UPDATE_ROUTING_BASELINE) writeFileSync(BASELINE, `${JSON.stringify(offenders, null, 2)}\n`);
    const listed: Offender[] = existsSync(BASELINE) ? JSON.parse(readFileSync(BASELINE, 'utf8')) : [];
    const { unlisted, stale } = ratchet(offenders, listed);
    expect(unlisted).toEqual([]);
    expect(stale.map((o) => o.sql)).toEqual([]);
    // The tour reached the work item paths (a recorder that saw nothing would pass vacuously).
    expect(statements.filter((s) => /work_items/.test(s)).length).toBeGreaterThan(20);
  });

  it('the check fails a statement that reads a tenant table by id alone', async () => {
    const checker = await RoutingChecker.create(tenantTables);
    expect(checker.check('SELECT name FROM work_items WHERE id = $1')).toEqual([
      'work_items (work_items) has no workspace_id equality',
    ]);
  });
});

/**
 * A tour of the API's main paths: projects, states, labels, members, estimates, work items and everything around
 * them.
 */
async function tour(t: TestApp, ten: Tenant, member: { id: string; key: string }) {
  const h = { 'X-Api-Key': ten.owner.key };
  const ws = `/api/v2/workspaces/${ten.slug}`;
  const post = (url: string, body: object) => t.http.post(url).set(h).send(body);
  const get = (url: string) => t.http.get(url).set(h);
  const patch = (url: string, body: object) => t.http.patch(url).set(h).send(body);
  const del = (url: string) => t.http.delete(url).set(h);

  const project = await ok(await post(`${ws}/projects/`, { name: 'Routing', identifier: 'ROUTE' }), 'project');
  const p = `${ws}/projects/${project.id}`;
  await ok(await get(`${ws}/projects/`), 'projects');
  await ok(await patch(`${p}/`, { description: 'tour' }), 'project patch');
  await ok(await get(`${p}/summary/`), 'summary');
  await ok(await post(`${p}/members/`, { member_id: member.id, role: 'contributor' }), 'project member');
  await ok(await get(`${p}/members/?expand=member`), 'members');
  await ok(await get(`${ws}/members/`), 'workspace members');
  await ok(await get(`${ws}/features/`), 'features');
  await ok(await patch(`${p}/features/`, { cycles: true, modules: true }), 'project features');
  const state = await ok(await post(`${p}/states/`, { name: 'Review', color: '#123456', group: 'started' }), 'state');
  await ok(await patch(`${p}/states/${state.id}/`, { name: 'In review' }), 'state patch');
  const states = (await ok(await get(`${p}/states/`), 'states')).data;
  const spare = await ok(await post(`${p}/states/`, { name: 'Spare', color: '#abcdef', group: 'backlog' }), 'state 2');
  await workflowTour(`${p}/workflows/`, states, { post, patch, del });
  const sizes = await estimateTour(`${p}/estimates/`, { post, patch, get });
  await ok(await del(`${p}/states/${spare.id}/`), 'state delete');
  const label = await ok(await post(`${p}/labels/`, { name: 'bug' }), 'label');
  await ok(await post(`${ws}/labels/`, { name: 'global' }), 'workspace label');
  await ok(await get(`${p}/labels/`), 'labels');
  await ok(await patch(`${p}/labels/${label.id}/`, { color: '#654321' }), 'label patch');
  // A member who is not a workspace admin sees the projects they are a member of.
  await ok(await t.http.get(`${ws}/projects/`).set({ 'X-Api-Key': member.key }), 'member projects');
  const items = `${p}/work-items/`;
  const a = await ok(
    await post(items, {
      name: 'First',
      label_ids: [label.id],
      assignee_ids: [member.id],
      priority: 'high',
      estimate_point_id: sizes.small,
    }),
    'item',
  );
  const b = await ok(await post(items, { name: 'Second', state_id: state.id }), 'item 2');
  await ok(await patch(`${items}${a.id}/`, { name: 'First!', state_id: states[1].id, label_ids: [] }), 'item patch');
  await ok(await patch(`${items}${a.id}/`, { estimate: '13', parent_id: b.id }), 'item estimate and parent');
  await ok(await get(`${items}${a.id}/?expand=state,labels,assignees`), 'item get');
  for (const q of [
    '',
    '?label_id=' + label.id,
    '?assignee_id=' + member.id,
    '?state_group=started',
    '?search=First',
    '?paginate=cursor&per_page=1',
    '?order_by=-priority',
    '?offset=1&per_page=1',
  ])
    await ok(await get(`${items}${q}`), `list ${q}`);
  await ok(await get(`${ws}/work-items/`), 'workspace list');
  await ok(await get(`${ws}/work-items/ROUTE-1/`), 'by identifier');
  const c = `${items}${a.id}/comments/`;
  const comment = await ok(await post(c, { comment_html: '<p>hi</p>' }), 'comment');
  await ok(await patch(`${c}${comment.id}/`, { comment_html: '<p>hello</p>' }), 'comment patch');
  await ok(await get(`${c}?expand=actor`), 'comments');
  const link = await ok(await post(`${items}${a.id}/links/`, { url: 'https://example.com/x' }), 'link');
  await ok(await get(`${items}${a.id}/links/`), 'links');
  await ok(await del(`${items}${a.id}/links/${link.id}/`), 'link delete');
  const defs = (await ok(await get(`${ws}/work-item-relation-definitions/`), 'relation definitions')).data;
  const blocks = defs.find((d: { outward: string }) => d.outward === 'blocks');
  const relation = { relation_definition_id: blocks.id, direction: 'blocks', work_item_ids: [b.id] };
  await ok(await post(`${items}${a.id}/relations/`, relation), 'relation');
  await ok(await get(`${items}${a.id}/relations/`), 'relations');
  await ok(await get(`${items}${a.id}/activities/?expand=actor`), 'activities');
  const cycle = await ok(await post(`${p}/cycles/`, { name: 'Sprint' }), 'cycle');
  await ok(await post(`${p}/cycles/${cycle.id}/work-items/`, { add: [a.id] }), 'cycle items');
  await ok(await get(`${items}?cycle_id=${cycle.id}`), 'list by cycle');
  const mod = await ok(await post(`${p}/modules/`, { name: 'Module' }), 'module');
  await ok(await post(`${p}/modules/${mod.id}/work-items/`, { add: [a.id, b.id] }), 'module items');
  await ok(await get(`${items}?module_id=${mod.id}`), 'list by module');
  const bulk = await ok(await post(`${items}bulk-create/`, { items: [{ name: 'B1' }, { name: 'B2' }] }), 'bulk');
  const ids = bulk.results.map((r: { id: string }) => r.id);
  await ok(
    await post(`${items}bulk-update/`, { items: ids.map((id: string) => ({ id, priority: 'low' })) }),
    'bulk update',
  );
  await ok(await post(`${items}bulk-delete/`, { ids }), 'bulk delete');
  await ok(await post(`${items}${b.id}/archive/`, {}), 'archive');
  await ok(await post(`${items}${b.id}/unarchive/`, {}), 'unarchive');
  await ok(await del(`${p}/estimates/${sizes.id}/points/${sizes.large}/`), 'estimate point delete');
  await ok(await del(`${p}/estimates/${sizes.id}/`), 'estimate delete');
  await ok(await del(`${c}${comment.id}/`), 'comment delete');
  await ok(await del(`${items}${a.id}/`), 'item delete');
  await ok(await del(`${p}/labels/${label.id}/`), 'label delete');
}

type Res = { status: number; body: any };
type Send = (url: string, body: object) => Promise<Res>;

/** The body of a 2xx answer; anything else stops the tour with the answer. */
async function ok(res: Res, what: string) {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Estimates with their points: creates (the first is activated), point creates and a PATCH, the type made numeric
 * (its points' values checked), activation moved and undone, the list with points. Returns the active estimate.
 */
async function estimateTour(base: string, h: { post: Send; patch: Send; get: (url: string) => Promise<Res> }) {
  const e = await ok(await h.post(base, { name: 'Sizes' }), 'estimate');
  const points = `${base}${e.id}/points/`;
  const small = await ok(await h.post(points, { value: '1' }), 'estimate point');
  const large = await ok(await h.post(points, { value: '8', key: 5 }), 'estimate point 2');
  await ok(await h.patch(`${points}${large.id}/`, { value: '13' }), 'estimate point patch');
  await ok(await h.patch(`${base}${e.id}/`, { name: 'Points', type: 'points' }), 'estimate patch');
  const spare = await ok(await h.post(base, { name: 'Spare', is_active: false }), 'estimate 2');
  await ok(await h.patch(`${base}${spare.id}/`, { is_active: true }), 'estimate activation');
  await ok(await h.patch(`${base}${spare.id}/`, { is_active: false }), 'estimate deactivation');
  await ok(await h.patch(`${base}${e.id}/`, { is_active: true }), 'estimate reactivation');
  await ok(await h.get(`${base}?expand=points`), 'estimates');
  await ok(await h.get(`${points}${small.id}/`), 'estimate point');
  return { id: e.id as string, small: small.id as string, large: large.id as string };
}

/** Workflows with their states and transitions, written, changed and removed (the feature stays off). */
async function workflowTour(
  base: string,
  states: Array<{ id: string }>,
  h: { post: Send; patch: Send; del: (url: string) => Promise<Res> },
) {
  const wf = await ok(await h.post(base, { name: 'Flow', is_active: true }), 'workflow');
  await ok(await h.patch(`${base}${wf.id}/`, { name: 'Flow 2', is_default: true }), 'workflow patch');
  const ws = `${base}${wf.id}/states/`;
  const a = await ok(await h.post(ws, { state_id: states[0].id }), 'workflow state');
  const b = await ok(await h.post(ws, { state_id: states[1].id }), 'workflow state 2');
  await ok(await h.patch(`${ws}${a.id}/`, { allow_issue_creation: false, is_default: true }), 'workflow state patch');
  const tr = `${base}${wf.id}/state-transitions/`;
  const t = await ok(await h.post(tr, { workflow_state_id: a.id, transition_state_id: states[1].id }), 'transition');
  await ok(await h.patch(`${tr}${t.id}/`, { member_ids: [] }), 'transition patch');
  await ok(await h.del(`${tr}${t.id}/`), 'transition delete');
  await ok(await h.del(`${ws}${b.id}/`), 'workflow state delete');
  await ok(await h.del(`${base}${wf.id}/`), 'workflow delete');
}
