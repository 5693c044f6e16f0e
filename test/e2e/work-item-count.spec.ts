import { createTestApp, Tenant, TestApp } from '../helpers/test-app';

/** The unfiltered work item list reads projects.live_work_items; it must always equal a real COUNT. */
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
});
