import { createTestApp, Tenant, TestApp } from '../helpers/test-app';

/**
 * `assignee_id=` and `label_id=` (and their `__in` form with one id) are answered from the link tables' copies
 * of the item's created_at, state and liveness (page and count). The `__in` form with two ids takes the
 * work-item-driven path, so it is the oracle: after every kind of write the two must agree.
 */
describe('work item relation filters read from the link rows', () => {
  let t: TestApp;
  let ten: Tenant;
  let pid: string;
  let base: string;
  let states: Record<string, string>;
  let other: { id: string; email: string; key: string };
  let red: string;
  const key = () => ({ 'X-Api-Key': ten.owner.key });

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    pid = (await t.project(ten.slug, ten.owner.key, { identifier: 'LNK' })).id;
    base = `/api/v2/workspaces/${ten.slug}/projects/${pid}/work-items/`;
    const st = await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/${pid}/states/`).set(key());
    states = Object.fromEntries(st.body.data.map((s: any) => [s.group, s.id]));
    other = await t.member(ten.slug, 'member');
    await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/members/`)
      .set(key())
      .send({ member_id: other.id, role: 'contributor' });
    red = (await t.http.post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/`).set(key()).send({ name: 'red' }))
      .body.id;
  });
  afterAll(() => t.close());

  const get = async (qs: string) => {
    const res = await t.http.get(`${base}?${qs}`).set(key());
    if (res.status !== 200) throw new Error(`${qs}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  /** Every page of a cursor walk, per_page 2. */
  const walk = async (qs: string) => {
    const out: string[] = [];
    let cursor: string | null = null;
    do {
      const b = await get(`paginate=cursor&per_page=2&${qs}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      out.push(...b.data.map((x: any) => x.name));
      cursor = b.next_cursor;
    } while (cursor);
    return out;
  };
  const QUERIES = (who: string) => [
    `assignee_id=${who}`,
    `assignee_id=${who}&state_group=started`,
    `assignee_id=${who}&state_group__in=backlog,started`,
    `assignee_id=${who}&order_by=created_at`,
    `assignee_id=${who}&priority=high`,
    `assignee_id=${who}&order_by=priority`,
    `assignee_id=${who}&state_id=${states.started}`,
    `assignee_id=${who}&state_id__in=${states.backlog},${states.completed}&state_group=completed`,
    `label_id=${red}`,
    `label_id=${red}&state_group=completed`,
  ];
  /** Asserts the link-driven answer equals the oracle's for every query; returns the first query's names. */
  async function agree(): Promise<string[]> {
    let first: string[] = [];
    for (const qs of [...QUERIES(ten.owner.id), ...QUERIES(other.id)]) {
      // Two ids, one of them nobody's: the work-item-driven path (a single id takes the link-driven one too).
      const oracle = qs.replace(
        /^(assignee_id|label_id)=([0-9a-f-]+)/,
        '$1__in=$2,00000000-0000-4000-8000-000000000000',
      );
      const [a, b] = [await get(`per_page=200&${qs}`), await get(`per_page=200&${oracle}`)];
      const shape = (x: any) => ({ total: x.total_count, names: x.data.map((r: any) => r.name) });
      expect({ qs, ...shape(a) }).toEqual({ qs, ...shape(b) });
      expect(a.total_count).toBe(a.data.length);
      if (!qs.includes('order_by=priority')) expect(await walk(qs)).toEqual(shape(b).names);
      if (!first.length) first = shape(a).names;
    }
    return first;
  }
  const create = async (name: string, body: Record<string, unknown>) => {
    const r = await t.http
      .post(base)
      .set(key())
      .send({ name, ...body });
    expect(r.status).toBe(201);
    return r.body.id as string;
  };

  it('agree after creates, state changes, archive, unarchive, delete, reassignment and label removal', async () => {
    const me = ten.owner.id;
    const a = await create('a', { state_id: states.started, assignee_ids: [me], label_ids: [red], priority: 'high' });
    const b = await create('b', { state_id: states.backlog, assignee_ids: [me, other.id] });
    const c = await create('c', { state_id: states.started, assignee_ids: [other.id], label_ids: [red] });
    const d = await create('d', { state_id: states.completed, assignee_ids: [me], label_ids: [red] });
    await create('e', { state_id: states.started });
    expect(await agree()).toEqual(['d', 'b', 'a']);
    expect((await get(`assignee_id=${me}&state_group=started`)).total_count).toBe(1);

    // A state change moves the item's links to the new group.
    expect((await t.http.patch(`${base}${b}/`).set(key()).send({ state_id: states.started })).status).toBe(200);
    expect((await get(`assignee_id=${me}&state_group=started`)).data.map((x: any) => x.name)).toEqual(['b', 'a']);
    // A state change and a new assignee set in one PATCH: the new link follows the new group too.
    expect(
      (
        await t.http
          .patch(`${base}${c}/`)
          .set(key())
          .send({ state_id: states.completed, assignee_ids: [me] })
      ).status,
    ).toBe(200);
    expect((await get(`assignee_id=${me}&state_group=completed`)).data.map((x: any) => x.name)).toEqual(['d', 'c']);
    expect((await get(`assignee_id=${other.id}`)).data.map((x: any) => x.name)).toEqual(['b']);
    await agree();

    expect((await t.http.post(`${base}${a}/archive/`).set(key())).status).toBe(200);
    expect((await get(`assignee_id=${me}`)).data.map((x: any) => x.name)).toEqual(['d', 'c', 'b']);
    await agree();
    expect((await t.http.post(`${base}${a}/unarchive/`).set(key())).status).toBe(200);
    expect((await get(`assignee_id=${me}`)).data.map((x: any) => x.name)).toEqual(['d', 'c', 'b', 'a']);
    await agree();
    expect((await t.http.delete(`${base}${d}/`).set(key())).status).toBe(204);
    expect((await get(`label_id=${red}`)).data.map((x: any) => x.name)).toEqual(['c', 'a']);
    await agree();

    // A state's group change rewrites its items' links.
    expect(
      (
        await t.http
          .patch(`/api/v2/workspaces/${ten.slug}/projects/${pid}/states/${states.started}/`)
          .set(key())
          .send({ group: 'cancelled' })
      ).status,
    ).toBe(200);
    expect((await get(`assignee_id=${me}&state_group=started`)).total_count).toBe(0);
    expect((await get(`assignee_id=${me}&state_group=cancelled`)).data.map((x: any) => x.name)).toEqual(['b', 'a']);
    await agree();

    // Deleting the label strips it; links written by plain SQL get their copies from the trigger.
    expect(
      (await t.http.delete(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/${red}/`).set(key())).status,
    ).toBe(204);
    expect((await get(`label_id=${red}`)).total_count).toBe(0);
    await t.ds.query(
      `INSERT INTO work_item_assignees (work_item_id, assignee_id, workspace_id, project_id) SELECT id, $2, workspace_id, project_id FROM work_items WHERE id = $1`,
      [c, other.id],
    );
    expect((await get(`assignee_id=${other.id}&state_group=completed`)).data.map((x: any) => x.name)).toEqual(['c']);
    await agree();
    expect(await counterDrift()).toEqual([]);
  });

  /** Counters that differ from a recount of the live links (migration WorkItemLinkCounts): none, if exact. */
  const counterDrift = () =>
    t.ds.query(
      `WITH kept AS (SELECT 'a' AS link, assignee_id AS k, project_id, state_group_rank AS r, sum(n)::int AS n FROM work_item_assignee_counts GROUP BY 1, 2, 3, 4
                     UNION ALL SELECT 'l', label_id, project_id, state_group_rank, sum(n)::int FROM work_item_label_counts GROUP BY 1, 2, 3, 4),
            live AS (SELECT 'a' AS link, assignee_id AS k, project_id, item_state_group_rank AS r, count(*)::int AS n FROM work_item_assignees WHERE item_live GROUP BY 1, 2, 3, 4
                     UNION ALL SELECT 'l', label_id, project_id, item_state_group_rank, count(*)::int FROM work_item_labels WHERE item_live GROUP BY 1, 2, 3, 4)
       SELECT coalesce(kept.link, live.link) AS link, coalesce(kept.k, live.k) AS k, coalesce(kept.r, live.r) AS r, kept.n AS kept, live.n AS live
         FROM kept FULL JOIN live ON live.link = kept.link AND live.k = kept.k AND live.project_id = kept.project_id AND live.r = kept.r
        WHERE coalesce(kept.n, 0) <> coalesce(live.n, 0)`,
    );

  it('the counters behind total_count stay exact under concurrent writes from many connections', async () => {
    const me = ten.owner.id;
    expect(await counterDrift()).toEqual([]);
    const blue = (
      await t.http.post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/`).set(key()).send({ name: 'blue' })
    ).body.id;
    const ids = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        create(`par${i}`, {
          state_id: i % 2 ? states.started : states.backlog,
          assignee_ids: i % 3 ? [me] : [me, other.id],
          label_ids: i % 5 ? [blue] : [],
        }),
      ),
    );
    const send = (id: string, i: number) => {
      const url = `${base}${id}/`;
      if (i % 4 === 0) return t.http.patch(url).set(key()).send({ state_id: states.completed });
      if (i % 4 === 1)
        return t.http
          .patch(url)
          .set(key())
          .send({ assignee_ids: [other.id], label_ids: [] });
      if (i % 4 === 2) return t.http.post(`${url}archive/`).set(key());
      return t.http.delete(url).set(key());
    };
    // These writes upsert rows of several counter tables in different orders (a deletion: assignees', then labels';
    // a link-set PATCH: the order its triggers fire in). Each transaction leases a counter slot of its own
    // (migration CounterSlotLeases), so none waits for another's counter rows and none deadlocks: every write
    // succeeds the first time, with no 409 to retry, and the counters are exact.
    for (const r of await Promise.all(ids.map(send))) expect([200, 204]).toContain(r.status);
    expect(await counterDrift()).toEqual([]);
    await agree();
    expect((await get(`label_id=${blue}`)).total_count).toBe(
      (await get(`label_id__in=${blue},00000000-0000-4000-8000-000000000000`)).total_count,
    );
    // One id in the __in form: the same answer as the plain filter.
    expect(await get(`per_page=200&label_id__in=${blue}`)).toEqual(await get(`per_page=200&label_id=${blue}`));
    // A page past the end still reports the total (read from the counters on their own).
    const all = await get(`assignee_id=${me}`);
    const past = await get(`assignee_id=${me}&offset=${all.total_count + 10}`);
    expect(past).toMatchObject({ data: [], total_count: all.total_count });
    const pastGroup = await get(`assignee_id=${me}&state_group=completed&offset=500`);
    expect(pastGroup.data).toEqual([]);
    expect(pastGroup.total_count).toBe(
      (await get(`assignee_id__in=${me},00000000-0000-4000-8000-000000000000&state_group=completed`)).total_count,
    );
  });

  /** Link rows whose priority copy differs from their item's priority rank (migration WorkItemLinkPriorityCopies). */
  const priorityCopyDrift = () =>
    t.ds.query(
      `SELECT x.link, x.work_item_id, x.item_priority_rank, w.priority FROM (
         SELECT 'a' AS link, work_item_id, workspace_id, item_priority_rank FROM work_item_assignees
         UNION ALL SELECT 'l', work_item_id, workspace_id, item_priority_rank FROM work_item_labels) x
         JOIN work_items w ON w.workspace_id = x.workspace_id AND w.id = x.work_item_id
        WHERE x.item_priority_rank IS DISTINCT FROM array_position(ARRAY['urgent','high','medium','low','none'], w.priority::text) - 1`,
    );

  it("a relation filter with a priority (read off the link rows' copy) is plain SQL's answer after every write", async () => {
    const me = ten.owner.id;
    const green = (
      await t.http.post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/`).set(key()).send({ name: 'green' })
    ).body.id;
    /** The query string, and plain SQL's condition on the item `w` beside its link (`table`.`col` = ANY(keys)). */
    const cases: Array<[string, string, string, string[], string]> = [
      [`assignee_id=${me}&priority=high`, 'work_item_assignees', 'assignee_id', [me], `w.priority = 'high'`],
      [
        `label_id=${green}&priority__in=high,low`,
        'work_item_labels',
        'label_id',
        [green],
        `w.priority IN ('high', 'low')`,
      ],
      [
        `assignee_id__in=${me},${other.id}&priority=none`,
        'work_item_assignees',
        'assignee_id',
        [me, other.id],
        `w.priority = 'none'`,
      ],
      [
        `assignee_id__in=${me},${other.id}&priority__in=urgent,high`,
        'work_item_assignees',
        'assignee_id',
        [me, other.id],
        `w.priority IN ('urgent', 'high')`,
      ],
      [
        `label_id=${green}&priority=urgent&state_group=cancelled`,
        'work_item_labels',
        'label_id',
        [green],
        `w.priority = 'urgent' AND EXISTS (SELECT 1 FROM states s WHERE s.id = w.state_id AND s."group" = 'cancelled')`,
      ],
    ];
    const oracle = async (table: string, col: string, keys: string[], cond: string) =>
      (
        await t.ds.query(
          `SELECT w.name FROM work_items w WHERE w.project_id = $1 AND w.deleted_at IS NULL AND w.archived_at IS NULL AND ${cond}
             AND EXISTS (SELECT 1 FROM ${table} x WHERE x.work_item_id = w.id AND x.${col} = ANY($2::uuid[]))
           ORDER BY w.created_at DESC, w.id DESC`,
          [pid, keys],
        )
      ).map((r: { name: string }) => r.name);
    const check = async (step: string) => {
      expect({ step, drift: await priorityCopyDrift() }).toEqual({ step, drift: [] });
      for (const [qs, table, col, keys, cond] of cases) {
        const want = await oracle(table, col, keys, cond);
        const page = await get(`per_page=200&${qs}`);
        expect({ step, qs, total: page.total_count, names: page.data.map((r: any) => r.name) }).toEqual({
          step,
          qs,
          total: want.length,
          names: want,
        });
        expect({ step, qs, walked: await walk(qs) }).toEqual({ step, qs, walked: want });
      }
    };
    const priorities = ['urgent', 'high', 'medium', 'low', 'none'];
    const made: string[] = [];
    for (let i = 0; i < 10; i++) {
      made.push(
        await create(`p${i}`, {
          state_id: i % 3 ? states.cancelled : states.backlog,
          priority: priorities[i % 5],
          assignee_ids: i % 2 ? [me] : [me, other.id],
          label_ids: i % 4 ? [green] : [],
        }),
      );
    }
    await check('created');
    const patch = (id: string, body: Record<string, unknown>) =>
      t.http.patch(`${base}${id}/`).set(key()).send(body).expect(200);
    await patch(made[0], { priority: 'high' });
    await patch(made[1], { priority: 'none' });
    await check('priority changed');
    // A priority change and a new link set in one statement: the new links copy the new priority too.
    await patch(made[2], { priority: 'low', assignee_ids: [other.id], label_ids: [green] });
    await patch(made[4], { priority: 'urgent', label_ids: [] });
    await check('priority and links changed together');
    const bulk = await t.http
      .post(`${base}bulk-update/`)
      .set(key())
      .send({ items: made.slice(5, 9).map((id, i) => ({ id, priority: priorities[(i + 2) % 5] })) });
    expect(bulk.status).toBe(200);
    await check('bulk update');
    expect((await t.http.post(`${base}${made[5]}/archive/`).set(key())).status).toBe(200);
    await t.http.delete(`${base}${made[6]}/`).set(key()).expect(204);
    await check('archived and deleted');
    expect((await t.http.post(`${base}${made[5]}/unarchive/`).set(key())).status).toBe(200);
    await patch(made[5], { priority: 'high' });
    await check('unarchived and changed');
    // Links written by plain SQL without their copies get them from the insert trigger.
    await t.ds.query(
      `INSERT INTO work_item_labels (work_item_id, label_id, workspace_id, project_id) SELECT id, $2, workspace_id, project_id FROM work_items WHERE id = $1`,
      [made[0], green],
    );
    await check('link inserted without copies');
    // The previous release's create: the item and its links in one statement, the other copies set but not the
    // priority (which its trigger query cannot read yet): filled at the statement's end (rolling upgrade).
    await t.ds.query(
      `WITH item AS (
         INSERT INTO work_items (workspace_id, project_id, sequence_id, name, priority, state_id, sort_order, created_by_id, updated_by_id)
         SELECT $1, $2, wt_next_work_item_sequence($1, $2), 'previous release', 'high', $3, 1, $4, $4 RETURNING *
       ), a AS (
         INSERT INTO work_item_assignees (work_item_id, assignee_id, workspace_id, project_id, item_created_at, item_state_group_rank, item_live)
         SELECT item.id, $4, $1, $2, item.created_at, item.state_group_rank, true FROM item
       )
       INSERT INTO work_item_labels (work_item_id, label_id, workspace_id, project_id, item_created_at, item_state_group_rank, item_live)
       SELECT item.id, $5, $1, $2, item.created_at, item.state_group_rank, true FROM item`,
      [ten.workspaceId, pid, states.cancelled, me, green],
    );
    await check('created by the previous release');
    expect((await get(`assignee_id=${me}&priority=high`)).data.map((r: any) => r.name)).toContain('previous release');
    // A label deleted strips its links.
    await t.http.delete(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/${green}/`).set(key()).expect(204);
    await check('label deleted');
    expect(await counterDrift()).toEqual([]);
  });

  it('never reach another project or workspace', async () => {
    const elsewhere = await t.project(ten.slug, ten.owner.key);
    const url = `/api/v2/workspaces/${ten.slug}/projects/${elsewhere.id}/work-items/`;
    expect(
      (
        await t.http
          .post(url)
          .set(key())
          .send({ name: 'elsewhere', assignee_ids: [ten.owner.id] })
      ).status,
    ).toBe(201);
    const mine = await get(`assignee_id=${ten.owner.id}`);
    expect(mine.data.map((x: any) => x.name)).not.toContain('elsewhere');
    const there = await t.http.get(`${url}?assignee_id=${ten.owner.id}`).set(key());
    expect(there.body).toMatchObject({ total_count: 1, data: [expect.objectContaining({ name: 'elsewhere' })] });
  });
});
