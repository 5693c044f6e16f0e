import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';
import { statementsOf } from '../helpers/record-statements';

describe('work items list', () => {
  let t: TestApp;
  let ten: Tenant;
  let pid: string;
  let base: string;
  let states: Record<string, string>;
  let member: { id: string; email: string; key: string };
  const key = () => ({ 'X-Api-Key': ten.owner.key });
  const ids: Record<string, string> = {};
  const labels: Record<string, string> = {};
  let cycleId: string;
  let moduleId: string;

  const list = async (qs: string) => {
    const res = await t.http.get(`${base}?per_page=200&${qs}`).set(key());
    if (res.status !== 200) throw new Error(`${qs}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const names = async (qs: string) => (await list(qs)).data.map((x: any) => x.name).sort();

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    pid = (await t.project(ten.slug, ten.owner.key, { identifier: 'LST' })).id;
    base = `/api/v2/workspaces/${ten.slug}/projects/${pid}/work-items/`;
    const st = await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/${pid}/states/`).set(key());
    states = Object.fromEntries(st.body.data.map((s: any) => [s.name, s.id]));
    member = await t.member(ten.slug, 'member');
    await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/members/`)
      .set(key())
      .send({ member_id: member.id, role: 'contributor' });
    for (const n of ['red', 'blue'])
      labels[n] = (
        await t.http.post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/`).set(key()).send({ name: n })
      ).body.id;
    const mk = async (name: string, body: Record<string, unknown> = {}) => {
      const r = await t.http
        .post(base)
        .set(key())
        .send({ name, ...body });
      if (r.status !== 201) throw new Error(JSON.stringify(r.body));
      ids[name] = r.body.id;
      return r.body;
    };
    // Created in this order, so -created_at lists them in reverse.
    await mk('alpha', {
      priority: 'low',
      state_id: states.Todo,
      assignee_ids: [member.id],
      label_ids: [labels.red],
      start_date: '2025-01-10',
      target_date: '2025-01-20',
    });
    await mk('bravo', {
      priority: 'urgent',
      state_id: states['In Progress'],
      assignee_ids: [member.id, ten.owner.id],
      label_ids: [labels.red, labels.blue],
      external_id: 'E1',
      external_source: 'jira',
    });
    await mk('charlie', { priority: 'medium', state_id: states.Done, parent_id: ids.alpha, start_date: '2025-02-10' });
    await mk('delta', { priority: 'high', state_id: states.Cancelled, target_date: '2025-03-01' });
    await mk('echo Search-Me', { state_id: states.Triage });
    await mk('foxtrot');
    await mk('archived one');
    await t.http.post(`${base}${ids['archived one']}/archive/`).set(key());
    await mk('deleted one');
    await t.http.delete(`${base}${ids['deleted one']}/`).set(key());
    const ws = ten.workspaceId;
    cycleId = (
      await t.ds.query(
        `INSERT INTO cycles (workspace_id, project_id, name, owned_by_id, sort_order) VALUES ($1, $2, 'C1', $3, 1) RETURNING id`,
        [ws, pid, ten.owner.id],
      )
    )[0].id;
    moduleId = (
      await t.ds.query(
        `INSERT INTO modules (workspace_id, project_id, name, sort_order) VALUES ($1, $2, 'M1', 1) RETURNING id`,
        [ws, pid],
      )
    )[0].id;
    await t.ds.query(`UPDATE work_items SET cycle_id = $1 WHERE id = ANY($2::uuid[])`, [
      cycleId,
      [ids.alpha, ids.delta],
    ]);
    await t.ds.query(
      `INSERT INTO module_work_items (workspace_id, project_id, module_id, work_item_id) VALUES ($1, $2, $3, $4), ($1, $2, $3, $5)`,
      [ws, pid, moduleId, ids.bravo, ids.charlie],
    );
    await t.ds.query(`UPDATE work_items SET is_draft = true, sort_order = -1 WHERE id = $1`, [ids.foxtrot]);
    // noise in another project and workspace
    const other = await t.project(ten.slug, ten.owner.key);
    await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${other.id}/work-items/`)
      .set(key())
      .send({ name: 'alpha elsewhere' });
  });
  afterAll(() => t.close());

  it('default: -created_at, offset envelope with total_count; archived and deleted excluded; rows carry custom_fields null', async () => {
    const b = await list('');
    expect(b.data.map((x: any) => x.name)).toEqual(['foxtrot', 'echo Search-Me', 'delta', 'charlie', 'bravo', 'alpha']);
    expect(b.total_count).toBe(6);
    expect(b.pagination).toEqual({ style: 'offset' });
    expect(b.data.every((x: any) => x.custom_fields === null)).toBe(true);
    const bravo = b.data.find((x: any) => x.name === 'bravo');
    expect(Object.keys(bravo).sort()).toEqual(
      [
        'archived_at',
        'assignee_ids',
        'created_at',
        'created_by_id',
        'custom_fields',
        'cycle_id',
        'id',
        'identifier',
        'is_draft',
        'label_ids',
        'module_ids',
        'name',
        'parent_id',
        'priority',
        'project_id',
        'sequence_id',
        'start_date',
        'state_id',
        'target_date',
        'type_id',
      ].sort(),
    );
    expect([...bravo.assignee_ids].sort()).toEqual([member.id, ten.owner.id].sort());
    expect([...bravo.label_ids].sort()).toEqual([labels.red, labels.blue].sort());
    expect(bravo.identifier).toBe(`LST-${bravo.sequence_id}`);
    // The later edition's read shape: the project, the cycle and the modules of each row.
    expect(bravo).toMatchObject({ project_id: pid, cycle_id: null, module_ids: [moduleId] });
    expect(b.data.find((x: any) => x.name === 'alpha')).toMatchObject({ cycle_id: cycleId, module_ids: [] });
  });

  it('state, state group, priority filters (enums validated, every __in element)', async () => {
    expect(await names(`state_id=${states.Todo}`)).toEqual(['alpha']);
    expect(await names(`state_id__in=${states.Todo},${states.Done}`)).toEqual(['alpha', 'charlie']);
    expect(await names('state_group=started')).toEqual(['bravo']);
    expect(await names('state_group__in=completed,cancelled')).toEqual(['charlie', 'delta']);
    expect(await names('state_group=backlog')).toEqual(['foxtrot']);
    expect(await names('priority=urgent')).toEqual(['bravo']);
    expect(await names('priority__in=high,low')).toEqual(['alpha', 'delta']);
    for (const q of [
      'state_group=doing',
      'state_group__in=started,doing',
      'priority=critical',
      'priority__in=high,critical',
      'state_id=nope',
    ]) {
      const b = expectProblem(await t.http.get(`${base}?${q}`).set(key()), 400, 'validation_error');
      expect(b.errors[0].field).toBe(q.split('=')[0]);
    }
    // An empty element is never skipped: every element of every __in is checked.
    for (const q of [
      'priority__in=none,,',
      'priority__in=high,%20,low',
      'state_group__in=started,',
      `state_id__in=,${states.Todo}`,
      `label_id__in=${labels.red},,${labels.blue}`,
      `assignee_id__in=${member.id},`,
      `parent_id__in=${ids.alpha},`,
      `module_id__in=,`,
      'type_id__in=',
    ]) {
      const b = expectProblem(await t.http.get(`${base}?${q}`).set(key()), 400, 'validation_error');
      expect(b.errors).toEqual([
        { field: q.split('=')[0], message: expect.stringMatching(/empty element|at least one/) },
      ]);
    }
  });

  it('assignee, label, parent, cycle, module filters with __in and __isnull', async () => {
    expect(await names(`assignee_id=${member.id}`)).toEqual(['alpha', 'bravo']);
    expect(await names(`assignee_id__in=${ten.owner.id}`)).toEqual(['bravo']);
    expect(await names('assignee_id__isnull=true')).toEqual(['charlie', 'delta', 'echo Search-Me', 'foxtrot']);
    expect(await names('assignee_id__isnull=false')).toEqual(['alpha', 'bravo']);
    expect(await names(`label_id=${labels.blue}`)).toEqual(['bravo']);
    expect(await names(`label_id__in=${labels.blue},${labels.red}`)).toEqual(['alpha', 'bravo']);
    expect(await names('label_id__isnull=false')).toEqual(['alpha', 'bravo']);
    expect(await names(`parent_id=${ids.alpha}`)).toEqual(['charlie']);
    expect(await names(`parent_id__in=${ids.alpha},${ids.bravo}`)).toEqual(['charlie']);
    expect((await names('parent_id__isnull=true')).length).toBe(5);
    expect(await names(`cycle_id=${cycleId}`)).toEqual(['alpha', 'delta']);
    expect(await names(`cycle_id__in=${cycleId}`)).toEqual(['alpha', 'delta']);
    expect(await names('cycle_id__isnull=true')).toEqual(['bravo', 'charlie', 'echo Search-Me', 'foxtrot']);
    expect(await names(`module_id=${moduleId}`)).toEqual(['bravo', 'charlie']);
    expect(await names(`module_id__in=${moduleId}`)).toEqual(['bravo', 'charlie']);
    expect(await names('module_id__isnull=true')).toEqual(['alpha', 'delta', 'echo Search-Me', 'foxtrot']);
    expect(await names(`type_id=${ids.alpha}`)).toEqual([]);
    expect(await names(`type_id__in=${ids.alpha}`)).toEqual([]);
    expectProblem(await t.http.get(`${base}?assignee_id__isnull=maybe`).set(key()), 400, 'validation_error');
    expect(await names(`state_group=started&assignee_id=${member.id}`)).toEqual(['bravo']);
  });

  it('scalar, external and range filters; search on name', async () => {
    const alpha = (await list('')).data.find((x: any) => x.name === 'alpha');
    expect(await names(`sequence_id=${alpha.sequence_id}`)).toEqual(['alpha']);
    expect(await names('is_draft=true')).toEqual(['foxtrot']);
    expect(await names('external_id=E1')).toEqual(['bravo']);
    expect(await names('external_source=jira')).toEqual(['bravo']);
    expect(await names('external_source=linear')).toEqual([]);
    expect(await names('start_date__gte=2025-02-01')).toEqual(['charlie']);
    expect(await names('start_date__lte=2025-01-10')).toEqual(['alpha']);
    expect(await names('target_date__gte=2025-02-01&target_date__lte=2025-03-01')).toEqual(['delta']);
    expect((await names(`created_at__gte=${alpha.created_at}`)).length).toBe(6);
    // Read shapes carry milliseconds, the column microseconds: __lte covers the whole span its value names, so
    // the created_at read back matches its own row (and a value in minutes covers the minute).
    expect(await names(`created_at__lte=${alpha.created_at}`)).toEqual(['alpha']);
    expect(await names(`created_at__gte=${alpha.created_at}&created_at__lte=${alpha.created_at}`)).toEqual(['alpha']);
    expect(await names(`created_at__lte=${new Date(Date.parse(alpha.created_at) - 1).toISOString()}`)).toEqual([]);
    expect(await names(`created_at__lte=${alpha.created_at.slice(0, 16)}Z`)).toContain('alpha');
    // Digits past the microsecond (the stored resolution) are dropped, never rounded up into the next one.
    const fmt = `'YYYY-MM-DD"T"HH24:MI:SS.US'`;
    const [{ us, prev }] = await t.ds.query(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', ${fmt}) AS us, to_char((created_at - interval '1 microsecond') AT TIME ZONE 'UTC', ${fmt}) AS prev FROM work_items WHERE id = $1`,
      [alpha.id],
    );
    expect(await names(`created_at__lte=${prev}999Z`)).toEqual([]);
    expect(await names(`created_at__lte=${us}000Z`)).toEqual(['alpha']);
    expect((await names('updated_at__gte=2000-01-01T00:00:00Z&updated_at__lte=2999-01-01T00:00:00Z')).length).toBe(6);
    expectProblem(await t.http.get(`${base}?start_date__gte=yesterday`).set(key()), 400, 'validation_error');
    expect(await names('search=search-me')).toEqual(['echo Search-Me']);
    expect(await names('search=%25')).toEqual([]);
  });

  it('orderings: priority and state_group by meaning, sequence_id, sort_order, id; unknown falls back', async () => {
    const order = async (o: string) => (await list(`order_by=${o}`)).data.map((x: any) => x.name);
    expect((await order('priority')).slice(0, 4)).toEqual(['bravo', 'delta', 'charlie', 'alpha']);
    expect((await order('-priority')).slice(-4)).toEqual(['alpha', 'charlie', 'delta', 'bravo']);
    expect(await order('state_group')).toEqual(['foxtrot', 'alpha', 'bravo', 'charlie', 'delta', 'echo Search-Me']);
    expect(await order('-state_group')).toEqual(['echo Search-Me', 'delta', 'charlie', 'bravo', 'alpha', 'foxtrot']);
    expect(await order('sequence_id')).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo Search-Me', 'foxtrot']);
    expect(await order('created_at')).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo Search-Me', 'foxtrot']);
    expect((await order('sort_order'))[0]).toBe('foxtrot');
    const byId = (await list('order_by=id')).data.map((x: any) => x.id);
    expect(byId).toEqual([...byId].sort());
    expect(await order('name')).toEqual(await order('-created_at'));
    await t.http.patch(`${base}${ids.alpha}/`).set(key()).send({ name: 'alpha' });
    expect((await order('-updated_at'))[0]).toBe('alpha');
  });

  it('ordered by priority or state_group and filtered by several of its values: the whole ordering with the other rows left out (one index range per value)', async () => {
    const all = async (qs: string): Promise<Array<{ name: string; priority: string; group: string }>> =>
      (await list(qs)).data.map((x: any) => ({ name: x.name, priority: x.priority, group: x.state_id }));
    const groupOf = Object.fromEntries(
      (await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/${pid}/states/`).set(key())).body.data.map(
        (s: any) => [s.id, s.group],
      ),
    );
    const cases: Array<[string, string, (r: { priority: string; group: string }) => boolean]> = [
      ['priority', 'priority__in=low,urgent', (r) => ['low', 'urgent'].includes(r.priority)],
      ['-priority', 'priority__in=none,high,none', (r) => ['none', 'high'].includes(r.priority)],
      ['priority', 'priority__in=medium', (r) => r.priority === 'medium'],
      ['-priority', 'priority__in=urgent,high,medium,low,none&label_id__isnull=true', () => true],
      [
        'state_group',
        'state_group__in=cancelled,backlog,started',
        (r) => ['cancelled', 'backlog', 'started'].includes(groupOf[r.group]),
      ],
      [
        '-state_group',
        'state_group__in=triage,unstarted,completed',
        (r) => ['triage', 'unstarted', 'completed'].includes(groupOf[r.group]),
      ],
    ];
    for (const [order, filter, keep] of cases) {
      const extra = filter.includes('label_id__isnull=true') ? '&label_id__isnull=true' : '';
      const expected = (await all(`order_by=${order}${extra}`)).filter(keep).map((r) => r.name);
      const got = await list(`order_by=${order}&${filter}`);
      expect({ order, filter, names: got.data.map((x: any) => x.name) }).toEqual({ order, filter, names: expected });
      expect(got.total_count).toBe(expected.length);
      expect(expected.length).toBeGreaterThan(0);
      // Rows carry the list's fields only.
      for (const row of got.data) expect(Object.keys(row).filter((k) => k.startsWith('__'))).toEqual([]);
      // Offset pages are slices of it.
      for (let offset = 1; offset < expected.length; offset++) {
        const page = await t.http.get(`${base}?per_page=1&offset=${offset}&order_by=${order}&${filter}`).set(key());
        expect(page.body.data.map((x: any) => x.name)).toEqual(expected.slice(offset, offset + 1));
      }
    }
  });

  it('cursor: eligible orderings walk every row once; ineligible ones are 400 ordering_not_cursor_eligible', async () => {
    for (const o of ['-created_at', 'created_at', 'updated_at', 'sequence_id', '-sequence_id', 'id']) {
      const seen: string[] = [];
      let url = `${base}?paginate=cursor&per_page=2&order_by=${o}`;
      for (;;) {
        const res = await t.http.get(url).set(key());
        expect(res.status).toBe(200);
        expect(res.body.pagination).toEqual({ style: 'cursor' });
        expect(res.body.total_count).toBeUndefined();
        seen.push(...res.body.data.map((x: any) => x.id));
        if (!res.body.has_more) break;
        url = `${base}?cursor=${res.body.next_cursor}&per_page=2&order_by=${o}`;
      }
      expect(seen.length).toBe(6);
      expect(new Set(seen).size).toBe(6);
    }
    for (const o of ['sort_order', 'priority', '-state_group']) {
      expectProblem(
        await t.http.get(`${base}?paginate=cursor&order_by=${o}`).set(key()),
        400,
        'ordering_not_cursor_eligible',
      );
    }
    expectProblem(await t.http.get(`${base}?cursor=garbage!`).set(key()), 400, 'validation_error');
  });

  it('offset pagination and count=false', async () => {
    const p1 = await t.http.get(`${base}?per_page=4`).set(key());
    expect(p1.body).toMatchObject({ next: 4, previous: null, total_count: 6 });
    const p2 = await t.http.get(`${base}?per_page=4&offset=4&count=false`).set(key());
    expect(p2.body.data.length).toBe(2);
    expect(p2.body.total_count).toBeUndefined();
    expect(p2.body).toMatchObject({ next: null, previous: 0 });
    expectProblem(await t.http.get(`${base}?offset=10001`).set(key()), 400, 'validation_error');
  });

  it('offset pages (skipped off the ordering index, rows read after) are the slices of the whole list, for every ordering and with filters', async () => {
    const orderings = [
      'created_at',
      '-created_at',
      'updated_at',
      '-updated_at',
      'sequence_id',
      '-sequence_id',
      'id',
      '-id',
      'sort_order',
      '-sort_order',
      'priority',
      '-priority',
      'state_group',
      '-state_group',
    ];
    const filters = [
      '',
      'priority__in=low,urgent,medium,none',
      'search=a',
      'state_group__in=unstarted,started,triage,backlog',
      `label_id__isnull=false`,
      `cycle_id__isnull=true`,
    ];
    let checked = 0;
    for (const order of orderings) {
      for (const filter of filters) {
        const qs = `order_by=${order}${filter ? `&${filter}` : ''}`;
        const all = (await list(qs)).data.map((x: any) => x.name);
        expect(all).not.toContain('archived one');
        expect(all).not.toContain('deleted one');
        expect(all).not.toContain('alpha elsewhere');
        for (let offset = 1; offset < all.length; offset++) {
          const res = await t.http.get(`${base}?per_page=2&offset=${offset}&${qs}`).set(key());
          expect(res.status).toBe(200);
          expect({ qs, offset, page: res.body.data.map((x: any) => x.name) }).toEqual({
            qs,
            offset,
            page: all.slice(offset, offset + 2),
          });
          expect(res.body.total_count).toBe(all.length);
          // Page rows are full rows: the id arrays come from the page statement.
          for (const row of res.body.data)
            expect(Array.isArray(row.assignee_ids) && Array.isArray(row.label_ids)).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    // Past the end: an empty page with the total.
    const past = await t.http.get(`${base}?per_page=2&offset=50`).set(key());
    expect(past.body).toMatchObject({ data: [], next: null, previous: 48, total_count: 6 });
  });

  it('expand on the list: one object per row, arrays for to-many, null for missing to-one', async () => {
    const b = await list('expand=state,labels,assignees,parent,type');
    const charlie = b.data.find((x: any) => x.name === 'charlie');
    expect(charlie.state).toEqual({ id: states.Done, name: 'Done', color: expect.any(String), group: 'completed' });
    expect(charlie.parent).toEqual({ id: ids.alpha, name: 'alpha', sequence_id: expect.any(Number) });
    expect(charlie.labels).toEqual([]);
    expect(charlie.assignees).toEqual([]);
    expect(charlie.type).toBeNull();
    const bravo = b.data.find((x: any) => x.name === 'bravo');
    expect(bravo.labels.map((l: any) => l.name).sort()).toEqual(['blue', 'red']);
    expect(bravo.assignees.map((u: any) => u.email).sort()).toEqual([member.email, ten.owner.email].sort());
    expect(bravo.parent).toBeNull();
    // cycle and modules are allowed expands (issue 4); a value outside the allowlist is still 400.
    expectProblem(await t.http.get(`${base}?expand=comments`).set(key()), 400, 'validation_error');
  });

  /** Every row's expanded objects are those of its own ids, in the ids' order. */
  const expectOwnObjects = (rows: any[]) => {
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.state).toMatchObject({ id: r.state_id });
      expect(r.parent?.id ?? null).toBe(r.parent_id);
      expect(r.labels.map((l: any) => l.id)).toEqual(r.label_ids);
      expect(r.assignees.map((u: any) => u.id)).toEqual(r.assignee_ids);
    }
  };

  it("expand adds no statement: the page's objects come with its rows, on every kind of page", async () => {
    const expand = 'expand=state,labels,assignees,parent,type';
    const url = (qs: string) => `${base}?${qs}`;
    await t.http.get(url(`per_page=3&${expand}`)).set(key()); // the credential is cached from here on
    const plain = await statementsOf(() => t.http.get(url('per_page=3')).set(key()));
    const expanded = await statementsOf(() => t.http.get(url(`per_page=3&${expand}`)).set(key()));
    expect(expanded.length).toBe(plain.length);
    // Offset pages read through remembered positions (the row before the page comes first and is dropped), cursor
    // pages and filtered pages carry the objects of their own rows.
    const first = (await t.http.get(url(`per_page=2&offset=2&${expand}`)).set(key())).body;
    const again = (await t.http.get(url(`per_page=2&offset=2&${expand}`)).set(key())).body;
    expect(again.data).toEqual(first.data);
    expectOwnObjects(first.data);
    const page1 = (await t.http.get(url(`paginate=cursor&per_page=2&${expand}`)).set(key())).body;
    const cursor = (await t.http.get(url(`per_page=2&cursor=${page1.next_cursor}&${expand}`)).set(key())).body;
    expectOwnObjects([...page1.data, ...cursor.data]);
    expectOwnObjects((await list(`label_id=${labels.red}&${expand}`)).data);
    expectOwnObjects((await list(`search=a&${expand}`)).data);
  });

  it('expand adds no statement to one item read by id or by identifier, and gives the same objects', async () => {
    const expand = 'expand=state,labels,assignees,parent,type';
    const charlie = (await t.http.get(`${base}${ids.charlie}/`).set(key())).body;
    const urls = [
      (id: string) => `${base}${id}/`,
      (id: string, seq: number) => `/api/v2/workspaces/${ten.slug}/work-items/LST-${seq}/`,
    ];
    for (const url of urls) {
      const one = url(ids.bravo, 2);
      await t.http.get(`${one}?${expand}`).set(key()); // what the request path caches is cached from here on
      const plain = await statementsOf(() => t.http.get(one).set(key()));
      const expanded = await statementsOf(() => t.http.get(`${one}?${expand}`).set(key()));
      expect(expanded.length).toBe(plain.length);
      const bravo = (await t.http.get(`${one}?${expand}`).set(key())).body;
      expectOwnObjects([bravo]);
      expect(bravo.assignees.map((u: any) => u.email).sort()).toEqual([member.email, ten.owner.email].sort());
      expect(bravo.labels.map((l: any) => l.name).sort()).toEqual(['blue', 'red']);
      expect(bravo.parent).toBeNull();
      expect(bravo.type).toBeNull();
      const child = (await t.http.get(`${url(ids.charlie, charlie.sequence_id)}?${expand}`).set(key())).body;
      expectOwnObjects([child]);
      expect(child).toMatchObject({ parent: { id: ids.alpha, name: 'alpha' }, labels: [], assignees: [] });
      expect(child.state).toEqual({ id: states.Done, name: 'Done', color: expect.any(String), group: 'completed' });
    }
  });
  it('state_group ordering follows a state change of the item and a group change of the state', async () => {
    const p = await t.project(ten.slug, ten.owner.key);
    const url = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/work-items/`;
    const st = await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/${p.id}/states/`).set(key());
    const byGroup = Object.fromEntries(st.body.data.map((s: any) => [s.group, s.id]));
    const one = (await t.http.post(url).set(key()).send({ name: 'one', state_id: byGroup.completed })).body;
    await t.http.post(url).set(key()).send({ name: 'two', state_id: byGroup.started });
    const order = async () =>
      (await t.http.get(`${url}?order_by=state_group`).set(key())).body.data.map((x: any) => x.name);
    expect(await order()).toEqual(['two', 'one']);
    expect((await t.http.patch(`${url}${one.id}/`).set(key()).send({ state_id: byGroup.backlog })).status).toBe(200);
    expect(await order()).toEqual(['one', 'two']);
    // The backlog state becomes a cancelled one: its items move behind the started one.
    expect(
      (
        await t.http
          .patch(`/api/v2/workspaces/${ten.slug}/projects/${p.id}/states/${byGroup.backlog}/`)
          .set(key())
          .send({ group: 'cancelled' })
      ).status,
    ).toBe(200);
    expect(await order()).toEqual(['two', 'one']);
    expect((await t.http.get(`${url}?state_group=cancelled`).set(key())).body.data.map((x: any) => x.name)).toEqual([
      'one',
    ]);
  });
});
