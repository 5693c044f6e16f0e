import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

describe('states', () => {
  let t: TestApp;
  let ten: Tenant;
  let projectId: string;
  let base: string;
  const key = () => ({ 'X-Api-Key': ten.owner.key });

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    projectId = (await t.project(ten.slug, ten.owner.key)).id;
    base = `/api/v2/workspaces/${ten.slug}/projects/${projectId}/states/`;
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>, url = base) => t.http.post(url).set(key()).send(body);

  it('lists the six seeded states by sequence, Backlog the default', async () => {
    const res = await t.http.get(base).set(key());
    expect(res.status).toBe(200);
    expect(res.body.total_count).toBe(6);
    expect(res.body.data.map((s: any) => s.name)).toEqual([
      'Backlog',
      'Todo',
      'In Progress',
      'Done',
      'Cancelled',
      'Triage',
    ]);
    const backlog = res.body.data[0];
    expect(backlog).toEqual({
      id: expect.any(String),
      name: 'Backlog',
      description: '',
      color: '#A3A3A3',
      group: 'backlog',
      sequence: 15000,
      is_default: true,
      is_triage: false,
      external_id: null,
      external_source: null,
      created_at: expect.any(String),
      created_by_id: ten.owner.id,
    });
    expect(res.body.data.find((s: any) => s.name === 'Triage').is_triage).toBe(true);
  });

  it('creates with name and color; group defaults to backlog; sequence appended after the last', async () => {
    const res = await create({ name: 'Review', color: '#abc' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Review',
      color: '#abc',
      group: 'backlog',
      sequence: 75000,
      is_default: false,
      is_triage: false,
      created_by_id: ten.owner.id,
    });
    const explicit = await create({
      name: 'Explicit',
      color: '#112233',
      group: 'started',
      sequence: 1,
      description: 'd',
      external_id: 'X1',
      external_source: 'jira',
      is_triage: true,
    });
    expect(explicit.status).toBe(201);
    expect(explicit.body).toMatchObject({
      group: 'started',
      sequence: 1,
      description: 'd',
      external_id: 'X1',
      external_source: 'jira',
      is_triage: false,
    });
    const list = await t.http.get(base).set(key());
    expect(list.body.data[0].name).toBe('Explicit');
  });

  it('rejects a missing name or color, a bad colour, a bad group, an over-long name', async () => {
    let b = expectProblem(await create({ color: '#fff' }), 400, 'validation_error');
    expect(b.errors.map((e: any) => e.field)).toContain('name');
    b = expectProblem(await create({ name: 'No colour' }), 400, 'validation_error');
    expect(b.errors.map((e: any) => e.field)).toContain('color');
    for (const color of ['red', '#12345', '#GGGGGG', '123456', '#1234567']) {
      b = expectProblem(await create({ name: `C ${color}`, color }), 400, 'validation_error');
      expect(b.errors[0].field).toBe('color');
    }
    b = expectProblem(await create({ name: 'G', color: '#fff', group: 'doing' }), 400, 'validation_error');
    expect(b.errors[0].field).toBe('group');
    expectProblem(await create({ name: 'x'.repeat(256), color: '#fff' }), 400, 'validation_error');
    expectProblem(await create({ name: '   ', color: '#fff' }), 400, 'validation_error');
  });

  it('duplicate name is 409 conflict, on create and on rename', async () => {
    expectProblem(await create({ name: 'Todo', color: '#fff' }), 409, 'conflict');
    const s = await create({ name: 'Rename me', color: '#fff' });
    expectProblem(await t.http.patch(`${base}${s.body.id}/`).set(key()).send({ name: 'Done' }), 409, 'conflict');
  });

  it('is_default true on create demotes the previous default; exactly one default remains', async () => {
    const res = await create({ name: 'New default', color: '#000', is_default: true });
    expect(res.body.is_default).toBe(true);
    const defaults = await t.http.get(`${base}?is_default=true`).set(key());
    expect(defaults.body.data.map((s: any) => s.id)).toEqual([res.body.id]);
    // restore Backlog as default through PATCH
    const backlog = (await t.http.get(`${base}?search=backlog`).set(key())).body.data[0];
    const p = await t.http.patch(`${base}${backlog.id}/`).set(key()).send({ is_default: true });
    expect(p.body.is_default).toBe(true);
    expect((await t.http.get(`${base}${res.body.id}/`).set(key())).body.is_default).toBe(false);
    expect((await t.http.get(`${base}?is_default=true`).set(key())).body.total_count).toBe(1);
  });

  it('PATCH is partial; a body with only color changes only the colour; null clears description and external ids', async () => {
    const s = await create({
      name: 'Partial',
      color: '#111111',
      description: 'keep',
      external_id: 'E',
      external_source: 'S',
    });
    const url = `${base}${s.body.id}/`;
    const a = await t.http.patch(url).set(key()).send({ color: '#222222' });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({
      name: 'Partial',
      color: '#222222',
      description: 'keep',
      external_id: 'E',
      group: 'backlog',
    });
    const b = await t.http
      .patch(url)
      .set(key())
      .send({ description: null, external_id: null, group: 'completed', sequence: 5.5 });
    expect(b.body).toMatchObject({
      description: '',
      external_id: null,
      external_source: 'S',
      group: 'completed',
      sequence: 5.5,
    });
    expectProblem(await t.http.patch(url).set(key()).send({ color: 'blue' }), 400, 'validation_error');
    expectProblem(await t.http.patch(url).set(key()).send({ name: null }), 400, 'validation_error');
    expectProblem(await t.http.patch(url).set(key()).send({ group: 'nope' }), 400, 'validation_error');
    const tri = await t.http.patch(url).set(key()).send({ is_triage: true });
    expect(tri.body.is_triage).toBe(false);
  });

  it('is_default false on the default state is 400 (a project always has one default)', async () => {
    const def = (await t.http.get(`${base}?is_default=true`).set(key())).body.data[0];
    const b = expectProblem(
      await t.http.patch(`${base}${def.id}/`).set(key()).send({ is_default: false }),
      400,
      'validation_error',
    );
    expect(b.errors[0].field).toBe('is_default');
  });

  it('filters: group, group__in (validated), is_default, external_id, external_source, search', async () => {
    await create({ name: 'Filter me', color: '#fff', group: 'cancelled', external_id: 'F-1', external_source: 'gh' });
    const g = await t.http.get(`${base}?group=cancelled`).set(key());
    expect(g.body.data.every((s: any) => s.group === 'cancelled')).toBe(true);
    expect(g.body.data.map((s: any) => s.name)).toEqual(expect.arrayContaining(['Cancelled', 'Filter me']));
    const gin = await t.http.get(`${base}?group__in=triage,unstarted`).set(key());
    expect(gin.body.data.map((s: any) => s.group).sort()).toEqual(['triage', 'unstarted']);
    expect(
      expectProblem(await t.http.get(`${base}?group=doing`).set(key()), 400, 'validation_error').errors[0].field,
    ).toBe('group');
    expect(
      expectProblem(await t.http.get(`${base}?group__in=started,doing`).set(key()), 400, 'validation_error').errors[0]
        .field,
    ).toBe('group__in');
    expectProblem(await t.http.get(`${base}?is_default=maybe`).set(key()), 400, 'validation_error');
    expect((await t.http.get(`${base}?external_id=F-1`).set(key())).body.data.map((s: any) => s.name)).toEqual([
      'Filter me',
    ]);
    expect((await t.http.get(`${base}?external_source=gh`).set(key())).body.data.map((s: any) => s.name)).toEqual([
      'Filter me',
    ]);
    expect((await t.http.get(`${base}?search=FILTER`).set(key())).body.data.map((s: any) => s.name)).toEqual([
      'Filter me',
    ]);
  });

  it('orders by sequence by default, by created_at and id (either direction); cursor needs created_at or id', async () => {
    const seqs = (await t.http.get(base).set(key())).body.data.map((s: any) => s.sequence);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const desc = (await t.http.get(`${base}?order_by=-sequence`).set(key())).body.data.map((s: any) => s.sequence);
    expect(desc).toEqual([...seqs].sort((a, b) => b - a));
    const ids = (await t.http.get(`${base}?order_by=-id&per_page=200`).set(key())).body.data.map((s: any) => s.id);
    expect(ids).toEqual([...ids].sort().reverse());
    expectProblem(await t.http.get(`${base}?paginate=cursor`).set(key()), 400, 'ordering_not_cursor_eligible');
    expectProblem(
      await t.http.get(`${base}?paginate=cursor&order_by=sequence`).set(key()),
      400,
      'ordering_not_cursor_eligible',
    );
    const p1 = await t.http.get(`${base}?paginate=cursor&order_by=created_at&per_page=4`).set(key());
    expect(p1.body.has_more).toBe(true);
    const p2 = await t.http.get(`${base}?order_by=created_at&per_page=4&cursor=${p1.body.next_cursor}`).set(key());
    expect(p2.status).toBe(200);
    const seen = [...p1.body.data, ...p2.body.data].map((s: any) => s.id);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('DELETE: the default state is 409 with its reason; another state is 204, soft, then 404', async () => {
    const def = (await t.http.get(`${base}?is_default=true`).set(key())).body.data[0];
    const b = expectProblem(await t.http.delete(`${base}${def.id}/`).set(key()), 409, 'conflict');
    expect(b.detail).toBe('The default state cannot be deleted.');
    const s = await create({ name: 'Doomed', color: '#fff' });
    const d = await t.http.delete(`${base}${s.body.id}/`).set(key());
    expect(d.status).toBe(204);
    expect(d.text).toBe('');
    expectProblem(await t.http.get(`${base}${s.body.id}/`).set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.delete(`${base}${s.body.id}/`).set(key()), 404, 'resource_not_found');
    expectProblem(
      await t.http.patch(`${base}${s.body.id}/`).set(key()).send({ color: '#000' }),
      404,
      'resource_not_found',
    );
    const rows = await t.ds.query(`SELECT deleted_at FROM states WHERE id = $1`, [s.body.id]);
    expect(rows[0].deleted_at).not.toBeNull();
    // the name is free again
    expect((await create({ name: 'Doomed', color: '#fff' })).status).toBe(201);
  });

  it('DELETE of a state that still holds work items is 409 "This state still has work items in it."', async () => {
    const s = await create({ name: 'Busy', color: '#fff' });
    const wi = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/work-items/`)
      .set(key())
      .send({ name: 'Item', state_id: s.body.id });
    expect(wi.status).toBe(201);
    const b = expectProblem(await t.http.delete(`${base}${s.body.id}/`).set(key()), 409, 'conflict');
    expect(b.detail).toBe('This state still has work items in it.');
  });

  it("tenant wall: another project's state is 404; another workspace is 404; malformed id 400", async () => {
    const other = await t.tenant();
    const otherProject = await t.project(other.slug, other.owner.key);
    const otherState = (
      await t.http
        .get(`/api/v2/workspaces/${other.slug}/projects/${otherProject.id}/states/`)
        .set({ 'X-Api-Key': other.owner.key })
    ).body.data[0];
    expectProblem(await t.http.get(`${base}${otherState.id}/`).set(key()), 404, 'resource_not_found');
    expectProblem(
      await t.http.patch(`${base}${otherState.id}/`).set(key()).send({ color: '#000' }),
      404,
      'resource_not_found',
    );
    expectProblem(await t.http.delete(`${base}${otherState.id}/`).set(key()), 404, 'resource_not_found');
    // same workspace, other project
    const sibling = await t.project(ten.slug, ten.owner.key);
    const sibState = (await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/${sibling.id}/states/`).set(key())).body
      .data[1];
    expectProblem(await t.http.get(`${base}${sibState.id}/`).set(key()), 404, 'resource_not_found');
    expectProblem(
      await t.http.get(`/api/v2/workspaces/${other.slug}/projects/${otherProject.id}/states/`).set(key()),
      404,
      'resource_not_found',
    );
    expect(expectProblem(await t.http.get(`${base}nope/`).set(key()), 400, 'validation_error').errors[0].field).toBe(
      'pk',
    );
  });

  it('roles: project guest reads, contributor cannot write (403); scopes: read scope cannot write', async () => {
    const guest = await t.member(ten.slug, 'guest');
    const contrib = await t.member(ten.slug, 'member');
    const outsider = await t.member(ten.slug, 'member');
    for (const [u, role] of [
      [guest, 'guest'],
      [contrib, 'contributor'],
    ] as const) {
      const r = await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/members/`)
        .set(key())
        .send({ member_id: u.id, role });
      expect(r.status).toBe(201);
    }
    const g = { 'X-Api-Key': guest.key };
    expect((await t.http.get(base).set(g)).status).toBe(200);
    const sid = (await t.http.get(base).set(g)).body.data[0].id;
    expect((await t.http.get(`${base}${sid}/`).set(g)).status).toBe(200);
    expectProblem(await t.http.post(base).set(g).send({ name: 'G', color: '#fff' }), 403, 'forbidden');
    const c = { 'X-Api-Key': contrib.key };
    expectProblem(await t.http.post(base).set(c).send({ name: 'C', color: '#fff' }), 403, 'forbidden');
    expectProblem(await t.http.patch(`${base}${sid}/`).set(c).send({ color: '#000' }), 403, 'forbidden');
    expectProblem(await t.http.delete(`${base}${sid}/`).set(c), 403, 'forbidden');
    // a workspace member who is not on the project has no project role (the foundation's guard answers 403)
    expectProblem(await t.http.get(base).set({ 'X-Api-Key': outsider.key }), 403, 'forbidden');

    const readOnly = await t.token(ten.owner.email, ['projects.states:read']);
    const bearer = { Authorization: `Bearer ${readOnly}` };
    expect((await t.http.get(base).set(bearer)).status).toBe(200);
    expectProblem(await t.http.post(base).set(bearer).send({ name: 'T', color: '#fff' }), 403, 'forbidden');
    const writer = await t.token(ten.owner.email, ['projects.states:write']);
    expect(
      (
        await t.http
          .post(base)
          .set({ Authorization: `Bearer ${writer}` })
          .send({ name: 'By token', color: '#fff' })
      ).status,
    ).toBe(201);
    const labelsOnly = await t.token(ten.owner.email, ['projects.labels:read']);
    expectProblem(await t.http.get(base).set({ Authorization: `Bearer ${labelsOnly}` }), 403, 'forbidden');
  });

  it('concurrent promotions leave exactly one default', async () => {
    const a = await create({ name: 'Race A', color: '#fff' });
    const b = await create({ name: 'Race B', color: '#fff' });
    const results = await Promise.all([
      t.http.patch(`${base}${a.body.id}/`).set(key()).send({ is_default: true }),
      t.http.patch(`${base}${b.body.id}/`).set(key()).send({ is_default: true }),
      create({ name: 'Race C', color: '#fff', is_default: true }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect((await t.http.get(`${base}?is_default=true`).set(key())).body.total_count).toBe(1);
  });
});
