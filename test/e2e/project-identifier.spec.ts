import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

/** A project addressed by its identifier wherever `{project_id}` stands (gap-reference 9.5, issue 19). */
describe('project addressed by identifier', () => {
  let t: TestApp;
  let ten: Tenant;
  let other: Tenant;
  let p: { id: string; identifier: string };
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });
  const ws = () => `/api/v2/workspaces/${ten.slug}/projects`;

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    other = await t.tenant();
    p = await t.project(ten.slug, ten.owner.key, { identifier: 'IDA' });
    await t.project(other.slug, other.owner.key, { identifier: 'FOR' });
  });
  afterAll(() => t.close());

  it('reads and writes under the identifier, in any case, as under the id', async () => {
    const byId = await t.http.get(`${ws()}/${p.id}/`).set(key());
    const byKey = await t.http.get(`${ws()}/IDA/`).set(key());
    const lower = await t.http.get(`${ws()}/ida/`).set(key());
    expect(byKey.status).toBe(200);
    expect(byKey.body).toEqual(byId.body);
    expect(lower.body.id).toBe(p.id);
    const created = await t.http.post(`${ws()}/IDA/work-items/`).set(key()).send({ name: 'by identifier' });
    expect(created.status).toBe(201);
    expect(created.body.project_id).toBe(p.id);
    const listed = await t.http.get(`${ws()}/${p.id}/work-items/`).set(key());
    expect(listed.body.data.map((w: { id: string }) => w.id)).toContain(created.body.id);
    const patched = await t.http.patch(`${ws()}/Ida/work-items/${created.body.id}/`).set(key()).send({ name: 'x' });
    expect(patched.status).toBe(200);
    expect((await t.http.get(`${ws()}/IDA/summary/`).set(key())).body.id).toBe(p.id);
  });

  it('an unknown identifier, or one of another workspace, is 404; a malformed segment is 400', async () => {
    expectProblem(await t.http.get(`${ws()}/NOPE/states/`).set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.get(`${ws()}/FOR/states/`).set(key()), 404, 'resource_not_found');
    const bad = expectProblem(await t.http.get(`${ws()}/not-a-key/states/`).set(key()), 400, 'validation_error');
    expect(bad.errors[0].field).toBe('project_id');
    expectProblem(await t.http.get(`${ws()}/TOOLONGIDENTIF/states/`).set(key()), 400, 'validation_error');
  });

  it('a renamed identifier addresses the project at once; the old one is 404', async () => {
    const q = await t.project(ten.slug, ten.owner.key, { identifier: 'OLDK' });
    expect((await t.http.get(`${ws()}/OLDK/`).set(key())).status).toBe(200);
    const r = await t.http.patch(`${ws()}/OLDK/`).set(key()).send({ identifier: 'NEWK' });
    expect(r.status).toBe(200);
    expect((await t.http.get(`${ws()}/NEWK/`).set(key())).body.id).toBe(q.id);
    expectProblem(await t.http.get(`${ws()}/OLDK/`).set(key()), 404, 'resource_not_found');
  });

  it('roles apply as under the id: a workspace member outside the project is refused alike', async () => {
    const outsider = await t.member(ten.slug, 'member');
    const byKey = await t.http.get(`${ws()}/IDA/states/`).set(key(outsider.key));
    const byId = await t.http.get(`${ws()}/${p.id}/states/`).set(key(outsider.key));
    expect(byKey.status).toBeGreaterThanOrEqual(403);
    expect([byKey.status, byKey.body.code]).toEqual([byId.status, byId.body.code]);
  });

  it('If-Match on a project PATCH addressed by identifier checks the project row version', async () => {
    const got = await t.http.get(`${ws()}/IDA/`).set(key());
    expect(got.headers.etag).toBeDefined();
    const stale = await t.http.patch(`${ws()}/IDA/`).set(key()).set('If-Match', '"999-x"').send({ name: 'n' });
    expect(stale.status).toBe(412);
    const ok = await t.http.patch(`${ws()}/IDA/`).set(key()).set('If-Match', got.headers.etag).send({ name: 'n2' });
    expect(ok.status).toBe(200);
  });
});
