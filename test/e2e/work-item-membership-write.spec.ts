import { randomUUID } from 'node:crypto';
import { createTestApp, errorFields, expectProblem, Tenant, TestApp } from '../helpers/test-app';

/**
 * cycle_id and module_ids on work item writes (the later edition; issue 19): create, PATCH, bulk-create, bulk-update
 * and upsert place the item with the cycle and module membership routes' rules, in the write's transaction.
 */
describe('cycle_id and module_ids on work item writes', () => {
  let t: TestApp;
  let ten: Tenant;
  let base: string;
  let c1: string;
  let c2: string;
  let m1: string;
  let m2: string;
  let foreignCycle: string;
  let foreignModule: string;
  const key = () => ({ 'X-Api-Key': ten.owner.key });
  const post = (path: string, body: unknown) =>
    t.http
      .post(`${base}${path}`)
      .set(key())
      .send(body as object);
  const item = async (id: string) => (await t.http.get(`${base}work-items/${id}/`).set(key())).body;
  const count = async () => (await t.http.get(`${base}work-items/?per_page=1`).set(key())).body.total_count as number;

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    const pid = (await t.project(ten.slug, ten.owner.key)).id;
    base = `/api/v2/workspaces/${ten.slug}/projects/${pid}/`;
    c1 = (await post('cycles/', { name: 'C1' })).body.id;
    c2 = (await post('cycles/', { name: 'C2' })).body.id;
    m1 = (await post('modules/', { name: 'M1' })).body.id;
    m2 = (await post('modules/', { name: 'M2' })).body.id;
    const other = (await t.project(ten.slug, ten.owner.key)).id;
    const otherBase = `/api/v2/workspaces/${ten.slug}/projects/${other}/`;
    foreignCycle = (await t.http.post(`${otherBase}cycles/`).set(key()).send({ name: 'F' })).body.id;
    foreignModule = (await t.http.post(`${otherBase}modules/`).set(key()).send({ name: 'F' })).body.id;
  });
  afterAll(() => t.close());

  it('create places the item; the read shape, the cycle and the module lists agree', async () => {
    const r = await post('work-items/', { name: 'placed', cycle_id: c1.toUpperCase(), module_ids: [m2, m1, m1] });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ cycle_id: c1, module_ids: [m1, m2].sort() });
    expect(await item(r.body.id)).toMatchObject({ cycle_id: c1, module_ids: [m1, m2].sort() });
    const inCycle = await t.http.get(`${base}work-items/?cycle_id=${c1}`).set(key());
    expect(inCycle.body.data.map((w: { id: string }) => w.id)).toContain(r.body.id);
  });

  it('PATCH moves the item to another cycle, replaces the module set; null / [] clear; omitted leaves them', async () => {
    const id = (await post('work-items/', { name: 'moved', cycle_id: c1, module_ids: [m1] })).body.id;
    const moved = await t.http
      .patch(`${base}work-items/${id}/`)
      .set(key())
      .send({ cycle_id: c2, module_ids: [m2] });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ cycle_id: c2, module_ids: [m2] });
    const kept = await t.http.patch(`${base}work-items/${id}/`).set(key()).send({ name: 'renamed' });
    expect(kept.body).toMatchObject({ cycle_id: c2, module_ids: [m2] });
    const cleared = await t.http
      .patch(`${base}work-items/${id}/`)
      .set(key())
      .send({ cycle_id: null, module_ids: null });
    expect(cleared.body).toMatchObject({ cycle_id: null, module_ids: [] });
    expect(await item(id)).toMatchObject({ cycle_id: null, module_ids: [] });
  });

  it('another project’s or an unknown cycle or module is 400 naming the field, and nothing is written', async () => {
    const before = await count();
    for (const [body, field] of [
      [{ cycle_id: foreignCycle }, 'cycle_id'],
      [{ cycle_id: randomUUID() }, 'cycle_id'],
      [{ module_ids: [m1, foreignModule] }, 'module_ids'],
      [{ cycle_id: 'nope' }, 'cycle_id'],
      [{ module_ids: ['nope'] }, 'module_ids'],
    ] as const) {
      const res = await post('work-items/', { name: 'refused', ...body });
      expect(errorFields(expectProblem(res, 400, 'validation_error'))).toEqual([field]);
    }
    expect(await count()).toBe(before);
    const id = (await post('work-items/', { name: 'stays', cycle_id: c1, module_ids: [m1] })).body.id;
    const res = await t.http
      .patch(`${base}work-items/${id}/`)
      .set(key())
      .send({ name: 'changed?', module_ids: [foreignModule] });
    expectProblem(res, 400, 'validation_error');
    expect(await item(id)).toMatchObject({ name: 'stays', cycle_id: c1, module_ids: [m1] });
  });

  it('a deleted cycle or module is refused like an unknown one', async () => {
    const gone = (await post('cycles/', { name: 'Gone' })).body.id;
    expect((await t.http.delete(`${base}cycles/${gone}/`).set(key())).status).toBe(204);
    expect(
      errorFields(expectProblem(await post('work-items/', { name: 'x', cycle_id: gone }), 400, 'validation_error')),
    ).toEqual(['cycle_id']);
  });

  it('with the cycles or modules feature off, naming one is 400; null and [] still pass', async () => {
    const p = (await t.project(ten.slug, ten.owner.key)).id;
    const b = `/api/v2/workspaces/${ten.slug}/projects/${p}/`;
    const cyc = (await t.http.post(`${b}cycles/`).set(key()).send({ name: 'C' })).body.id;
    const mod = (await t.http.post(`${b}modules/`).set(key()).send({ name: 'M' })).body.id;
    const off = await t.http
      .patch(`${b}features/`)
      .set(key())
      .send({ is_cycles_enabled: false, is_modules_enabled: false });
    expect(off.status).toBe(200);
    const c = await t.http.post(`${b}work-items/`).set(key()).send({ name: 'x', cycle_id: cyc });
    expect(errorFields(expectProblem(c, 400, 'validation_error'))).toEqual(['cycle_id']);
    const m = await t.http
      .post(`${b}work-items/`)
      .set(key())
      .send({ name: 'x', module_ids: [mod] });
    expect(errorFields(expectProblem(m, 400, 'validation_error'))).toEqual(['module_ids']);
    const ok = await t.http.post(`${b}work-items/`).set(key()).send({ name: 'x', cycle_id: null, module_ids: [] });
    expect(ok.status).toBe(201);
  });

  it('bulk-create places each row; a row naming a foreign cycle fails alone', async () => {
    const res = await post('work-items/bulk-create/', {
      items: [
        { name: 'b1', cycle_id: c1, module_ids: [m1] },
        { name: 'b2', cycle_id: foreignCycle },
        { name: 'b3', cycle_id: c2 },
        { name: 'b4' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { result: string }) => r.result)).toEqual([
      'created',
      'failed',
      'created',
      'created',
    ]);
    expect(res.body.results[1].errors[0].field).toBe('cycle_id');
    const [a, , b, c] = res.body.results.map((r: { id: string }) => r.id);
    expect(await item(a)).toMatchObject({ cycle_id: c1, module_ids: [m1] });
    expect(await item(b)).toMatchObject({ cycle_id: c2, module_ids: [] });
    expect(await item(c)).toMatchObject({ cycle_id: null, module_ids: [] });
  });

  it('bulk-update places each row; all_or_none rolls the membership back with the rest', async () => {
    const made = await post('work-items/bulk-create/', { items: [{ name: 'u1' }, { name: 'u2' }] });
    const [a, b] = made.body.results.map((r: { id: string }) => r.id);
    const res = await post('work-items/bulk-update/', {
      items: [
        { id: a, cycle_id: c1, module_ids: [m1, m2] },
        { id: b, module_ids: [foreignModule] },
      ],
    });
    expect(res.body.results.map((r: { result: string }) => r.result)).toEqual(['updated', 'failed']);
    expect(await item(a)).toMatchObject({ cycle_id: c1, module_ids: [m1, m2].sort() });
    const aon = await post('work-items/bulk-update/', {
      items: [
        { id: a, cycle_id: c2, module_ids: [] },
        { id: b, cycle_id: foreignCycle },
      ],
      all_or_none: true,
    });
    expectProblem(aon, 409, 'conflict');
    expect(await item(a)).toMatchObject({ cycle_id: c1, module_ids: [m1, m2].sort() });
  });

  it('upsert places the item on create and on update', async () => {
    const pair = { external_source: 'jira', external_id: `M-${randomUUID()}` };
    const first = await post('work-items/upsert/', { name: 'up', cycle_id: c1, ...pair });
    expect(first.status).toBe(201);
    expect(first.body.cycle_id).toBe(c1);
    const second = await post('work-items/upsert/', { name: 'up', cycle_id: c2, module_ids: [m2], ...pair });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ id: first.body.id, cycle_id: c2, module_ids: [m2] });
  });
});
