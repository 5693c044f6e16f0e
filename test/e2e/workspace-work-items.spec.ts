import { SEARCH_WALK } from '../../src/work-items/work-items.repository';
import { statementsWithValuesOf } from '../helpers/record-statements';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

/** The names of every item `list` answers for `query` (a query string), read in cursor pages of `perPage`. */
async function cursorNames(
  list: (query: string) => PromiseLike<{ body: { data: Array<{ name: string }>; next_cursor: string | null } }>,
  query: string,
  perPage: number,
): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await list(`${query}&paginate=cursor&per_page=${perPage}${cursor ? `&cursor=${cursor}` : ''}`);
    seen.push(...res.body.data.map((w) => w.name));
    cursor = res.body.next_cursor;
  } while (cursor);
  return seen;
}

type PlanNode = {
  'Relation Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
};

/** Every node of `statement`'s plan, run with its values when `analyze` (EXPLAIN ... FORMAT JSON). */
async function planNodes(t: TestApp, statement: { text: string; values: unknown[] }, analyze = false) {
  const [row] = await t.ds.query(
    `EXPLAIN (${analyze ? 'ANALYZE, ' : ''}FORMAT JSON) ${statement.text}`,
    statement.values,
  );
  const nodes: PlanNode[] = [];
  const visit = (n: PlanNode) => {
    nodes.push(n);
    for (const c of n.Plans ?? []) visit(c);
  };
  visit(row['QUERY PLAN'][0].Plan);
  return nodes;
}

/** `statements`, each EXPLAINed with its values: the rows their scans of work_items passed (returned and removed). */
async function workItemRowsPassed(t: TestApp, statements: Array<{ text: string; values: unknown[] }>) {
  let passed = 0;
  for (const s of statements)
    for (const n of await planNodes(t, s, true))
      if (n['Relation Name'] === 'work_items')
        passed += n['Actual Rows']! * n['Actual Loops']! + (n['Rows Removed by Filter'] ?? 0);
  return passed;
}

