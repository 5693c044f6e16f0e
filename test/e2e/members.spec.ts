import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

type User = { id: string; email: string; key: string };

/** Project member writes: the role hierarchy of gap-reference section 6, role caps, expand. */
describe('project members: hierarchy and role caps', () => {
  let t: TestApp;
  let ten: Tenant;
  let ws: string;
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    ws = `/api/v2/workspaces/${ten.slug}`;
  });
  afterAll(() => t.close());

  const k = (u: { key: string } = ten.owner) => ({ 'X-Api-Key': u.key });
  const fields = (body: Record<string, any>) => body.errors.map((e: { field: string }) => e.field);

  /** A project created by a plain workspace member (its project admin), with a second project admin. */
  async function setup() {
    const padmin = await t.member(ten.slug, 'member');
    const p = await t.project(ten.slug, padmin.key);
    const url = `${ws}/projects/${p.id}/members/`;
    const padmin2 = await t.member(ten.slug, 'member');
    const add = async (u: User, role: string, actor: { key: string } = ten.owner) => {
      const res = await t.http.post(url).set(k(actor)).send({ member_id: u.id, role });
      if (res.status !== 201) throw new Error(`add failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.id as string;
    };
    const padmin2Row = await add(padmin2, 'admin');
    const roster = (await t.http.get(url).set(k())).body.data as Array<{ id: string; member_id: string; role: string }>;
    const padminRow = roster.find((r) => r.member_id === padmin.id)!.id;
    return { p, url, padmin, padmin2, padminRow, padmin2Row, add };
  }

  it('a project admin cannot demote, change or remove another project admin (403), nor themselves', async () => {
    const { url, padmin, padminRow, padmin2Row } = await setup();
    for (const role of ['contributor', 'commenter', 'guest', 'admin']) {
      expectProblem(await t.http.patch(`${url}${padmin2Row}/`).set(k(padmin)).send({ role }), 403, 'forbidden');
    }
    expectProblem(await t.http.delete(`${url}${padmin2Row}/`).set(k(padmin)), 403, 'forbidden');
    expectProblem(await t.http.patch(`${url}${padminRow}/`).set(k(padmin)).send({ role: 'contributor' }), 403, 'forbidden');
    // Nothing changed.
    expect((await t.http.get(`${url}${padmin2Row}/`).set(k())).body.role).toBe('admin');
    // A workspace owner or admin can.
    const wsAdmin = await t.member(ten.slug, 'admin');
    const demoted = await t.http.patch(`${url}${padmin2Row}/`).set(k(wsAdmin)).send({ role: 'contributor' });
    expect(demoted.status).toBe(200);
    expect(demoted.body.role).toBe('contributor');
  });

  it('a project admin manages members below them and grants only roles below their own', async () => {
    const { url, padmin, add } = await setup();
    const m = await t.member(ten.slug, 'member');
    const res = await t.http.post(url).set(k(padmin)).send({ member_id: m.id, role: 'contributor' });
    expect(res.status).toBe(201);
    const row = res.body.id;
    expect((await t.http.patch(`${url}${row}/`).set(k(padmin)).send({ role: 'commenter' })).body.role).toBe('commenter');
    // Granting admin (their own level) is refused, on POST and PATCH.
    expectProblem(await t.http.patch(`${url}${row}/`).set(k(padmin)).send({ role: 'admin' }), 403, 'forbidden');
    const m2 = await t.member(ten.slug, 'member');
    expectProblem(await t.http.post(url).set(k(padmin)).send({ member_id: m2.id, role: 'admin' }), 403, 'forbidden');
    expect((await t.http.get(`${url}?member_id=${m2.id}`).set(k())).body.data).toEqual([]);
    expect((await t.http.delete(`${url}${row}/`).set(k(padmin))).status).toBe(204);
    // A workspace owner grants admin.
    expect(await add(m2, 'admin')).toEqual(expect.any(String));
  });

  it('a project admin who is a workspace member cannot add or touch a workspace admin or owner (403)', async () => {
    const { url, padmin, add } = await setup();
    const wsAdmin = await t.member(ten.slug, 'admin');
    for (const target of [wsAdmin, ten.owner]) {
      for (const role of ['guest', 'commenter', 'contributor', 'admin']) {
        expectProblem(await t.http.post(url).set(k(padmin)).send({ member_id: target.id, role }), 403, 'forbidden');
      }
    }
    expect((await t.http.get(`${url}?member_id=${wsAdmin.id}`).set(k())).body.data).toEqual([]);
    const row = await add(wsAdmin, 'admin');
    expectProblem(await t.http.patch(`${url}${row}/`).set(k(padmin)).send({ role: 'guest' }), 403, 'forbidden');
    expectProblem(await t.http.delete(`${url}${row}/`).set(k(padmin)), 403, 'forbidden');
  });

  it('only workspace owners manage the project memberships of workspace owners', async () => {
    const { url, add } = await setup();
    const owner2 = await t.member(ten.slug, 'owner');
    const wsAdmin = await t.member(ten.slug, 'admin');
    expectProblem(await t.http.post(url).set(k(wsAdmin)).send({ member_id: owner2.id, role: 'admin' }), 403, 'forbidden');
    const row = await add(owner2, 'admin');
    expectProblem(await t.http.delete(`${url}${row}/`).set(k(wsAdmin)), 403, 'forbidden');
    expect((await t.http.delete(`${url}${row}/`).set(k())).status).toBe(204);
    // Workspace admins manage other workspace admins' memberships.
    const wsAdmin2 = await t.member(ten.slug, 'admin');
    const r2 = await t.http.post(url).set(k(wsAdmin)).send({ member_id: wsAdmin2.id, role: 'admin' });
    expect(r2.status).toBe(201);
    expect((await t.http.delete(`${url}${r2.body.id}/`).set(k(wsAdmin))).status).toBe(204);
  });

  it('workspace owners and admins can only be project admins (400 naming role), even when added by the owner', async () => {
    const { url, add } = await setup();
    const wsAdmin = await t.member(ten.slug, 'admin');
    const owner2 = await t.member(ten.slug, 'owner');
    for (const target of [wsAdmin, owner2]) {
      for (const role of ['guest', 'commenter', 'contributor']) {
        const res = expectProblem(await t.http.post(url).set(k()).send({ member_id: target.id, role }), 400, 'validation_error');
        expect(fields(res)).toEqual(['role']);
      }
    }
    const row = await add(wsAdmin, 'admin');
    const res = expectProblem(await t.http.patch(`${url}${row}/`).set(k()).send({ role: 'guest' }), 400, 'validation_error');
    expect(fields(res)).toEqual(['role']);
    expect((await t.http.get(`${url}${row}/`).set(k())).body.role).toBe('admin');
  });

  it('POST and PATCH accept expand=member (like every member route returning a row) and reject other values', async () => {
    const { url } = await setup();
    const m = await t.member(ten.slug, 'member');
    const created = await t.http.post(`${url}?expand=member`).set(k()).send({ member_id: m.id, role: 'guest' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), member_id: m.id, role: 'guest', member: { id: m.id, display_name: 'Test User', avatar_url: null, email: m.email } });
    const patched = await t.http.patch(`${url}${created.body.id}/?expand=member`).set(k()).send({ role: 'commenter' });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created.body, role: 'commenter' });
    // Without expand, the flat row.
    expect((await t.http.patch(`${url}${created.body.id}/`).set(k()).send({ role: 'guest' })).body).toEqual({ id: created.body.id, member_id: m.id, role: 'guest' });
    for (const bad of ['user', 'project', 'role']) {
      const m2 = await t.member(ten.slug, 'member');
      expect(fields(expectProblem(await t.http.post(`${url}?expand=${bad}`).set(k()).send({ member_id: m2.id, role: 'guest' }), 400, 'validation_error'))).toEqual(['expand']);
      expect(fields(expectProblem(await t.http.patch(`${url}${created.body.id}/?expand=${bad}`).set(k()).send({ role: 'guest' }), 400, 'validation_error'))).toEqual(['expand']);
    }
    // The workspace member PATCH behaves the same.
    const wsRow = (await t.http.get(`${ws}/members/?member_id=${m.id}`).set(k())).body.data[0].id;
    const wsPatched = await t.http.patch(`${ws}/members/${wsRow}/?expand=member`).set(k()).send({ role: 'member' });
    expect(wsPatched.body.member).toEqual({ id: m.id, display_name: 'Test User', avatar_url: null, email: m.email });
  });
});
