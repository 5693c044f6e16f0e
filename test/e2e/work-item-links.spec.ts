import { createTestApp, errorFields, errorFieldSet, expectProblem, Tenant, TestApp } from '../helpers/test-app';

describe('work item links', () => {
  let t: TestApp;
  let ten: Tenant;
  let pid: string;
  let wi: string;
  let otherWi: string;
  let contributor: { id: string; email: string; key: string };
  let commenter: { id: string; email: string; key: string };
  let guest: { id: string; email: string; key: string };
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });
  const items = () => `/api/v2/workspaces/${ten.slug}/projects/${pid}/work-items/`;
  const url = (item = wi) => `${items()}${item}/links/`;
  const post = (body: Record<string, unknown>, k = ten.owner.key, item = wi) =>
    t.http.post(url(item)).set(key(k)).send(body);

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    pid = (await t.project(ten.slug, ten.owner.key)).id;
    wi = (await t.http.post(items()).set(key()).send({ name: 'Linked' })).body.id;
    otherWi = (await t.http.post(items()).set(key()).send({ name: 'Other' })).body.id;
    const add = async (role: string) => {
      const u = await t.member(ten.slug, 'member');
      await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/members/`)
        .set(key())
        .send({ member_id: u.id, role });
      return u;
    };
    contributor = await add('contributor');
    commenter = await add('commenter');
    guest = await add('guest');
  });
  afterAll(() => t.close());

  it('create, get, patch, delete: the v2 shape; metadata kept; delete is 204 and then 404', async () => {
    const res = await post(
      { url: 'https://example.com/spec', title: 'Spec', metadata: { kind: 'doc' }, created_by_id: guest.id },
      contributor.key,
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      work_item_id: wi,
      url: 'https://example.com/spec',
      title: 'Spec',
      metadata: { kind: 'doc' },
      created_at: expect.any(String),
      created_by_id: contributor.id,
    });
    const id = res.body.id;
    expect((await t.http.get(`${url()}${id}/`).set(key(commenter.key))).body).toEqual(res.body);
    const patched = await t.http
      .patch(`${url()}${id}/`)
      .set(key())
      .send({ title: null, url: 'http://localhost:8080/x' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, title: null, url: 'http://localhost:8080/x', metadata: { kind: 'doc' } });
    expect((await post({ url: 'https://example.com/min' })).body).toMatchObject({ title: null, metadata: {} });
    expect((await t.http.delete(`${url()}${id}/`).set(key())).status).toBe(204);
    expectProblem(await t.http.get(`${url()}${id}/`).set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.delete(`${url()}${id}/`).set(key()), 404, 'resource_not_found');
  });

  it('validation: url absolute http(s) and required; title length; metadata an object; each names its field', async () => {
    for (const bad of [
      'ftp://example.com/x',
      '/relative/path',
      'example.com',
      'javascript:alert(1)',
      'http://',
      42,
      null,
    ]) {
      expect(errorFields(expectProblem(await post({ url: bad }), 400, 'validation_error'))).toContain('url');
    }
    expect(errorFields(expectProblem(await post({}), 400, 'validation_error'))).toContain('url');
    expect(
      errorFields(
        expectProblem(await post({ url: 'https://a.example/', title: 'x'.repeat(256) }), 400, 'validation_error'),
      ),
    ).toEqual(['title']);
    expect(
      errorFields(expectProblem(await post({ url: 'https://a.example/', metadata: [1] }), 400, 'validation_error')),
    ).toEqual(['metadata']);
    expect(
      errorFields(expectProblem(await post({ url: `https://a.example/${'p'.repeat(2050)}` }), 400, 'validation_error')),
    ).toEqual(['url']);
    const ok = (await post({ url: 'https://valid.example/' })).body.id;
    expect(
      errorFieldSet(
        expectProblem(await t.http.patch(`${url()}${ok}/`).set(key()).send({ url: null }), 400, 'validation_error'),
      ),
    ).toEqual(['url']);
  });

  it('one live link per url and work item: 409 on create and patch; another item or a deleted link does not count', async () => {
    const first = await post({ url: 'https://dup.example/a' });
    expect(first.status).toBe(201);
    const dup = expectProblem(await post({ url: 'https://dup.example/a' }), 409, 'conflict');
    expect(dup.detail).toMatch(/url/);
    expect((await post({ url: 'https://dup.example/a' }, ten.owner.key, otherWi)).status).toBe(201);
    const second = (await post({ url: 'https://dup.example/b' })).body.id;
    expectProblem(
      await t.http.patch(`${url()}${second}/`).set(key()).send({ url: 'https://dup.example/a' }),
      409,
      'conflict',
    );
    await t.http.delete(`${url()}${first.body.id}/`).set(key());
    expect((await post({ url: 'https://dup.example/a' })).status).toBe(201);
  });

  it('two clients adding the same url at once make one link (the other is 409)', async () => {
    const results = await Promise.all([
      post({ url: 'https://race.example/' }),
      post({ url: 'https://race.example/' }, contributor.key),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    const list = await t.http.get(`${url()}?url=${encodeURIComponent('https://race.example/')}`).set(key());
    expect(list.body.data).toHaveLength(1);
  });

  it('list: filters, search, ordering and both pagination modes', async () => {
    const item = (await t.http.post(items()).set(key()).send({ name: 'Many links' })).body.id;
    for (let i = 0; i < 5; i++)
      await post({ url: `https://list.example/${i}`, title: `Doc ${i}` }, ten.owner.key, item);
    const all = await t.http.get(url(item)).set(key());
    expect(all.body.total_count).toBe(5);
    expect(all.body.data.map((l: { title: string }) => l.title)).toEqual(['Doc 0', 'Doc 1', 'Doc 2', 'Doc 3', 'Doc 4']);
    const desc = await t.http.get(`${url(item)}?order_by=-created_at&per_page=2`).set(key());
    expect(desc.body.data.map((l: { title: string }) => l.title)).toEqual(['Doc 4', 'Doc 3']);
    expect(desc.body.next).toBe(2);
    const c1 = await t.http.get(`${url(item)}?paginate=cursor&per_page=3`).set(key());
    const c2 = await t.http.get(`${url(item)}?cursor=${c1.body.next_cursor}&per_page=3`).set(key());
    expect([...c1.body.data, ...c2.body.data].map((l: { title: string }) => l.title)).toHaveLength(5);
    expect(c2.body.has_more).toBe(false);
    expect((await t.http.get(`${url(item)}?title=Doc%202`).set(key())).body.data).toHaveLength(1);
    expect((await t.http.get(`${url(item)}?search=doc%203`).set(key())).body.data).toHaveLength(1);
    expectProblem(await t.http.get(`${url(item)}?per_page=many`).set(key()), 400, 'validation_error');
  });

  it('roles: commenters read, contributors write, commenters may not write (403), project guests may not read (403)', async () => {
    const id = (await post({ url: 'https://roles.example/' })).body.id;
    expect((await t.http.get(url()).set(key(commenter.key))).status).toBe(200);
    expectProblem(await post({ url: 'https://roles.example/c' }, commenter.key), 403, 'forbidden');
    expectProblem(await t.http.delete(`${url()}${id}/`).set(key(commenter.key)), 403, 'forbidden');
    expectProblem(await t.http.get(url()).set(key(guest.key)), 403, 'forbidden');
    expect((await t.http.patch(`${url()}${id}/`).set(key(contributor.key)).send({ title: 'T' })).status).toBe(200);
  });

  it('scopes: links:read reads but cannot write; links:write writes; other scopes are 403', async () => {
    const read = await t.token(ten.owner.email, ['projects.work_items.links:read']);
    const write = await t.token(ten.owner.email, ['projects.work_items.links:write']);
    const other = await t.token(ten.owner.email, ['projects.work_items:read', 'projects.work_items:write']);
    const bearer = (tok: string) => ({ Authorization: `Bearer ${tok}` });
    expect((await t.http.get(url()).set(bearer(read))).status).toBe(200);
    expectProblem(await t.http.post(url()).set(bearer(read)).send({ url: 'https://s.example/' }), 403, 'forbidden');
    expect((await t.http.post(url()).set(bearer(write)).send({ url: 'https://s.example/' })).status).toBe(201);
    expectProblem(await t.http.get(url()).set(bearer(other)), 403, 'forbidden');
  });

  it('tenant wall: a work item or link of another workspace, project or item is 404', async () => {
    const foreign = await t.tenant();
    const fp = (await t.project(foreign.slug, foreign.owner.key)).id;
    const fwi = (
      await t.http
        .post(`/api/v2/workspaces/${foreign.slug}/projects/${fp}/work-items/`)
        .set(key(foreign.owner.key))
        .send({ name: 'Foreign' })
    ).body.id;
    const flink = (
      await t.http
        .post(`/api/v2/workspaces/${foreign.slug}/projects/${fp}/work-items/${fwi}/links/`)
        .set(key(foreign.owner.key))
        .send({ url: 'https://foreign.example/' })
    ).body.id;
    expectProblem(await post({ url: 'https://x.example/' }, ten.owner.key, fwi), 404, 'resource_not_found');
    expectProblem(await t.http.get(url(fwi)).set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.get(`${url()}${flink}/`).set(key()), 404, 'resource_not_found');
    expectProblem(
      await t.http.get(`/api/v2/workspaces/${foreign.slug}/projects/${fp}/work-items/${fwi}/links/`).set(key()),
      404,
      'resource_not_found',
    );
    const mine = (await post({ url: 'https://mine.example/' })).body.id;
    expectProblem(await t.http.get(`${url(otherWi)}${mine}/`).set(key()), 404, 'resource_not_found');
    expectProblem(
      await t.http
        .patch(`${url(otherWi)}${mine}/`)
        .set(key())
        .send({ title: 'x' }),
      404,
      'resource_not_found',
    );
    expectProblem(await t.http.get(`${url()}not-a-uuid/`).set(key()), 400, 'validation_error');
  });
});