/** GET /workspaces/{slug}/work-items/ (issue 19): every readable project's items, the work item list's rules. */
describe('workspace-wide work item list', () => {
  let t: TestApp;
  let ten: Tenant;
  let other: Tenant;
  let pa: { id: string; identifier: string };
  let pb: { id: string; identifier: string };
  let member: { id: string; key: string };
  let guest: { id: string; key: string };
  const list = (query = '', k = ten.owner.key, slug = ten.slug) =>
    t.http.get(`/api/v2/workspaces/${slug}/work-items/${query}`).set({ 'X-Api-Key': k });
  const create = async (p: string, body: Record<string, unknown>, slug = ten.slug, k = ten.owner.key) => {
    const r = await t.http
      .post(`/api/v2/workspaces/${slug}/projects/${p}/work-items/`)
      .set({ 'X-Api-Key': k })
      .send(body);
    expect(r.status).toBe(201);
    return r.body as { id: string; identifier: string };
  };
  const addToProject = async (p: string, userId: string, role: string) => {
    const r = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${p}/members/`)
      .set({ 'X-Api-Key': ten.owner.key })
      .send({ member_id: userId, role });
    expect(r.status).toBe(201);
  };

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    other = await t.tenant();
    pa = await t.project(ten.slug, ten.owner.key, { identifier: 'WSA' });
    pb = await t.project(ten.slug, ten.owner.key, { identifier: 'WSB' });
    member = await t.member(ten.slug, 'member');
    guest = await t.member(ten.slug, 'member');
    await addToProject(pa.id, member.id, 'contributor');
    // A project guest cannot read work items: pb's items stay out of the guest's list.
    await addToProject(pa.id, guest.id, 'commenter');
    await addToProject(pb.id, guest.id, 'guest');
    for (let i = 0; i < 3; i++) await create(pa.id, { name: `a${i}`, priority: i === 0 ? 'high' : 'low' });
    for (let i = 0; i < 2; i++) await create(pb.id, { name: `b${i}`, priority: 'high' });
    const po = await t.project(other.slug, other.owner.key, { identifier: 'OTH' });
    await create(po.id, { name: 'foreign' }, other.slug, other.owner.key);
  });
  afterAll(() => t.close());

  it('lists the items of every project the owner can read, newest first, with project_id and identifier', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.total_count).toBe(5);
    expect(res.body.data.map((w: any) => w.name)).toEqual(['b1', 'b0', 'a2', 'a1', 'a0']);
    const b1 = res.body.data[0];
    expect(b1.project_id).toBe(pb.id);
    expect(b1.identifier).toMatch(/^WSB-\d+$/);
    expect(b1).toMatchObject({ cycle_id: null, module_ids: [], custom_fields: null });
  });

  it('priorities and ranged filters keep their condition in a list read per project', async () => {
    // project_id names part of the projects: the page is read one range per project (projectRanges), and a filter
    // the created_at ordering reads by range (OrderDef.rangedBy) must still hold in each of those ranges.
    const names = (r: { body: { data: Array<{ name: string }> } }) => r.body.data.map((w) => w.name);
    const high = await list(`?project_id=${pa.id}&priority__in=high,urgent`);
    expect({ names: names(high), total: high.body.total_count }).toEqual({ names: ['a0'], total: 1 });
    const one = await list(`?project_id__in=${pa.id},${pb.id}&priority=low`);
    expect({ names: names(one), total: one.body.total_count }).toEqual({ names: ['a2', 'a1'], total: 2 });
    // Every project, one or several priorities: one range per (project, priority).
    const all = await list(`?priority=high`);
    expect({ names: names(all), total: all.body.total_count }).toEqual({ names: ['b1', 'b0', 'a0'], total: 3 });
    const two = await list(`?priority__in=low,high&per_page=3`);
    expect({ names: names(two), total: two.body.total_count }).toEqual({ names: ['b1', 'b0', 'a2'], total: 5 });
    const next = await list(`?priority__in=low,high&per_page=3&offset=3`);
    expect(names(next)).toEqual(['a1', 'a0']);
    // Every element is an enum value, checked before any range is built.
    for (const q of ['priority=critical', 'priority__in=high,critical']) {
      const b = expectProblem(await list(`?${q}`), 400, 'validation_error');
      expect(b.errors[0].field).toBe(q.split('=')[0]);
    }
    const items = await t.ds.query(`SELECT name, state_id FROM work_items WHERE project_id = $1`, [pa.id]);
    const state = items.find((i: { name: string }) => i.name === 'a1').state_id as string;
    const states = await t.ds.query(`SELECT id FROM states WHERE project_id = $1 AND id <> $2 LIMIT 1`, [pa.id, state]);
    const byState = await list(`?project_id=${pa.id}&state_id__in=${state},${states[0].id}`);
    const want = items.filter((i: { state_id: string }) => i.state_id === state || i.state_id === states[0].id);
    expect(byState.body.total_count).toBe(want.length);
    expect(names(byState).sort()).toEqual(want.map((i: { name: string }) => i.name).sort());
  });

  it('a member sees only the projects they read; a project guest none of that project', async () => {
    const m = await list('', member.key);
    expect(m.body.data.map((w: any) => w.project_id)).toEqual([pa.id, pa.id, pa.id]);
    expect(m.body.total_count).toBe(3);
    const g = await list('', guest.key);
    expect(g.body.data.every((w: any) => w.project_id === pa.id)).toBe(true);
    expect(g.body.total_count).toBe(3);
  });

  it('project_id and project_id__in narrow the list; a project the caller cannot read adds nothing', async () => {
    expect((await list(`?project_id=${pb.id}`)).body.total_count).toBe(2);
    expect((await list(`?project_id__in=${pa.id},${pb.id}`)).body.total_count).toBe(5);
    const narrowed = await list(`?project_id=${pb.id}`, member.key);
    expect(narrowed.body).toMatchObject({ data: [], total_count: 0 });
    expectProblem(await list('?project_id=nope'), 400, 'validation_error');
    // The link filters that now read the link rows refuse a malformed id as before.
    expectProblem(await list('?assignee_id=nope'), 400, 'validation_error');
    expectProblem(await list('?label_id__in=nope'), 400, 'validation_error');
  });

  it("applies the work item list's filters with exact totals", async () => {
    const high = await list('?priority=high');
    expect(high.body.total_count).toBe(3);
    expect(high.body.data.map((w: any) => w.name).sort()).toEqual(['a0', 'b0', 'b1']);
    const both = await list(`?priority=high&project_id=${pa.id}`);
    expect(both.body.data.map((w: any) => w.name)).toEqual(['a0']);
    const searched = await list('?search=b');
    expect(searched.body.total_count).toBe(2);
  });

  it('pages with cursors (created_at and updated_at) and with offsets', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(`?paginate=cursor&per_page=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((w: any) => w.name));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['b1', 'b0', 'a2', 'a1', 'a0']);
    const upd = await list('?paginate=cursor&order_by=updated_at&per_page=10');
    expect(upd.body.data.map((w: any) => w.name)).toEqual(['a0', 'a1', 'a2', 'b0', 'b1']);
    const page2 = await list('?per_page=2&offset=2');
    expect(page2.body.data.map((w: any) => w.name)).toEqual(['a2', 'a1']);
    expect(page2.body.next).toBe(4);
  });

  it('fields and expand work as on the project list', async () => {
    const res = await list('?fields=id,project_id,cycle_id,module_ids&expand=state&per_page=1');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(['cycle_id', 'id', 'module_ids', 'project_id', 'state']);
    expect(res.body.data[0].state).toMatchObject({ group: 'backlog' });
    // Items of several projects: each row has its own project's state and labels, in its ids' order.
    const all = await list('?expand=state,labels,assignees&per_page=50');
    expect(new Set(all.body.data.map((w: any) => w.project_id)).size).toBeGreaterThan(1);
    for (const w of all.body.data) {
      expect(w.state).toMatchObject({ id: w.state_id });
      expect(w.labels.map((l: any) => l.id)).toEqual(w.label_ids);
      expect(w.assignees.map((u: any) => u.id)).toEqual(w.assignee_ids);
    }
  });

  it('archived work items leave it; another workspace never shows', async () => {
    const w = await create(pa.id, { name: 'to archive' });
    expect((await list()).body.total_count).toBe(6);
    await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${pa.id}/work-items/${w.id}/archive/`)
      .set({ 'X-Api-Key': ten.owner.key })
      .expect(200);
    expect((await list()).body.total_count).toBe(5);
    const foreign = await list('', other.owner.key, other.slug);
    expect(foreign.body.data.map((x: any) => x.name)).toEqual(['foreign']);
    expectProblem(await list('', other.owner.key), 404, 'resource_not_found');
  });

  it('needs the work item read scope', async () => {
    const tok = await t.token(ten.owner.email, ['projects:read']);
    const res = await t.http.get(`/api/v2/workspaces/${ten.slug}/work-items/`).set('Authorization', `Bearer ${tok}`);
    expectProblem(res, 403, 'forbidden');
  });

  it('one assignee or label: read off the link rows of every readable project, in order, with exact totals', async () => {
    const lp = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/labels/`)
      .set({ 'X-Api-Key': ten.owner.key })
      .send({ name: 'across projects' });
    expect(lp.status).toBe(201);
    const label = lp.body.id as string;
    const second = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/labels/`)
      .set({ 'X-Api-Key': ten.owner.key })
      .send({ name: 'also across projects' });
    expect(second.status).toBe(201);
    const me = ten.owner.id;
    const links = { assignee_ids: [me], label_ids: [label] };
    // Across the two projects, newest last; one archived, one of another assignee (a member of pa), one high priority.
    // Last in this file: the items it makes would change the totals the tests above expect.
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      const p = i % 2 && i !== 3 ? pb.id : pa.id;
      const body = i === 3 ? { assignee_ids: [member.id] } : { ...links, priority: i === 4 ? 'high' : 'low' };
      // l0 and l1 carry both labels: a list of either label holds them once.
      if (i < 2) Object.assign(body, { label_ids: [label, second.body.id] });
      made.push((await create(p, { name: `l${i}`, ...body })).id);
    }
    const archived = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${pa.id}/work-items/${made[6]}/archive/`)
      .set({ 'X-Api-Key': ten.owner.key });
    expect(archived.status).toBe(200);
    const want = ['l5', 'l4', 'l2', 'l1', 'l0'];
    const names = (r: any) => r.body.data.map((w: any) => w.name);
    const either = `label_id__in=${label},${second.body.id}`;
    for (const q of [`assignee_id=${me}`, `label_id=${label}`, `label_id__in=${label}`, either]) {
      const all = await list(`?${q}`);
      expect({ q, names: names(all), total: all.body.total_count }).toEqual({ q, names: want, total: 5 });
      expect({ q, seen: await cursorNames((query) => list(query), `?${q}`, 2) }).toEqual({ q, seen: want });
      expect({ q, offset: names(await list(`?${q}&per_page=2&offset=2`)) }).toEqual({ q, offset: ['l2', 'l1'] });
    }
    // Several ids: one range per (project, id); an item of two of them once, in the page and in the total.
    const two = await list(`?assignee_id__in=${me},${member.id}`);
    expect({ names: names(two), total: two.body.total_count }).toEqual({
      names: ['l5', 'l4', 'l3', 'l2', 'l1', 'l0'],
      total: 6,
    });
    const bothHigh = await list(`?${either}&priority=low&per_page=1&offset=3`);
    expect({ names: names(bothHigh), total: bothHigh.body.total_count }).toEqual({ names: ['l0'], total: 4 });
    // Another filter beside it is checked on each link row's item; the total counts the same rows.
    const high = await list(`?label_id=${label}&priority=high`);
    expect({ names: names(high), total: high.body.total_count }).toEqual({ names: ['l4'], total: 1 });
    // Only the readable projects' links: the member reads pa alone.
    const m = await list(`?assignee_id=${me}`, member.key);
    expect({ names: names(m), total: m.body.total_count }).toEqual({ names: ['l4', 'l2', 'l0'], total: 3 });
    const narrowed = await list(`?label_id=${label}&project_id=${pb.id}`);
    expect({ names: names(narrowed), total: narrowed.body.total_count }).toEqual({ names: ['l5', 'l1'], total: 2 });
    // updated_at order is read the other way (the workspace index, probing the link); same rows.
    const upd = await list(`?assignee_id=${me}&order_by=-updated_at`);
    expect(names(upd).sort()).toEqual([...want].sort());
  });
});

