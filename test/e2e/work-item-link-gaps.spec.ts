import { QueryRunner } from 'typeorm';
import { createTestApp, Tenant, TestApp } from '../helpers/test-app';

/**
 * `assignee_id__isnull=true` / `label_id__isnull=true` read off the gap tables (migration WorkItemLinkGaps): one row
 * per live item without an assignee (resp. label), kept by statement triggers on the link tables and work_items, and
 * counted per project. After every kind of write the tables must hold exactly the items plain SQL finds, the counters
 * their rows, and the list's pages and totals must be plain SQL's; two transactions writing one item's links at once
 * must leave the fact right.
 */
describe('items without assignees or labels (gap tables)', () => {
  let t: TestApp;
  let ten: Tenant;
  let pid: string;
  let base: string;
  let states: Record<string, string>;
  let red: string;
  let blue: string;
  const key = () => ({ 'X-Api-Key': ten.owner.key });

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    pid = (await t.project(ten.slug, ten.owner.key, { identifier: 'GAP' })).id;
    base = `/api/v2/workspaces/${ten.slug}/projects/${pid}/work-items/`;
    const st = await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/${pid}/states/`).set(key());
    states = Object.fromEntries(st.body.data.map((s: any) => [s.group, s.id]));
    const label = async (name: string) =>
      (await t.http.post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/`).set(key()).send({ name })).body
        .id as string;
    red = await label('red');
    blue = await label('blue');
  });
  afterAll(() => t.close());

  const get = async (qs: string) => {
    const res = await t.http.get(`${base}?${qs}`).set(key());
    if (res.status !== 200) throw new Error(`${qs}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const create = async (name: string, body: Record<string, unknown> = {}) => {
    const r = await t.http
      .post(base)
      .set(key())
      .send({ name, ...body });
    expect(r.status).toBe(201);
    return r.body.id as string;
  };
  const patch = (id: string, body: Record<string, unknown>) =>
    t.http.patch(`${base}${id}/`).set(key()).send(body).expect(200);

  /** Gap rows that differ from plain SQL's live link-less items, and counters that differ from their gap rows. */
  const drift = () =>
    t.ds.query(
      `WITH truth AS (
         SELECT 'a' AS kind, w.workspace_id, w.id, w.project_id, w.created_at FROM work_items w
          WHERE w.deleted_at IS NULL AND w.archived_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM work_item_assignees x WHERE x.workspace_id = w.workspace_id AND x.work_item_id = w.id)
         UNION ALL
         SELECT 'l', w.workspace_id, w.id, w.project_id, w.created_at FROM work_items w
          WHERE w.deleted_at IS NULL AND w.archived_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM work_item_labels x WHERE x.workspace_id = w.workspace_id AND x.work_item_id = w.id)
       ), kept AS (
         SELECT 'a' AS kind, workspace_id, work_item_id, project_id, item_created_at FROM work_item_assignee_gaps
         UNION ALL SELECT 'l', workspace_id, work_item_id, project_id, item_created_at FROM work_item_label_gaps
       ), counted AS (
         SELECT project_id, sum(unassigned)::int AS a, sum(unlabelled)::int AS l FROM work_item_gap_counts GROUP BY 1
       ), rows AS (
         SELECT project_id, count(*) FILTER (WHERE kind = 'a')::int AS a, count(*) FILTER (WHERE kind = 'l')::int AS l FROM kept GROUP BY 1
       )
       SELECT 'missing' AS what, kind, id::text AS id FROM (SELECT * FROM truth EXCEPT SELECT * FROM kept) m
       UNION ALL SELECT 'stale', kind, work_item_id::text FROM (SELECT * FROM kept EXCEPT SELECT * FROM truth) s
       UNION ALL SELECT 'counter', coalesce(c.a, 0) || '/' || coalesce(c.l, 0), coalesce(r.a, 0) || '/' || coalesce(r.l, 0)
         FROM counted c FULL JOIN rows r ON r.project_id = c.project_id
        WHERE coalesce(c.a, 0) <> coalesce(r.a, 0) OR coalesce(c.l, 0) <> coalesce(r.l, 0)`,
    );

  /** Plain SQL's names for a condition on `w`, in created_at order (newest first) or in priority order. */
  const oracle = async (cond: string, order = 'w.created_at DESC, w.id DESC') =>
    (
      await t.ds.query(
        `SELECT w.name FROM work_items w WHERE w.project_id = $1 AND w.deleted_at IS NULL AND w.archived_at IS NULL AND ${cond}
          ORDER BY ${order}`,
        [pid],
      )
    ).map((r: { name: string }) => r.name);
  const NO_ASSIGNEE = 'NOT EXISTS (SELECT 1 FROM work_item_assignees x WHERE x.work_item_id = w.id)';
  const NO_LABEL = 'NOT EXISTS (SELECT 1 FROM work_item_labels x WHERE x.work_item_id = w.id)';
  const PRIORITY_ORDER = `array_position(ARRAY['urgent','high','medium','low','none'], w.priority::text), w.id`;
  const CASES: Array<[string, string, string?]> = [
    ['assignee_id__isnull=true', NO_ASSIGNEE],
    ['label_id__isnull=true', NO_LABEL],
    ['assignee_id__isnull=true&label_id__isnull=true', `${NO_ASSIGNEE} AND ${NO_LABEL}`],
    ['label_id__isnull=true&priority=high', `${NO_LABEL} AND w.priority = 'high'`],
    ['assignee_id__isnull=true&state_group=started', `${NO_ASSIGNEE} AND w.state_id = '{started}'`],
    ['label_id__isnull=true&order_by=priority', NO_LABEL, PRIORITY_ORDER],
    ['assignee_id__isnull=true&order_by=priority', NO_ASSIGNEE, PRIORITY_ORDER],
  ];

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

  /** No drift, and every case's page, total, second offset page and (created_at order) cursor walk are plain SQL's. */
  async function check(step: string) {
    expect({ step, drift: await drift() }).toEqual({ step, drift: [] });
    for (const [qs, rawCond, order] of CASES) {
      const cond = rawCond.replace('{started}', states.started);
      const want = await oracle(cond, order);
      const page = await get(`per_page=200&${qs}`);
      const shape = { step, qs, total: page.total_count, names: page.data.map((r: any) => r.name) };
      expect(shape).toEqual({ step, qs, total: want.length, names: want });
      const second = await get(`per_page=2&offset=2&${qs}`);
      expect({ step, qs, second: second.data.map((r: any) => r.name) }).toEqual({ step, qs, second: want.slice(2, 4) });
      if (!order) expect({ step, qs, walked: await walk(qs) }).toEqual({ step, qs, walked: want });
    }
  }

  it('hold exactly the live items without links after every kind of write', async () => {
    const me = ten.owner.id;
    const a = await create('a', { assignee_ids: [me], label_ids: [red], priority: 'high' });
    const b = await create('b', { state_id: states.started, priority: 'high' });
    const c = await create('c', { label_ids: [red, blue] });
    const d = await create('d', { assignee_ids: [me], state_id: states.started });
    const e = await create('e', { priority: 'high' });
    await check('created');
    // First links come: the gap rows go.
    await patch(b, { assignee_ids: [me] });
    await patch(e, { label_ids: [blue] });
    await check('first links added');
    // Last links go: the gap rows come back; a link replaced by another leaves none.
    await patch(a, { assignee_ids: [], label_ids: [blue] });
    await patch(c, { label_ids: [red] });
    await patch(c, { label_ids: [] });
    await check('last links removed');
    await t.http.post(`${base}${d}/archive/`).set(key()).expect(200);
    await check('archived');
    await t.http.post(`${base}${d}/unarchive/`).set(key()).expect(200);
    await check('unarchived');
    await t.http.delete(`${base}${b}/`).set(key()).expect(204);
    await check('deleted');
    // A label deleted strips its items: those left without a label get their row.
    await patch(a, { label_ids: [red, blue] });
    await t.http.delete(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/${blue}/`).set(key()).expect(204);
    await check('label deleted');
    // Bulk writes: create (items with and without links in one statement), update of link sets, delete.
    const made = await t.http
      .post(`${base}bulk-create/`)
      .set(key())
      .send({
        items: [
          { name: 'f', assignee_ids: [me] },
          { name: 'g', label_ids: [red] },
          { name: 'h', priority: 'high' },
        ],
      });
    expect(made.status).toBe(200);
    const [f, g, h] = made.body.results.map((r: any) => r.id);
    await check('bulk created');
    await t.http
      .post(`${base}bulk-update/`)
      .set(key())
      .send({
        items: [
          { id: f, assignee_ids: [], label_ids: [red] },
          { id: g, assignee_ids: [me] },
          { id: h, label_ids: [red] },
        ],
      })
      .expect(200);
    await check('bulk updated');
    await t.http
      .post(`${base}bulk-delete/`)
      .set(key())
      .send({ ids: [g, h] })
      .expect(200);
    await check('bulk deleted');
    // Plain SQL: an item and its links in one statement (the create's shape), links added and removed by hand.
    await t.ds.query(
      `WITH item AS (
         INSERT INTO work_items (workspace_id, project_id, sequence_id, name, priority, state_id, sort_order, created_by_id, updated_by_id)
         SELECT $1, $2, wt_next_work_item_sequence($1, $2), 'i', 'none', $3, 1, $4, $4 RETURNING *
       )
       INSERT INTO work_item_labels (work_item_id, label_id, workspace_id, project_id) SELECT item.id, $5, $1, $2 FROM item`,
      [ten.workspaceId, pid, states.backlog, me, red],
    );
    await t.ds.query(
      `INSERT INTO work_item_assignees (work_item_id, assignee_id, workspace_id, project_id)
       SELECT id, $2, workspace_id, project_id FROM work_items WHERE project_id = $1 AND name IN ('c', 'e')`,
      [pid, me],
    );
    await t.ds.query(`DELETE FROM work_item_labels WHERE workspace_id = $1 AND work_item_id = $2`, [
      ten.workspaceId,
      a,
    ]);
    await check('plain SQL');
    expect((await get('label_id__isnull=true')).total_count).toBeGreaterThan(1);
  });

  it('the workspace list counts them off the same counters', async () => {
    const url = `/api/v2/workspaces/${ten.slug}/work-items/`;
    for (const qs of ['assignee_id__isnull=true', 'label_id__isnull=true']) {
      const ws = await t.http.get(`${url}?${qs}&per_page=200`).set(key());
      expect(ws.status).toBe(200);
      expect(ws.body.total_count).toBe(ws.body.data.length);
      expect(ws.body.total_count).toBe((await get(qs)).total_count);
    }
  });

  /** Two connections of their own, each in a transaction. */
  async function twoTransactions(): Promise<[QueryRunner, QueryRunner]> {
    const pair: [QueryRunner, QueryRunner] = [t.ds.createQueryRunner(), t.ds.createQueryRunner()];
    for (const qr of pair) {
      await qr.connect();
      await qr.startTransaction();
    }
    return pair;
  }
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /**
   * `first` runs in one transaction, then `second` in another while the first is still open; the first commits
   * 300 ms later, then the second. Without the items' locks the second's trigger would run at once, not seeing the
   * first's uncommitted link change, and decide on a stale view.
   */
  async function concurrently(first: string, second: string) {
    const [one, two] = await twoTransactions();
    try {
      await one.query(first);
      const pending = two.query(second);
      await sleep(300);
      await one.commitTransaction();
      await pending;
      await two.commitTransaction();
    } finally {
      await one.release();
      await two.release();
    }
  }

  it('stays right when two transactions change one item’s links at once', async () => {
    const me = ten.owner.id;
    const other = (await t.member(ten.slug, 'member')).id;
    await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/members/`)
      .set(key())
      .send({ member_id: other, role: 'contributor' })
      .expect(201);
    // Ids are uuids the test made: written into the statements as literals.
    const del = (item: string, who: string) =>
      `DELETE FROM work_item_assignees WHERE workspace_id = '${ten.workspaceId}' AND work_item_id = '${item}' AND assignee_id = '${who}'`;
    const add = (item: string, who: string) =>
      `INSERT INTO work_item_assignees (work_item_id, assignee_id, workspace_id, project_id) VALUES ('${item}', '${who}', '${ten.workspaceId}', '${pid}')`;
    // Each removes one of the item's two assignees: the second must see the first's removal and add the gap row.
    const x = await create('x', { assignee_ids: [me, other] });
    await concurrently(del(x, me), del(x, other));
    expect(await drift()).toEqual([]);
    expect((await get('assignee_id__isnull=true&per_page=200')).data.map((r: any) => r.name)).toContain('x');
    // One adds an assignee while the other removes the only one: the removal must see the new link (no gap row).
    const y = await create('y', { assignee_ids: [me] });
    await concurrently(add(y, other), del(y, me));
    expect(await drift()).toEqual([]);
    // The other order: the removal first, then the add must find the gap row it left and delete it.
    const z = await create('z', { assignee_ids: [me] });
    await concurrently(del(z, me), add(z, other));
    expect(await drift()).toEqual([]);
    expect((await get('assignee_id__isnull=true&per_page=200')).data.map((r: any) => r.name)).not.toContain('z');
  });

  it('a label deletion and a PATCH of one of its items do not deadlock', async () => {
    const green = (
      await t.http.post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/`).set(key()).send({ name: 'green' })
    ).body.id;
    const item = await create('carrier', { label_ids: [green] });
    const qr = t.ds.createQueryRunner();
    await qr.connect();
    await qr.startTransaction();
    try {
      // A PATCH's order: its item locked, then (after a while) its labels FOR KEY SHARE.
      await qr.query(`SELECT 1 FROM work_items WHERE workspace_id = $1 AND id = $2 FOR UPDATE`, [
        ten.workspaceId,
        item,
      ]);
      const deletion = t.http.delete(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/${green}/`).set(key());
      const done = deletion.then((r) => r.status);
      await sleep(300);
      await qr.query(`SET LOCAL lock_timeout = '5s'`);
      await qr.query(`SELECT 1 FROM labels WHERE workspace_id = $1 AND id = $2 FOR KEY SHARE`, [
        ten.workspaceId,
        green,
      ]);
      await qr.commitTransaction();
      expect(await done).toBe(204);
    } finally {
      await qr.release();
    }
    expect(await drift()).toEqual([]);
  });
});
