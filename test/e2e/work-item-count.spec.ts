import { createTestApp, Tenant, TestApp } from '../helpers/test-app';

/** The unfiltered work item list sums project_work_item_counts; it must always equal a real COUNT. */
describe('work item total_count counter', () => {
  let t: TestApp;
  let ten: Tenant;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    const p = await t.project(ten.slug, ten.owner.key);
    base = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/work-items/`;
  });
  afterAll(() => t.close());

  const key = () => ({ 'X-Api-Key': ten.owner.key });
  async function totals(): Promise<[number, number]> {
    const plain = await t.http.get(`${base}?per_page=1`).set(key());
    // A filter that matches every item forces the COUNT(*) path.
    const counted = await t.http.get(`${base}?per_page=1&priority__in=urgent,high,medium,low,none`).set(key());
    expect(plain.status).toBe(200);
    return [plain.body.total_count, counted.body.total_count];
  }

  it('follows creates, archive, unarchive, delete and bulk inserts', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.http.post(base).set(key()).send({ name: `Item ${i}` });
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
    const [proj] = await t.ds.query(`SELECT project_id, workspace_id, state_id FROM work_items WHERE id = $1`, [ids[2]]);
    await t.ds.query(
      `INSERT INTO work_items (workspace_id, project_id, name, state_id) SELECT $1, $2, 'bulk ' || g, $3 FROM generate_series(1, 50) g`,
      [proj.workspace_id, proj.project_id, proj.state_id],
    );
    expect(await totals()).toEqual([54, 54]);
  });

  it('stays exact under concurrent creates, archives and deletes (counts spread over slots)', async () => {
    const before = (await totals())[0];
    const made = await Promise.all(Array.from({ length: 40 }, (_, i) => t.http.post(base).set(key()).send({ name: `Parallel ${i}` })));
    expect(made.map((r) => r.status)).toEqual(Array(40).fill(201));
    await Promise.all(made.slice(0, 10).map((r) => t.http.post(`${base}${r.body.id}/archive/`).set(key())));
    await Promise.all(made.slice(10, 15).map((r) => t.http.delete(`${base}${r.body.id}/`).set(key())));
    expect(await totals()).toEqual([before + 25, before + 25]);
    // Sequence numbers taken outside the insert transaction are still distinct.
    expect(new Set(made.map((r) => r.body.sequence_id)).size).toBe(40);
  });
});