/**
 * The page read one range per readable project: for a member who reads a small project beside a large one, and for a
 * state group rare among the newest items, a walk of the workspace's items passed every newer item of the others.
 */
describe('workspace-wide work item list read by project', () => {
  let t: TestApp;
  let ten: Tenant;
  let small: { id: string };
  let reader: { id: string; key: string };
  const BIG = 3000;
  const list = (query: string, k = ten.owner.key) =>
    t.http.get(`/api/v2/workspaces/${ten.slug}/work-items/${query}`).set({ 'X-Api-Key': k });
  const names = (r: { body: { data: Array<{ name: string }> } }) => r.body.data.map((w) => w.name);

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    small = await t.project(ten.slug, ten.owner.key, { identifier: 'SML' });
    const big = await t.project(ten.slug, ten.owner.key, { identifier: 'BIG' });
    reader = await t.member(ten.slug, 'member');
    const add = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${small.id}/members/`)
      .set({ 'X-Api-Key': ten.owner.key })
      .send({ member_id: reader.id, role: 'contributor' });
    expect(add.status).toBe(201);
    // The small project's items first (the oldest), two of them started; then the large project's, all in backlog.
    const post = (p: string, path: string, body: object) =>
      t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${p}/work-items/${path}`)
        .set({ 'X-Api-Key': ten.owner.key })
        .send(body);
    for (let i = 0; i < 4; i++)
      expect((await post(small.id, '', { name: `s${i}`, state: i % 2 ? 'In Progress' : 'Todo' })).status).toBe(201);
    for (let i = 0; i < BIG; i += 50) {
      // Every third item the owner's (an assignee filter the walk serves); the reader is on two small items only.
      const items = Array.from({ length: 50 }, (_, k) => ({
        name: `b${i + k}`,
        ...((i + k) % 3 ? {} : { assignee_ids: [ten.owner.id] }),
      }));
      expect((await post(big.id, 'bulk-create/', { items })).status).toBe(200);
    }
    // As autovacuum leaves a table after a bulk import (never analyzed, PostgreSQL's guesses for 3,000 rows pick any
    // index; docs/operations.md says what the service needs from autovacuum).
    await t.ds.query('VACUUM ANALYZE work_items');
  });
  afterAll(() => t.close());

  /** The statements whose text `wanted` accepts, as the service sent them while serving `query`. */
  async function sentWhile(query: string, wanted: (text: string) => boolean, k = ten.owner.key) {
    const sent = await statementsWithValuesOf(async () => expect((await list(query, k)).status).toBe(200), wanted);
    expect(sent.length).toBeGreaterThan(0);
    return sent;
  }

  /** The list's page statements while `query` is served: the rows their scans of work_items passed. */
  const scanned = async (query: string, k = ten.owner.key): Promise<number> =>
    workItemRowsPassed(t, await sentWhile(query, (text) => /FROM work_items w/.test(text) && /LIMIT/.test(text), k));

  it('a member reading the small project: its items, in order, with cursors and offsets, the others never walked', async () => {
    const all = await list('?per_page=10', reader.key);
    expect({ names: names(all), total: all.body.total_count }).toEqual({ names: ['s3', 's2', 's1', 's0'], total: 4 });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(`?paginate=cursor&per_page=1${cursor ? `&cursor=${cursor}` : ''}`, reader.key);
      seen.push(...names(res));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['s3', 's2', 's1', 's0']);
    expect(names(await list('?per_page=1&offset=2', reader.key))).toEqual(['s1']);
    // The owner naming the small project with project_id is read the same way.
    expect(names(await list(`?project_id=${small.id}&per_page=2&offset=1`))).toEqual(['s2', 's1']);
    // Most recently updated first: read off each project's updated_at range alike.
    const byUpdate: string[] = [];
    cursor = null;
    do {
      const q = `?order_by=-updated_at&paginate=cursor&per_page=3${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await list(q, reader.key);
      byUpdate.push(...names(res));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(byUpdate).toEqual(['s3', 's2', 's1', 's0']);
    expect(names(await list('?order_by=-updated_at&per_page=1&offset=3', reader.key))).toEqual(['s0']);
    // A walk of the workspace's items would pass the large project's 3,000 newer ones first.
    expect(await scanned('?per_page=2', reader.key)).toBeLessThan(20);
  });

  it('a state group rare among the newest items: its items across projects, pages and totals exact', async () => {
    const started = await list('?state_group=started');
    expect({ names: names(started), total: started.body.total_count }).toEqual({ names: ['s3', 's1'], total: 2 });
    expect(names(await list('?state_group=started&per_page=1&offset=1'))).toEqual(['s1']);
    const cur = await list('?state_group=started&paginate=cursor&per_page=1');
    expect(names(await list(`?state_group=started&paginate=cursor&per_page=1&cursor=${cur.body.next_cursor}`))).toEqual(
      ['s1'],
    );
    // Several groups: one range per (project, group), merged in created_at order.
    const two = await list('?state_group__in=started,unstarted&per_page=3');
    expect({ names: names(two), total: two.body.total_count }).toEqual({ names: ['s3', 's2', 's1'], total: 4 });
    // Items of one bulk-create share their created_at (ties go by id): the whole list is the reference.
    const whole = await list('?state_group__in=unstarted,backlog&per_page=100&offset=2950');
    expect({ total: whole.body.total_count, last: names(whole).slice(-2) }).toEqual({
      total: BIG + 2,
      last: ['s2', 's0'],
    });
    expect(names(await list(`?state_group__in=unstarted,backlog&per_page=2&offset=${BIG - 1}`))).toEqual(
      names(whole).slice(BIG - 1 - 2950, BIG + 1 - 2950),
    );
    expect(await scanned('?state_group=started&per_page=2')).toBeLessThan(20);
    expect(await scanned('?state_group__in=started,unstarted&per_page=2')).toBeLessThan(20);
  });

  it('an assignee in updated_at order: walked when common, else off their links; pages and totals exact', async () => {
    for (const name of ['s0', 's2']) {
      const [item] = await t.ds.query(`SELECT id, project_id FROM work_items WHERE workspace_id = $1 AND name = $2`, [
        ten.workspaceId,
        name,
      ]);
      const r = await t.http
        .patch(`/api/v2/workspaces/${ten.slug}/projects/${item.project_id}/work-items/${item.id}/`)
        .set({ 'X-Api-Key': ten.owner.key })
        .send({ assignee_ids: [reader.id] });
      expect(r.status).toBe(200);
    }
    const oracle = async (assignees: string[]) =>
      (
        await t.ds.query(
          `SELECT w.name FROM work_items w WHERE w.workspace_id = $1 AND w.deleted_at IS NULL AND w.archived_at IS NULL
              AND EXISTS (SELECT 1 FROM work_item_assignees a WHERE a.work_item_id = w.id AND a.assignee_id = ANY($2::uuid[]))
            ORDER BY w.updated_at DESC, w.id DESC`,
          [ten.workspaceId, assignees],
        )
      ).map((r: { name: string }) => r.name);
    const rare = `assignee_id=${reader.id}&order_by=-updated_at`;
    const both = `assignee_id__in=${reader.id},${ten.owner.id}&order_by=-updated_at`;
    for (const [query, assignees] of [
      [rare, [reader.id]],
      [both, [reader.id, ten.owner.id]],
    ] as const) {
      const all = await oracle([...assignees]);
      for (const offset of [0, 1, 600]) {
        const res = await list(`?${query}&per_page=50&offset=${offset}`);
        expect({ query, offset, names: names(res), total: res.body.total_count }).toEqual({
          query,
          offset,
          names: all.slice(offset, offset + 50),
          total: all.length,
        });
      }
      expect(await cursorNames((q) => list(q), `?${query}`, 200)).toEqual(all);
    }
    expect(await oracle([reader.id])).toEqual(['s2', 's0']);
    // The rare assignee's page: a short walk (SEARCH_WALK rows), then their two items. The walk alone passed every item
    // of the workspace (3,004 here; at a million items 4-6 s).
    expect(await scanned(`?${rare}&per_page=2`)).toBeLessThan(SEARCH_WALK + 20);
  });

  it('the total of several assignees counts each item once across projects', async () => {
    // Its plan (one range per project and id, merged: nothing hashed or sorted) is checked in work-item-plans.spec,
    // whose link tables autovacuum leaves alone; here autovacuum may analyze them at any moment.
    const query = `?assignee_id__in=${ten.owner.id},${reader.id}&per_page=2`;
    const [want] = await t.ds.query(
      `SELECT count(DISTINCT a.work_item_id)::int AS n FROM work_item_assignees a JOIN work_items w ON w.id = a.work_item_id
        WHERE w.workspace_id = $1 AND w.deleted_at IS NULL AND w.archived_at IS NULL AND a.assignee_id = ANY($2::uuid[])`,
      [ten.workspaceId, [ten.owner.id, reader.id]],
    );
    expect(want.n).toBeGreaterThan(BIG / 3 - 1);
    expect((await list(query)).body.total_count).toBe(want.n);
  });

  it('an assignee with a priority or state group: read off the link rows, bounded where none of their items meets it', async () => {
    const owner = ten.owner.id;
    // The large project's items are all of priority none and in backlog: the owner's 1,000 links meet none of these.
    for (const q of [
      `priority=urgent`,
      `priority__in=urgent,high`,
      `state_group=completed`,
      `state_group__in=started,completed`,
    ]) {
      const res = await list(`?assignee_id=${owner}&${q}&per_page=2`);
      expect({ q, names: names(res), total: res.body.total_count }).toEqual({ q, names: [], total: 0 });
      // Walking the owner's links probing each item passed all 1,000 of them.
      expect({ q, passed: await scanned(`?assignee_id=${owner}&${q}&per_page=2`) }).toEqual({ q, passed: 0 });
    }
    const oracle = async (cond: string) =>
      (
        await t.ds.query(
          `SELECT w.name FROM work_items w WHERE w.workspace_id = $1 AND w.deleted_at IS NULL AND w.archived_at IS NULL
              AND EXISTS (SELECT 1 FROM work_item_assignees a WHERE a.work_item_id = w.id AND a.assignee_id = $2) AND ${cond}
            ORDER BY w.created_at DESC, w.id DESC`,
          [ten.workspaceId, owner],
        )
      ).map((r: { name: string }) => r.name);
    for (const [q, cond] of [
      ['priority__in=none,urgent', `w.priority IN ('none', 'urgent')`],
      ['state_group__in=backlog,started', `w.state_group_rank IN (0, 2)`],
      ['priority=none&state_group=backlog', `w.priority = 'none' AND w.state_group_rank = 0`],
    ]) {
      const all = await oracle(cond);
      expect(all.length).toBeGreaterThan(100);
      for (const offset of [0, 40, all.length - 3]) {
        const res = await list(`?assignee_id=${owner}&${q}&per_page=50&offset=${offset}`);
        expect({ q, offset, names: names(res), total: res.body.total_count }).toEqual({
          q,
          offset,
          names: all.slice(offset, offset + 50),
          total: all.length,
        });
      }
    }
  });
});

describe('workspace-wide work item list over many projects', () => {
  let t: TestApp;
  let ten: Tenant;
  const PROJECTS = 60;
  const ITEMS = 50;
  const projects: string[] = [];
  const list = (query: string) =>
    t.http.get(`/api/v2/workspaces/${ten.slug}/work-items/${query}`).set({ 'X-Api-Key': ten.owner.key });

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    // Each project with its own states and ITEMS items, alternately to do and started; every fifth high, every
    // seventh other urgent.
    for (let i = 0; i < PROJECTS; i++) {
      const p = await t.project(ten.slug, ten.owner.key);
      projects.push(p.id);
      const items = Array.from({ length: ITEMS }, (_, k) => ({
        name: `p${i} #${k}`,
        state: k % 2 ? 'In Progress' : 'Todo',
        priority: k % 5 === 0 ? 'high' : k % 7 === 0 ? 'urgent' : 'none',
      }));
      const res = await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${p.id}/work-items/bulk-create/`)
        .set({ 'X-Api-Key': ten.owner.key })
        .send({ items });
      expect(res.status).toBe(200);
    }
    for (const table of ['work_items', 'work_item_state_priority_counts', 'states'])
      await t.ds.query(`VACUUM ANALYZE ${table}`);
  });
  afterAll(() => t.close());

  /** The names of the workspace's live items meeting `cond` (on `w`, and its state `s`), newest first. */
  const oracle = async (cond: string): Promise<string[]> =>
    (
      await t.ds.query(
        `SELECT w.name FROM work_items w JOIN states s ON s.id = w.state_id
          WHERE w.workspace_id = $1 AND w.deleted_at IS NULL AND w.archived_at IS NULL AND ${cond}
          ORDER BY w.created_at DESC, w.id DESC`,
        [ten.workspaceId],
      )
    ).map((r: { name: string }) => r.name);

  it('a priority over more projects than ranges are read per project: walked, then its items; pages and totals exact', async () => {
    // 60 projects x one or two priorities: more ranges than BRANCHES_MAX, so the page walks SEARCH_WALK of the
    // workspace's items, else reads the priority's items, sorted (workspacePriorityList).
    for (const [q, cond] of [
      ['priority=high', `w.priority = 'high'`],
      ['priority__in=high,urgent', `w.priority IN ('high', 'urgent')`],
      ['priority=urgent&state_group=started', `w.priority = 'urgent' AND s."group" = 'started'`],
      ['priority=none', `w.priority = 'none'`],
    ] as const) {
      const all = await oracle(cond);
      expect(all.length).toBeGreaterThan(20);
      for (const offset of [0, 7, all.length - 3]) {
        const res = await list(`?${q}&per_page=10&offset=${offset}`);
        expect({
          q,
          offset,
          names: res.body.data.map((w: { name: string }) => w.name),
          total: res.body.total_count,
        }).toEqual({ q, offset, names: all.slice(offset, offset + 10), total: all.length });
      }
      expect(await cursorNames(list, `?${q}`, 25)).toEqual(all);
    }
    // A common priority's page is found early in the walk. One range of all its items, sorted, passed all 3,000 rows.
    const pages = await statementsWithValuesOf(
      async () => expect((await list('?priority=none&per_page=10')).status).toBe(200),
      (text) => /FROM work_items w/.test(text) && /LIMIT/.test(text),
    );
    expect(await workItemRowsPassed(t, pages)).toBeLessThan(100);
  });

  it("a small project's search total is counted on the sample that holds the whole project", async () => {
    const path = `/api/v2/workspaces/${ten.slug}/projects/${projects[7]}/work-items/?search=p7%20%231&per_page=5`;
    const counts = await statementsWithValuesOf(
      async () => {
        const res = await t.http.get(path).set({ 'X-Api-Key': ten.owner.key });
        // p7 #1 and p7 #10..#19.
        expect({ total: res.body.total_count, page: res.body.data.length }).toEqual({ total: 11, page: 5 });
      },
      (text) => text.startsWith('WITH "__sample"'),
    );
    expect(counts).toHaveLength(1);
    // The sample reads the project's keys, then each row: 2 x ITEMS. Counting the list again read it (or the
    // workspace's trigram matches) once more.
    expect(await workItemRowsPassed(t, counts)).toBeLessThanOrEqual(2 * ITEMS);
  });

  /** The conditions (index and filter) `statement`'s plan puts on the state and priority counter rows. */
  const counterConditions = async (statement: { text: string; values: unknown[] }) =>
    (await planNodes(t, statement))
      .filter((n) => n['Relation Name'] === 'work_item_state_priority_counts')
      .map((n) => `${n['Index Cond'] ?? ''} ${n.Filter ?? ''}`);

  it("a state's total sums its counters under each state's own project, exactly", async () => {
    for (const [q, cond] of [
      ['state_group=started', `s."group" = 'started'`],
      ['state_group__in=started,unstarted', `s."group" IN ('started', 'unstarted')`],
      ['state_group=started&priority=high', `s."group" = 'started' AND w.priority = 'high'`],
      [
        'state_group=unstarted&priority__in=high,urgent',
        `s."group" = 'unstarted' AND w.priority IN ('high', 'urgent')`,
      ],
    ] as const) {
      const counts = await statementsWithValuesOf(
        async () => {
          const res = await list(`?${q}&per_page=1`);
          const expected = (await oracle(cond)).length;
          expect(expected).toBeGreaterThan(0);
          expect({ q, total: res.body.total_count }).toEqual({ q, total: expected });
        },
        (text) => text.startsWith('SELECT coalesce(sum(k.n), 0)::int AS c'),
      );
      expect(counts).toHaveLength(1);
      // Each state's counter rows are read under its own project. Asking their project to be any of the list's as
      // well made one index descent per (state, project) at scale: 12 million buffers, 4 s, for 2,003 projects.
      const conditions = await counterConditions(counts[0]);
      expect(conditions.length).toBeGreaterThan(0);
      for (const c of conditions) expect({ q, c }).toEqual({ q, c: expect.not.stringMatching(/project_id = ANY/) });
    }
  });
});
