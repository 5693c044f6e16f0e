import { createTestApp, expectProblem, Tenant, TestApp, errorFields } from '../helpers/test-app';

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
    expectProblem(
      await t.http.patch(`${url}${padminRow}/`).set(k(padmin)).send({ role: 'contributor' }),
      403,
      'forbidden',
    );
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
    expect((await t.http.patch(`${url}${row}/`).set(k(padmin)).send({ role: 'commenter' })).body.role).toBe(
      'commenter',
    );
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
    expectProblem(
      await t.http.post(url).set(k(wsAdmin)).send({ member_id: owner2.id, role: 'admin' }),
      403,
      'forbidden',
    );
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
        const res = expectProblem(
          await t.http.post(url).set(k()).send({ member_id: target.id, role }),
          400,
          'validation_error',
        );
        expect(errorFields(res)).toEqual(['role']);
      }
    }
    const row = await add(wsAdmin, 'admin');
    const res = expectProblem(
      await t.http.patch(`${url}${row}/`).set(k()).send({ role: 'guest' }),
      400,
      'validation_error',
    );
    expect(errorFields(res)).toEqual(['role']);
    expect((await t.http.get(`${url}${row}/`).set(k())).body.role).toBe('admin');
  });

  it('POST and PATCH accept expand=member (like every member route returning a row) and reject other values', async () => {
    const { url } = await setup();
    const m = await t.member(ten.slug, 'member');
    const created = await t.http.post(`${url}?expand=member`).set(k()).send({ member_id: m.id, role: 'guest' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      member_id: m.id,
      role: 'guest',
      member: { id: m.id, display_name: 'Test User', avatar_url: null, email: m.email },
    });
    const patched = await t.http.patch(`${url}${created.body.id}/?expand=member`).set(k()).send({ role: 'commenter' });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created.body, role: 'commenter' });
    // Without expand, the flat row.
    expect((await t.http.patch(`${url}${created.body.id}/`).set(k()).send({ role: 'guest' })).body).toEqual({
      id: created.body.id,
      member_id: m.id,
      role: 'guest',
    });
    for (const bad of ['user', 'project', 'role']) {
      const m2 = await t.member(ten.slug, 'member');
      expect(
        errorFields(
          expectProblem(
            await t.http.post(`${url}?expand=${bad}`).set(k()).send({ member_id: m2.id, role: 'guest' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['expand']);
      expect(
        errorFields(
          expectProblem(
            await t.http.patch(`${url}${created.body.id}/?expand=${bad}`).set(k()).send({ role: 'guest' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['expand']);
    }
    // The workspace member PATCH behaves the same.
    const wsRow = (await t.http.get(`${ws}/members/?member_id=${m.id}`).set(k())).body.data[0].id;
    const wsPatched = await t.http.patch(`${ws}/members/${wsRow}/?expand=member`).set(k()).send({ role: 'member' });
    expect(wsPatched.body.member).toEqual({ id: m.id, display_name: 'Test User', avatar_url: null, email: m.email });
  });
});

/** `POST /workspaces/{slug}/members/remove/ {email}`: the hierarchy of gap-reference section 6, the cascade, the failures. */
describe('workspace members: removal', () => {
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
  const remove = (body: Record<string, unknown>, actor: { key: string } = ten.owner) =>
    t.http.post(`${ws}/members/remove/`).set(k(actor)).send(body);
  const onRoster = async (u: User) =>
    (await t.http.get(`${ws}/members/?member_id=${u.id}`).set(k())).body.data.length === 1;

  it('204 with an empty body; the user leaves the workspace roster and every project roster, and sees nothing any more', async () => {
    const u = await t.member(ten.slug, 'member');
    const own = await t.project(ten.slug, u.key); // u is its admin
    const other = await t.project(ten.slug, ten.owner.key);
    expect(
      (await t.http.post(`${ws}/projects/${other.id}/members/`).set(k()).send({ member_id: u.id, role: 'contributor' }))
        .status,
    ).toBe(201);
    expect((await t.http.get(`${ws}/projects/`).set(k(u))).body.data).toHaveLength(2);

    const res = await remove({ email: u.email.toUpperCase(), remove_seat: true });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await onRoster(u)).toBe(false);
    for (const p of [own, other]) {
      expect((await t.http.get(`${ws}/projects/${p.id}/members/?member_id=${u.id}`).set(k())).body.data).toEqual([]);
    }
    // The tenant wall: their key no longer reaches the workspace or its projects.
    expectProblem(await t.http.get(`${ws}/projects/`).set(k(u)), 404, 'resource_not_found');
    expectProblem(await t.http.get(`${ws}/projects/${own.id}/`).set(k(u)), 404, 'resource_not_found');
    // A second removal: no longer a member.
    expect(errorFields(expectProblem(await remove({ email: u.email }), 400, 'validation_error'))).toEqual(['email']);
    // Added again later, the user starts over: no project membership comes back.
    await t.admin.addMember(ten.slug, u.email, 'member');
    expect(await onRoster(u)).toBe(true);
    expect((await t.http.get(`${ws}/projects/`).set(k(u))).body.data).toEqual([]);
  });

  it('admins remove members and guests, but not owners, other admins or themselves (403, nothing removed)', async () => {
    const admin = await t.member(ten.slug, 'admin');
    const admin2 = await t.member(ten.slug, 'admin');
    for (const role of ['member', 'guest']) {
      const u = await t.member(ten.slug, role);
      expect((await remove({ email: u.email }, admin)).status).toBe(204);
      expect(await onRoster(u)).toBe(false);
    }
    for (const target of [ten.owner, admin2, admin]) {
      expectProblem(await remove({ email: target.email }, admin), 403, 'forbidden');
      expect(await onRoster(target)).toBe(true);
    }
  });

  it('owners remove admins and other owners; the last owner cannot be removed (409)', async () => {
    const solo = await t.tenant();
    const soloRemove = (email: string, actor: { key: string } = solo.owner) =>
      t.http.post(`/api/v2/workspaces/${solo.slug}/members/remove/`).set(k(actor)).send({ email });
    expectProblem(await soloRemove(solo.owner.email), 409, 'conflict');
    const admin = await t.member(solo.slug, 'admin');
    expect((await soloRemove(admin.email)).status).toBe(204);
    const owner2 = await t.member(solo.slug, 'owner');
    expect((await soloRemove(owner2.email)).status).toBe(204);
    // With a second owner, an owner may remove the first one, even themselves; then the new last owner stays.
    const owner3 = await t.member(solo.slug, 'owner');
    expect((await soloRemove(solo.owner.email)).status).toBe(204);
    expectProblem(
      await t.http.get(`/api/v2/workspaces/${solo.slug}/members/`).set(k(solo.owner)),
      404,
      'resource_not_found',
    );
    expectProblem(await soloRemove(owner3.email, owner3), 409, 'conflict');
    const roster = (await t.http.get(`/api/v2/workspaces/${solo.slug}/members/`).set(k(owner3))).body.data;
    expect(roster.map((r: { member_id: string; role: string }) => [r.member_id, r.role])).toEqual([
      [owner3.id, 'owner'],
    ]);
  });

  it('an email that is not an active member is 400 naming email; a bad body is 400 too', async () => {
    const outsider = await t.user(); // exists, in no workspace
    const foreign = await t.tenant(); // the owner of another workspace
    for (const email of [outsider.email, foreign.owner.email, 'nobody@example.com']) {
      expect(errorFields(expectProblem(await remove({ email }), 400, 'validation_error'))).toEqual(['email']);
    }
    for (const body of [{}, { email: '' }, { email: 42 }, { email: 'x'.repeat(321) }]) {
      expect([...new Set(errorFields(expectProblem(await remove(body), 400, 'validation_error')))]).toEqual(['email']);
    }
    const u = await t.member(ten.slug, 'member');
    expect(
      errorFields(expectProblem(await remove({ email: u.email, remove_seat: 'yes' }), 400, 'validation_error')),
    ).toEqual(['remove_seat']);
    expect(await onRoster(u)).toBe(true);
  });

  it('needs workspace admin (403 for members and guests) and the workspaces.members:write scope', async () => {
    const target = await t.member(ten.slug, 'guest');
    for (const role of ['member', 'guest']) {
      const u = await t.member(ten.slug, role);
      expectProblem(await remove({ email: target.email }, u), 403, 'forbidden');
    }
    const readOnly = await t.token(ten.owner.email, ['workspaces.members:read']);
    expectProblem(
      await t.http
        .post(`${ws}/members/remove/`)
        .set('Authorization', `Bearer ${readOnly}`)
        .send({ email: target.email }),
      403,
      'forbidden',
    );
    expect(await onRoster(target)).toBe(true);
    const writer = await t.token(ten.owner.email, ['workspaces.members:write']);
    expect(
      (
        await t.http
          .post(`${ws}/members/remove/`)
          .set('Authorization', `Bearer ${writer}`)
          .send({ email: target.email })
      ).status,
    ).toBe(204);
    // Another tenant's path is the tenant wall; the path without its trailing slash is 404 too.
    const other = await t.tenant();
    expectProblem(
      await t.http.post(`/api/v2/workspaces/${other.slug}/members/remove/`).set(k()).send({ email: other.owner.email }),
      404,
      'resource_not_found',
    );
    expectProblem(
      await t.http.post(`${ws}/members/remove`).set(k()).send({ email: target.email }),
      404,
      'resource_not_found',
    );
  });
});
