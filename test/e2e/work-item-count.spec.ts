import { Client } from 'pg';
import { COUNTER_SLOTS } from '../../migrations/1795850000000-CounterSlotLeases';
import { createTestApp, Tenant, TestApp } from '../helpers/test-app';

/**
 * The unfiltered work item list sums project_work_item_counts, and a list filtered by state, state group and
 * priority only sums work_item_state_priority_counts; both must always equal a real COUNT.
 */
describe('work item total_count counters', () => {
  let t: TestApp;
  let ten: Tenant;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    const p = await t.project(ten.slug, ten.owner.key);
    pid = p.id;
    base = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/work-items/`;
    const st = await t.http
      .get(`/api/v2/workspaces/${ten.slug}/projects/${p.id}/states/`)
      .set({ 'X-Api-Key': ten.owner.key });
    states = Object.fromEntries(st.body.data.map((x: any) => [x.group, x.id]));
  });
  afterAll(() => t.close());

  const key = () => ({ 'X-Api-Key': ten.owner.key });
  let pid = '';
  let states: Record<string, string> = {};
  /** The unfiltered total, and a real COUNT of the project's live items. */
  async function totals(): Promise<[number, number]> {
    const plain = await t.http.get(`${base}?per_page=1`).set(key());
    expect(plain.status).toBe(200);
    const [{ c }] = await t.ds.query(
      `SELECT count(*)::int AS c FROM work_items WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL`,
      [pid],
    );
    return [plain.body.total_count, c];
  }
  /** Filter combinations the state/priority counters answer, each against a real COUNT: the mismatches. */
  async function filteredMismatches(): Promise<unknown[]> {
    const out: unknown[] = [];
    const g = (name: string) => states[name];
    const cases: Array<[string, string, unknown[]]> = [
      ['priority=high', `w.priority = 'high'`, []],
      ['priority__in=urgent,high,medium,low,none', 'true', []],
      ['priority__in=low,none', `w.priority IN ('low', 'none')`, []],
      [`state_id=${g('started')}`, 'w.state_id = $2', [g('started')]],
      [`state_id__in=${g('started')},${g('backlog')}`, 'w.state_id = ANY($2::uuid[])', [[g('started'), g('backlog')]]],
      ['state_group=started', `w.state_id IN (SELECT id FROM states WHERE "group" = 'started')`, []],
      [
        'state_group__in=backlog,completed&priority=high',
        `w.state_id IN (SELECT id FROM states WHERE "group" IN ('backlog', 'completed')) AND w.priority = 'high'`,
        [],
      ],
      [
        `state_id=${g('started')}&priority__in=urgent,high&state_group=started`,
        `w.state_id = $2 AND w.priority IN ('urgent', 'high')`,
        [g('started')],
      ],
      [`state_id=${g('started')}&state_group=backlog`, 'false', []],
    ];
    for (const [qs, cond, params] of cases) {
      const res = await t.http.get(`${base}?per_page=200&${qs}`).set(key());
      expect(res.status).toBe(200);
      const ids: string[] = (
        await t.ds.query(
          `SELECT id FROM work_items w WHERE w.project_id = $1 AND w.deleted_at IS NULL AND w.archived_at IS NULL AND ${cond} ORDER BY created_at DESC, id DESC`,
          [pid, ...params],
        )
      ).map((r: { id: string }) => r.id);
      expect(ids.length).toBeLessThan(200);
      // The page (the filter itself) and the total (the counters) both against the SQL.
      const page = res.body.data.map((x: { id: string }) => x.id);
      if (res.body.total_count !== ids.length || page.join() !== ids.join())
        out.push({ qs, api: res.body.total_count, sql: ids.length, samePage: page.join() === ids.join() });
    }
    return out;
  }

  it('follows creates, archive, unarchive, delete and bulk inserts', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.http
        .post(base)
        .set(key())
        .send({ name: `Item ${i}` });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    expect(await totals()).toEqual([5, 5]);
    // The counter is read by the page statement; a page past the end has no row to carry it.
    const past = await t.http.get(`${base}?offset=100`).set(key());
    expect(past.body).toMatchObject({ data: [], total_count: 5 });
    expect((await t.http.post(`${base}${ids[0]}/archive/`).set(key())).status).toBe(200);
    expect(await totals()).toEqual([4, 4]);
    expect((await t.http.post(`${base}${ids[0]}/unarchive/`).set(key())).status).toBe(200);
    expect((await t.http.post(`${base}${ids[0]}/unarchive/`).set(key())).status).toBe(200);
    expect(await totals()).toEqual([5, 5]);
    expect((await t.http.delete(`${base}${ids[1]}/`).set(key())).status).toBe(204);
    expect(await totals()).toEqual([4, 4]);
    expect((await t.http.patch(`${base}${ids[2]}/`).set(key()).send({ name: 'renamed' })).status).toBe(200);
    expect(await totals()).toEqual([4, 4]);
    const [proj] = await t.ds.query(`SELECT project_id, workspace_id, state_id FROM work_items WHERE id = $1`, [
      ids[2],
    ]);
    await t.ds.query(
      `INSERT INTO work_items (workspace_id, project_id, name, state_id) SELECT $1, $2, 'bulk ' || g, $3 FROM generate_series(1, 50) g`,
      [proj.workspace_id, proj.project_id, proj.state_id],
    );
    expect(await totals()).toEqual([54, 54]);
    expect(await filteredMismatches()).toEqual([]);
  });

  it('filtered by state, state group and priority: exact after state and priority changes, archive, delete, a state group change', async () => {
    const mk = async (i: number) => {
      const r = await t.http
        .post(base)
        .set(key())
        .send({
          name: `sp ${i}`,
          priority: ['urgent', 'high', 'low'][i % 3],
          state_id: i % 2 ? states.started : states.backlog,
        });
      expect(r.status).toBe(201);
      return r.body.id as string;
    };
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => mk(i)));
    expect(await filteredMismatches()).toEqual([]);
    await Promise.all([
      t.http.patch(`${base}${ids[0]}/`).set(key()).send({ state_id: states.completed }),
      t.http.patch(`${base}${ids[1]}/`).set(key()).send({ priority: 'medium' }),
      t.http.patch(`${base}${ids[2]}/`).set(key()).send({ state_id: states.started, priority: 'none' }),
      t.http.patch(`${base}${ids[3]}/`).set(key()).send({ name: 'only the name' }),
      t.http.post(`${base}${ids[4]}/archive/`).set(key()),
      t.http.delete(`${base}${ids[5]}/`).set(key()),
    ]);
    expect(await filteredMismatches()).toEqual([]);
    expect((await t.http.post(`${base}${ids[4]}/unarchive/`).set(key())).status).toBe(200);
    expect(await filteredMismatches()).toEqual([]);
    // A state's group change moves nothing in the counters (they count states), and the group filter follows.
    const pth = `/api/v2/workspaces/${ten.slug}/projects/${pid}/states/${states.completed}/`;
    expect((await t.http.patch(pth).set(key()).send({ group: 'cancelled' })).status).toBe(200);
    expect(await filteredMismatches()).toEqual([]);
    expect((await t.http.patch(pth).set(key()).send({ group: 'completed' })).status).toBe(200);
    // The counters equal a recount of the live items.
    const drift = await t.ds.query(
      `WITH kept AS (SELECT project_id, state_id, priority, sum(n)::int AS n FROM work_item_state_priority_counts GROUP BY 1, 2, 3),
            live AS (SELECT project_id, state_id, priority, count(*)::int AS n FROM work_items WHERE deleted_at IS NULL AND archived_at IS NULL GROUP BY 1, 2, 3)
       SELECT * FROM kept FULL JOIN live USING (project_id, state_id, priority) WHERE coalesce(kept.n, 0) <> coalesce(live.n, 0)`,
    );
    expect(drift).toEqual([]);
  });

  /** `n` creates sent at once (bodies from `body(i)`), each required to answer 201. */
  async function createConcurrently(n: number, body: (i: number) => object) {
    const made = await Promise.all(Array.from({ length: n }, (_, i) => t.http.post(base).set(key()).send(body(i))));
    expect(made.map((r) => r.status)).toEqual(Array(n).fill(201));
    return made;
  }

  it('stays exact under concurrent creates, archives and deletes (counts spread over slots)', async () => {
    const before = (await totals())[0];
    const made = await createConcurrently(40, (i) => ({ name: `Parallel ${i}` }));
    await Promise.all(made.slice(0, 10).map((r) => t.http.post(`${base}${r.body.id}/archive/`).set(key())));
    await Promise.all(made.slice(10, 15).map((r) => t.http.delete(`${base}${r.body.id}/`).set(key())));
    expect(await totals()).toEqual([before + 25, before + 25]);
    // Sequence numbers taken outside the insert transaction are still distinct.
    expect(new Set(made.map((r) => r.body.sequence_id)).size).toBe(40);
  });

  it('concurrent write transactions never wait for one another on a counter row (each leases its own slot)', async () => {
    const before = (await totals())[0];
    const made = await createConcurrently(20, (i) => ({ name: `Leased ${i}`, assignee_ids: [ten.owner.id] }));
    // Twenty connections at once: more than the 16 slots the backends' process ids used to pick, so two of them
    // always shared counter rows and the later one waited for the earlier one's commit. Each archive below writes
    // the project's, the state and priority's, the assignee's and the gap counters, and is left uncommitted.
    const clients = made.map(() => new Client({ connectionString: t.dbUrl }));
    try {
      for (const c of clients) await c.connect();
      for (const [i, c] of clients.entries()) {
        await c.query('BEGIN');
        await c.query(`SET LOCAL lock_timeout = '2s'`);
        const archived = await c.query(
          `UPDATE work_items SET archived_at = now() WHERE workspace_id = $1 AND id = $2`,
          [ten.workspaceId, made[i].body.id],
        );
        expect(archived.rowCount).toBe(1);
      }
      for (const c of clients) await c.query('COMMIT');
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    expect(await totals()).toEqual([before, before]);
    const drift = await t.ds.query(
      `WITH kept AS (SELECT assignee_id, project_id, state_group_rank, sum(n)::int AS n FROM work_item_assignee_counts GROUP BY 1, 2, 3),
            live AS (SELECT x.assignee_id, x.project_id, x.item_state_group_rank AS state_group_rank, count(*)::int AS n
                       FROM work_item_assignees x WHERE x.item_live GROUP BY 1, 2, 3)
       SELECT * FROM kept FULL JOIN live USING (assignee_id, project_id, state_group_rank) WHERE coalesce(kept.n, 0) <> coalesce(live.n, 0)`,
    );
    expect(drift).toEqual([]);
  });

  it('every counter trigger takes its slot from wt_counter_slot(), whose leases stay within COUNTER_SLOTS', async () => {
    const writers: Array<{ proname: string; leased: boolean }> = await t.ds.query(
      `SELECT p.proname, p.prosrc LIKE '%wt_counter_slot()%' AS leased FROM pg_proc p
         JOIN pg_namespace n ON n.oid = p.pronamespace AND n.nspname = 'public'
        WHERE p.prosrc ~ 'INSERT INTO (project_work_item_counts|work_item_[a-z_]+_counts)' ORDER BY 1`,
    );
    expect(writers.length).toBeGreaterThanOrEqual(16);
    expect(writers.filter((w) => !w.leased).map((w) => w.proname)).toEqual([]);
    const [{ slots }] = await t.ds.query(
      `SELECT array_agg(DISTINCT slot ORDER BY slot) AS slots FROM (
         SELECT slot FROM project_work_item_counts UNION ALL SELECT slot FROM work_item_state_priority_counts
         UNION ALL SELECT slot FROM work_item_assignee_counts UNION ALL SELECT slot FROM work_item_label_counts
         UNION ALL SELECT slot FROM work_item_gap_counts) s`,
    );
    expect(slots.every((s: number) => s >= 0 && s < COUNTER_SLOTS)).toBe(true);
  });
});
