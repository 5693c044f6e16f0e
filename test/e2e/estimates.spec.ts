import { EstimatesService } from '../../src/estimates/estimates.service';
import { ProblemException } from '../../src/common/errors/problem.exception';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

describe('estimates and estimate points', () => {
  let t: TestApp;
  let ten: Tenant;
  let projectId: string;
  let base: string;
  const key = () => ({ 'X-Api-Key': ten.owner.key });

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    projectId = (await t.project(ten.slug, ten.owner.key)).id;
    base = `/api/v2/workspaces/${ten.slug}/projects/${projectId}/estimates/`;
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>, url = base) => t.http.post(url).set(key()).send(body);
  const points = (estimateId: string, url = base) => `${url}${estimateId}/points/`;
  const setFeature = (pid: string, value: boolean) =>
    t.http
      .patch(`/api/v2/workspaces/${ten.slug}/projects/${pid}/features/`)
      .set(key())
      .send({ is_estimates_enabled: value });

  it('creates an estimate; the first one becomes active and last used; full shape', async () => {
    const p = await t.project(ten.slug, ten.owner.key);
    const url = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/estimates/`;
    const a = await create(
      { name: 'Fibonacci', type: 'points', description: 'fib', external_id: 'E1', external_source: 'jira' },
      url,
    );
    expect(a.status).toBe(201);
    expect(a.body).toEqual({
      id: expect.any(String),
      name: 'Fibonacci',
      description: 'fib',
      type: 'points',
      is_active: true,
      last_used: true,
      external_id: 'E1',
      external_source: 'jira',
      created_at: expect.any(String),
      created_by_id: ten.owner.id,
    });
    const b = await create({ name: 'T-shirt' }, url);
    expect(b.body).toMatchObject({ type: 'categories', is_active: false, last_used: false });
    // explicit activation moves "active" and "last used" atomically
    const c = await create({ name: 'Hours', type: 'time', is_active: true }, url);
    expect(c.body).toMatchObject({ is_active: true, last_used: true });
    const list = await t.http.get(`${url}?is_active=true`).set(key());
    expect(list.body.data.map((e: any) => e.id)).toEqual([c.body.id]);
    expect((await t.http.get(`${url}${a.body.id}/`).set(key())).body).toMatchObject({
      is_active: false,
      last_used: false,
    });
    // PATCH is_active true switches back; false leaves no active estimate
    const sw = await t.http.patch(`${url}${b.body.id}/`).set(key()).send({ is_active: true });
    expect(sw.body).toMatchObject({ is_active: true, last_used: true });
    expect((await t.http.get(`${url}?is_active=true`).set(key())).body.total_count).toBe(1);
    const off = await t.http.patch(`${url}${b.body.id}/`).set(key()).send({ is_active: false });
    expect(off.body).toMatchObject({ is_active: false, last_used: true });
    expect((await t.http.get(`${url}?is_active=true`).set(key())).body.total_count).toBe(0);
  });

  it('validation and conflicts: name required, bad type 400, duplicate name 409', async () => {
    expect(expectProblem(await create({}), 400, 'validation_error').errors[0].field).toBe('name');
    expect(expectProblem(await create({ name: 'x', type: 'stars' }), 400, 'validation_error').errors[0].field).toBe(
      'type',
    );
    expect(expectProblem(await create({ name: 'x', is_active: 'yes' }), 400, 'validation_error').errors[0].field).toBe(
      'is_active',
    );
    await create({ name: 'Same' });
    expectProblem(await create({ name: 'Same' }), 409, 'conflict');
    const o = await create({ name: 'Other' });
    expectProblem(await t.http.patch(`${base}${o.body.id}/`).set(key()).send({ name: 'Same' }), 409, 'conflict');
    expectProblem(await t.http.patch(`${base}${o.body.id}/`).set(key()).send({ name: null }), 400, 'validation_error');
  });

  it('points: create with auto key, value unique per estimate (409), list ordered by key, get, PATCH, DELETE', async () => {
    const e = await create({ name: 'Sizes', type: 'categories' });
    const url = points(e.body.id);
    const s = await t.http.post(url).set(key()).send({ value: 'S' });
    expect(s.status).toBe(201);
    expect(s.body).toEqual({
      id: expect.any(String),
      estimate_id: e.body.id,
      key: 1,
      value: 'S',
      description: '',
      external_id: null,
      external_source: null,
      created_at: expect.any(String),
      created_by_id: ten.owner.id,
    });
    const m = await t.http
      .post(url)
      .set(key())
      .send({ value: 'M', description: 'medium', external_id: 'P2', external_source: 'jira' });
    expect(m.body.key).toBe(2);
    const xl = await t.http.post(url).set(key()).send({ value: 'XL', key: 0 });
    expect(xl.body.key).toBe(0);
    expectProblem(await t.http.post(url).set(key()).send({ value: 'M' }), 409, 'conflict');
    expect(expectProblem(await t.http.post(url).set(key()).send({}), 400, 'validation_error').errors[0].field).toBe(
      'value',
    );
    expectProblem(await t.http.post(url).set(key()).send({ value: 'L', key: -1 }), 400, 'validation_error');
    expectProblem(await t.http.post(url).set(key()).send({ value: 'L', key: 1.5 }), 400, 'validation_error');
    // Past PostgreSQL's integer: a 400 naming the field, not the database's range error.
    expect(
      expectProblem(
        await t.http.post(url).set(key()).send({ value: 'L', key: 99999999999 }),
        400,
        'validation_error',
      ).errors.map((e: any) => e.field),
    ).toEqual(['key']);
    expect(
      expectProblem(
        await t.http.patch(`${url}${xl.body.id}/`).set(key()).send({ key: 3000000000 }),
        400,
        'validation_error',
      ).errors.map((e: any) => e.field),
    ).toEqual(['key']);
    // A chosen key stops at a million, so "highest + 1" for an omitted key never overflows.
    expect(
      expectProblem(
        await t.http.post(url).set(key()).send({ value: 'L', key: 1000001 }),
        400,
        'validation_error',
      ).errors.map((e: any) => e.field),
    ).toEqual(['key']);
    const list = await t.http.get(url).set(key());
    expect(list.body.data.map((p: any) => p.value)).toEqual(['XL', 'S', 'M']);
    expect((await t.http.get(`${url}?external_id=P2`).set(key())).body.data.map((p: any) => p.value)).toEqual(['M']);
    expect((await t.http.get(`${url}?search=x`).set(key())).body.data.map((p: any) => p.value)).toEqual(['XL']);
    const cur = await t.http.get(`${url}?paginate=cursor&per_page=2`).set(key());
    expect(cur.body.has_more).toBe(true);
    const cur2 = await t.http.get(`${url}?per_page=2&cursor=${cur.body.next_cursor}`).set(key());
    expect(cur2.body.data.map((p: any) => p.value)).toEqual(['M']);
    expect((await t.http.get(`${url}${m.body.id}/`).set(key())).body.value).toBe('M');
    const p = await t.http.patch(`${url}${m.body.id}/`).set(key()).send({ value: 'Medium', description: null });
    expect(p.body).toMatchObject({ value: 'Medium', description: '', key: 2, external_id: 'P2' });
    expectProblem(await t.http.patch(`${url}${m.body.id}/`).set(key()).send({ value: 'S' }), 409, 'conflict');
    expect((await t.http.delete(`${url}${s.body.id}/`).set(key())).status).toBe(204);
    expectProblem(await t.http.get(`${url}${s.body.id}/`).set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.delete(`${url}${s.body.id}/`).set(key()), 404, 'resource_not_found');
    // the value is free again
    expect((await t.http.post(url).set(key()).send({ value: 'S' })).status).toBe(201);
  });

  it('points and time estimates need numeric values; switching type checks existing points', async () => {
    const e = await create({ name: 'Numeric', type: 'points' });
    expect((await t.http.post(points(e.body.id)).set(key()).send({ value: '0.5' })).status).toBe(201);
    expect(
      expectProblem(await t.http.post(points(e.body.id)).set(key()).send({ value: 'big' }), 400, 'validation_error')
        .errors[0].field,
    ).toBe('value');
    const c = await create({ name: 'Cats', type: 'categories' });
    await t.http.post(points(c.body.id)).set(key()).send({ value: 'huge' });
    expect(
      expectProblem(
        await t.http.patch(`${base}${c.body.id}/`).set(key()).send({ type: 'time' }),
        400,
        'validation_error',
      ).errors[0].field,
    ).toBe('type');
    expect((await t.http.patch(`${base}${e.body.id}/`).set(key()).send({ type: 'categories' })).body.type).toBe(
      'categories',
    );
  });

  it('expand=points embeds the points (ordered by key) on list, get, create and PATCH; other expands are 400', async () => {
    const e = await create({ name: 'Expandable' });
    await t.http.post(points(e.body.id)).set(key()).send({ value: 'b', key: 2 });
    await t.http.post(points(e.body.id)).set(key()).send({ value: 'a', key: 1 });
    const g = await t.http.get(`${base}${e.body.id}/?expand=points`).set(key());
    expect(g.body.points.map((p: any) => p.value)).toEqual(['a', 'b']);
    expect((await t.http.get(`${base}${e.body.id}/`).set(key())).body.points).toBeUndefined();
    const l = await t.http.get(`${base}?expand=points&search=Expandable`).set(key());
    expect(l.body.data[0].points).toHaveLength(2);
    const empty = await t.http.post(`${base}?expand=points`).set(key()).send({ name: 'Fresh' });
    expect(empty.body.points).toEqual([]);
    expect(
      (await t.http.patch(`${base}${e.body.id}/?expand=points`).set(key()).send({ description: 'x' })).body.points,
    ).toHaveLength(2);
    expect(
      expectProblem(await t.http.get(`${base}?expand=state`).set(key()), 400, 'validation_error').errors[0].field,
    ).toBe('expand');
    expectProblem(await t.http.get(`${points(e.body.id)}?expand=points`).set(key()), 400, 'validation_error');
  });

  it('DELETE of an estimate: 204, its points go with it, 404 after', async () => {
    const e = await create({ name: 'Doomed' });
    const p = await t.http.post(points(e.body.id)).set(key()).send({ value: '1' });
    expect((await t.http.delete(`${base}${e.body.id}/`).set(key())).status).toBe(204);
    expectProblem(await t.http.get(`${base}${e.body.id}/`).set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.get(`${points(e.body.id)}${p.body.id}/`).set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.get(points(e.body.id)).set(key()), 404, 'resource_not_found');
    expect(
      (await t.ds.query(`SELECT deleted_at FROM estimate_points WHERE id = $1`, [p.body.id]))[0].deleted_at,
    ).not.toBeNull();
    expect((await create({ name: 'Doomed' })).status).toBe(201);
  });

  it('with is_estimates_enabled false, writes are 400 naming the feature; reads still work', async () => {
    const pr = await t.project(ten.slug, ten.owner.key);
    const url = `/api/v2/workspaces/${ten.slug}/projects/${pr.id}/estimates/`;
    const e = await create({ name: 'Before' }, url);
    const pt = await t.http.post(points(e.body.id, url)).set(key()).send({ value: '1' });
    expect((await setFeature(pr.id, false)).status).toBe(200);
    const attempts = [
      t.http.post(url).send({ name: 'After' }),
      t.http.patch(`${url}${e.body.id}/`).send({ name: 'x' }),
      t.http.delete(`${url}${e.body.id}/`),
      t.http.post(points(e.body.id, url)).send({ value: '2' }),
      t.http.patch(`${points(e.body.id, url)}${pt.body.id}/`).send({ value: '3' }),
      t.http.delete(`${points(e.body.id, url)}${pt.body.id}/`),
    ];
    for (const a of attempts) {
      const b = expectProblem(await a.set(key()), 400, 'validation_error');
      expect(b.errors[0].field).toBe('is_estimates_enabled');
    }
    expect((await t.http.get(url).set(key())).status).toBe(200);
    expect((await t.http.get(points(e.body.id, url)).set(key())).status).toBe(200);
    await setFeature(pr.id, true);
    expect((await t.http.post(url).set(key()).send({ name: 'After' })).status).toBe(201);
  });

  it('tenant wall: estimates and points of other projects/workspaces are 404; malformed ids 400', async () => {
    const other = await t.tenant();
    const op = await t.project(other.slug, other.owner.key);
    const oUrl = `/api/v2/workspaces/${other.slug}/projects/${op.id}/estimates/`;
    const oe = await t.http.post(oUrl).set({ 'X-Api-Key': other.owner.key }).send({ name: 'Theirs' });
    const opt = await t.http.post(points(oe.body.id, oUrl)).set({ 'X-Api-Key': other.owner.key }).send({ value: '1' });
    expectProblem(await t.http.get(`${base}${oe.body.id}/`).set(key()), 404, 'resource_not_found');
    expectProblem(
      await t.http.patch(`${base}${oe.body.id}/`).set(key()).send({ name: 'x' }),
      404,
      'resource_not_found',
    );
    expectProblem(await t.http.delete(`${base}${oe.body.id}/`).set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.get(points(oe.body.id)).set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.post(points(oe.body.id)).set(key()).send({ value: '9' }), 404, 'resource_not_found');
    // our estimate, their point id
    const mine = await create({ name: 'Mine' });
    expectProblem(await t.http.get(`${points(mine.body.id)}${opt.body.id}/`).set(key()), 404, 'resource_not_found');
    // a point of another estimate of the same project is 404 under this estimate
    const sibling = await create({ name: 'Sibling' });
    const sp = await t.http.post(points(sibling.body.id)).set(key()).send({ value: 'x' });
    expectProblem(await t.http.get(`${points(mine.body.id)}${sp.body.id}/`).set(key()), 404, 'resource_not_found');
    expectProblem(
      await t.http
        .patch(`${points(mine.body.id)}${sp.body.id}/`)
        .set(key())
        .send({ value: 'y' }),
      404,
      'resource_not_found',
    );
    expect(
      expectProblem(await t.http.get(`${base}nope/points/`).set(key()), 400, 'validation_error').errors[0].field,
    ).toBe('estimate_id');
    expect(
      expectProblem(await t.http.get(`${points(mine.body.id)}nope/`).set(key()), 400, 'validation_error').errors[0]
        .field,
    ).toBe('pk');
  });

  it('roles and scopes: guest reads, contributor cannot write; estimates scopes', async () => {
    const e = await create({ name: 'Roles' });
    const guest = await t.member(ten.slug, 'guest');
    const contrib = await t.member(ten.slug, 'member');
    await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/members/`)
      .set(key())
      .send({ member_id: guest.id, role: 'guest' });
    await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/members/`)
      .set(key())
      .send({ member_id: contrib.id, role: 'contributor' });
    expect((await t.http.get(base).set({ 'X-Api-Key': guest.key })).status).toBe(200);
    expect((await t.http.get(points(e.body.id)).set({ 'X-Api-Key': guest.key })).status).toBe(200);
    const c = { 'X-Api-Key': contrib.key };
    expectProblem(await t.http.post(base).set(c).send({ name: 'c' }), 403, 'forbidden');
    expectProblem(await t.http.patch(`${base}${e.body.id}/`).set(c).send({ name: 'c' }), 403, 'forbidden');
    expectProblem(await t.http.post(points(e.body.id)).set(c).send({ value: '1' }), 403, 'forbidden');
    const ro = { Authorization: `Bearer ${await t.token(ten.owner.email, ['projects.estimates:read'])}` };
    expect((await t.http.get(base).set(ro)).status).toBe(200);
    expectProblem(await t.http.post(base).set(ro).send({ name: 'x' }), 403, 'forbidden');
    expectProblem(await t.http.post(points(e.body.id)).set(ro).send({ value: 'x' }), 403, 'forbidden');
    const other = { Authorization: `Bearer ${await t.token(ten.owner.email, ['projects.states:read'])}` };
    expectProblem(await t.http.get(base).set(other), 403, 'forbidden');
  });

  describe('EstimatesService.resolvePoint (used by work item writes)', () => {
    let svc: EstimatesService;
    let pid: string;
    let activeId: string;
    const ids: Record<string, string> = {};
    const scope = () => ({ workspaceId: ten.workspaceId, projectId: pid });
    const expect400 = async (p: Promise<unknown>, field: string, text?: RegExp) => {
      const err = await p.then(
        () => null,
        (e) => e,
      );
      expect(err).toBeInstanceOf(ProblemException);
      expect(err.status).toBe(400);
      expect(err.errors[0].field).toBe(field);
      if (text) expect(err.errors[0].message).toMatch(text);
    };

    beforeAll(async () => {
      svc = t.app.get(EstimatesService);
      pid = (await t.project(ten.slug, ten.owner.key)).id;
      const url = `/api/v2/workspaces/${ten.slug}/projects/${pid}/estimates/`;
      // no active estimate yet
      const inactive = await create({ name: 'Inactive', is_active: false }, url);
      ids.inactive = (await t.http.post(points(inactive.body.id, url)).set(key()).send({ value: 'Small' })).body.id;
      const active = await create({ name: 'Active', is_active: true }, url);
      activeId = active.body.id;
      ids.small = (await t.http.post(points(activeId, url)).set(key()).send({ value: 'Small' })).body.id;
      ids.med1 = (await t.http.post(points(activeId, url)).set(key()).send({ value: 'Medium' })).body.id;
      ids.med2 = (await t.http.post(points(activeId, url)).set(key()).send({ value: 'MEDIUM' })).body.id;
    });

    it('resolves the id form against the active estimate only', async () => {
      expect(await svc.resolvePoint(t.ds, scope(), { id: ids.small })).toBe(ids.small);
      expect(await svc.resolvePoint(t.ds, scope(), { id: ids.small.toUpperCase() })).toBe(ids.small);
      await expect400(svc.resolvePoint(t.ds, scope(), { id: ids.inactive }), 'estimate_point_id', /active estimate/);
      await expect400(svc.resolvePoint(t.ds, scope(), { id: 'not-a-uuid' }), 'estimate_point_id');
      // a point of another project's active estimate
      await expect400(
        svc.resolvePoint(t.ds, { workspaceId: ten.workspaceId, projectId }, { id: ids.small }),
        'estimate_point_id',
      );
      // the project named with another workspace: nothing of it is found there
      const other = await t.tenant();
      const foreign = { workspaceId: other.workspaceId, projectId: pid };
      await expect400(svc.resolvePoint(t.ds, foreign, { id: ids.small }), 'estimate_point_id', /no active estimate/);
    });

    it('resolves the value form case-insensitively; none -> 400 naming the value; several -> 400 pointing to estimate_point_id', async () => {
      expect(await svc.resolvePoint(t.ds, scope(), { value: 'small' })).toBe(ids.small);
      expect(await svc.resolvePoint(t.ds, scope(), { value: ' SMALL ' })).toBe(ids.small);
      await expect400(svc.resolvePoint(t.ds, scope(), { value: 'Huge' }), 'estimate', /"Huge"/);
      await expect400(svc.resolvePoint(t.ds, scope(), { value: 'medium' }), 'estimate', /estimate_point_id/);
      await expect400(svc.resolvePoint(t.ds, scope(), { id: ids.small, value: 'small' }), 'estimate');
    });

    it('no active estimate, or estimates disabled, is 400', async () => {
      await t.http
        .patch(`/api/v2/workspaces/${ten.slug}/projects/${pid}/estimates/${activeId}/`)
        .set(key())
        .send({ is_active: false });
      await expect400(svc.resolvePoint(t.ds, scope(), { value: 'small' }), 'estimate', /no active estimate/);
      await expect400(svc.resolvePoint(t.ds, scope(), { id: ids.small }), 'estimate_point_id', /no active estimate/);
      await t.http
        .patch(`/api/v2/workspaces/${ten.slug}/projects/${pid}/estimates/${activeId}/`)
        .set(key())
        .send({ is_active: true });
      expect(await svc.resolvePoint(t.ds, scope(), { id: ids.small })).toBe(ids.small);
      await setFeature(pid, false);
      await expect400(svc.resolvePoint(t.ds, scope(), { id: ids.small }), 'estimate_point_id', /is_estimates_enabled/);
      await setFeature(pid, true);
    });

    it('a deleted point no longer resolves', async () => {
      await t.http
        .delete(`/api/v2/workspaces/${ten.slug}/projects/${pid}/estimates/${activeId}/points/${ids.med2}/`)
        .set(key());
      expect(await svc.resolvePoint(t.ds, scope(), { value: 'medium' })).toBe(ids.med1);
      await expect400(svc.resolvePoint(t.ds, scope(), { id: ids.med2 }), 'estimate_point_id');
    });
  });

  it('concurrent activations leave exactly one active estimate', async () => {
    const pr = await t.project(ten.slug, ten.owner.key);
    const url = `/api/v2/workspaces/${ten.slug}/projects/${pr.id}/estimates/`;
    const made = await Promise.all(['A', 'B', 'C', 'D'].map((n) => create({ name: n, is_active: true }, url)));
    expect(made.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect((await t.http.get(`${url}?is_active=true`).set(key())).body.total_count).toBe(1);
  });
});
