import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';
import { expectedUserRef } from '../helpers/user-ref';

describe('work item comments', () => {
  let t: TestApp;
  let ten: Tenant;
  let pid: string;
  let wi: string;
  let otherWi: string;
  let base: string;
  let contributor: { id: string; email: string; key: string };
  let commenter: { id: string; email: string; key: string };
  let guest: { id: string; email: string; key: string };
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });
  const url = (item = wi) => `/api/v2/workspaces/${ten.slug}/projects/${pid}/work-items/${item}/comments/`;
  const post = (body: Record<string, unknown>, k = ten.owner.key, item = wi) =>
    t.http.post(url(item)).set(key(k)).send(body);

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    pid = (await t.project(ten.slug, ten.owner.key)).id;
    const items = `/api/v2/workspaces/${ten.slug}/projects/${pid}/work-items/`;
    wi = (await t.http.post(items).set(key()).send({ name: 'Commented' })).body.id;
    otherWi = (await t.http.post(items).set(key()).send({ name: 'Other' })).body.id;
    base = url();
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

  it('create: sanitized comment_html, derived comment_stripped, access INTERNAL by default, actor = caller', async () => {
    const res = await post(
      {
        comment_html: '<p>Looks <b>good</b> &amp; done<script>x()</script></p>',
        actor_id: contributor.id,
        edited_at: '2020-01-01T00:00:00Z',
      },
      commenter.key,
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      work_item_id: wi,
      comment_html: '<p>Looks <b>good</b> &amp; done</p>',
      comment_stripped: 'Looks good & done',
      access: 'INTERNAL',
      actor_id: commenter.id,
      edited_at: null,
      external_id: null,
      external_source: null,
      created_at: expect.any(String),
      created_by_id: commenter.id,
    });
    const ext = await post({
      comment_html: 'external note',
      access: 'EXTERNAL',
      external_id: 'c-1',
      external_source: 'zendesk',
    });
    expect(ext.body).toMatchObject({ access: 'EXTERNAL', external_id: 'c-1', external_source: 'zendesk' });
    expect(
      (
        await post({
          comment_html: 'external note',
          access: 'EXTERNAL',
          external_id: 'c-1',
          external_source: 'zendesk',
        })
      ).status,
    ).toBe(201);
  });

  it('?expand=actor adds the author on the list and on one comment; null when the comment has no author', async () => {
    const made = await post({ comment_html: 'expand me', external_id: 'expand-actor' }, commenter.key);
    const actor = await expectedUserRef(t, commenter);
    const list = await t.http.get(`${base}?expand=actor&external_id=expand-actor`).set(key());
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([{ ...made.body, actor }]);
    const one = await t.http.get(`${base}${made.body.id}/?expand=actor`).set(key());
    expect(one.body).toEqual({ ...made.body, actor });
    expect((await t.http.get(`${base}${made.body.id}/`).set(key())).body).toEqual(made.body);
    await t.ds.query('UPDATE work_item_comments SET actor_id = NULL WHERE id = $1', [made.body.id]);
    const orphan = await t.http.get(`${base}${made.body.id}/?expand=actor`).set(key());
    expect(orphan.body).toMatchObject({ actor_id: null, actor: null });
    expectProblem(await t.http.get(`${base}?expand=author`).set(key()), 400, 'validation_error');
  });

  it('comment_stripped is the plain text: inline markup and entities do not split words, blocks and line breaks do; search finds it', async () => {
    const cases: Array<[string, string]> = [
      ['<p>un<em>believ</em>able</p>', 'unbelievable'],
      ['<p>foo<strong>bar</strong>baz</p>', 'foobarbaz'],
      ['<p>x&lt;y</p>', 'x<y'],
      ['<p>a &amp; b &lt;tag&gt;</p>', 'a & b <tag>'],
      ['<p>one</p><p>two</p><ul><li>three</li><li>four</li></ul>line<br>break', 'one two three four line break'],
      ['<h1>Title</h1>body&nbsp;text', 'Title body text'],
    ];
    for (const [html, text] of cases) expect((await post({ comment_html: html })).body.comment_stripped).toBe(text);
    for (const q of ['unbelievable', 'x<y', 'foobarbaz']) {
      const found = await t.http.get(`${base}?search=${encodeURIComponent(q)}`).set(key());
      expect(found.body.data.map((c: { comment_stripped: string }) => c.comment_stripped)).toContainEqual(
        expect.stringContaining(q),
      );
    }
  });

  it('create validation: comment_html required and must keep content; bad access 400; over-long external 400', async () => {
    const f = (b: any) => b.errors.map((e: any) => e.field);
    expect(f(expectProblem(await post({}), 400, 'validation_error'))).toContain('comment_html');
    expect(
      f(expectProblem(await post({ comment_html: '<script>alert(1)</script>' }), 400, 'validation_error')),
    ).toEqual(['comment_html']);
    expect(f(expectProblem(await post({ comment_html: '<p></p>' }), 400, 'validation_error'))).toEqual([
      'comment_html',
    ]);
    // Markup made only of dropped elements is the sanitizer's 400 (like <script>), not an empty comment.
    for (const html of ['<iframe src="http://evil"></iframe>', '<p></p><object data="x"></object>']) {
      const b = expectProblem(await post({ comment_html: html }), 400, 'validation_error');
      expect(b.errors).toEqual([{ field: 'comment_html', message: expect.stringContaining('could not be sanitized') }]);
    }
    const kept = await post({ comment_html: '<p>hi</p><iframe src="http://evil"></iframe>' });
    expect(kept.body).toMatchObject({ comment_html: '<p>hi</p>', comment_stripped: 'hi' });
    const pb = expectProblem(
      await t.http
        .patch(`${base}${kept.body.id}/`)
        .set(key())
        .send({ comment_html: '<iframe src="http://evil"></iframe>' }),
      400,
      'validation_error',
    );
    expect(pb.errors).toEqual([{ field: 'comment_html', message: expect.stringContaining('could not be sanitized') }]);
    expect(f(expectProblem(await post({ comment_html: 'x', access: 'PUBLIC' }), 400, 'validation_error'))).toEqual([
      'access',
    ]);
    expectProblem(await post({ comment_html: 'x', external_id: 'x'.repeat(256) }), 400, 'validation_error');
  });

  it('list: filters access (validated), external_id/source; search over comment_stripped; order created_at default and id', async () => {
    const item = (
      await t.http.post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/work-items/`).set(key()).send({ name: 'List' })
    ).body.id;
    const a = await post({ comment_html: '<p>first <i>needle</i></p>' }, ten.owner.key, item);
    const b = await post(
      { comment_html: 'second', access: 'EXTERNAL', external_id: 'z1', external_source: 'zd' },
      ten.owner.key,
      item,
    );
    await post({ comment_html: 'elsewhere needle' }, ten.owner.key, otherWi);
    const get = (qs: string) => t.http.get(`${url(item)}?${qs}`).set(key());
    let res = await get('');
    expect(res.body.data.map((c: any) => c.id)).toEqual([a.body.id, b.body.id]);
    expect(res.body.total_count).toBe(2);
    res = await get('order_by=-created_at');
    expect(res.body.data.map((c: any) => c.id)).toEqual([b.body.id, a.body.id]);
    res = await get('order_by=id');
    expect(res.body.data.map((c: any) => c.id)).toEqual([a.body.id, b.body.id].sort());
    expect((await get('access=EXTERNAL')).body.data.map((c: any) => c.id)).toEqual([b.body.id]);
    expect((await get('external_id=z1&external_source=zd')).body.data.map((c: any) => c.id)).toEqual([b.body.id]);
    expect((await get('search=NEEDLE')).body.data.map((c: any) => c.id)).toEqual([a.body.id]);
    expect((await get('search=<i>')).body.data).toEqual([]);
    expectProblem(await get('access=PUBLIC'), 400, 'validation_error');
    expect((await get('paginate=cursor&per_page=1')).body.has_more).toBe(true);
    expectProblem(await get('expand=work_item'), 400, 'validation_error');
  });

  it('PATCH: partial, edited_at stamped, comment_stripped re-derived; edit rights from role and scope, not authorship', async () => {
    const c = await post({ comment_html: 'by commenter' }, commenter.key);
    const res = await t.http
      .patch(`${base}${c.body.id}/`)
      .set(key(commenter.key))
      .send({ comment_html: '<p>edited <b>text</b></p>' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      comment_html: '<p>edited <b>text</b></p>',
      comment_stripped: 'edited text',
      access: 'INTERNAL',
      actor_id: commenter.id,
    });
    expect(res.body.edited_at).not.toBeNull();
    const access = await t.http.patch(`${base}${c.body.id}/`).set(key(commenter.key)).send({ access: 'EXTERNAL' });
    expect(access.body).toMatchObject({ access: 'EXTERNAL', comment_html: '<p>edited <b>text</b></p>' });
    expect(Date.parse(access.body.edited_at)).toBeGreaterThanOrEqual(Date.parse(res.body.edited_at));
    // Edit rights come from the role (gap-reference 3.2): a contributor may edit a comment it did not write...
    const byContributor = await t.http
      .patch(`${base}${c.body.id}/`)
      .set(key(contributor.key))
      .send({ comment_html: 'fixed typo' });
    expect(byContributor.status).toBe(200);
    expect(byContributor.body).toMatchObject({ comment_html: 'fixed typo', actor_id: commenter.id });
    // ...and so may a commenter, the route's lowest writing role: "not authorship per se". The author stays the author.
    const theirs = await post({ comment_html: 'by contributor' }, contributor.key);
    const byCommenter = await t.http
      .patch(`${base}${theirs.body.id}/`)
      .set(key(commenter.key))
      .send({ comment_html: 'edited by a commenter' });
    expect(byCommenter.status).toBe(200);
    expect(byCommenter.body).toMatchObject({
      comment_html: 'edited by a commenter',
      actor_id: contributor.id,
      created_by_id: contributor.id,
    });
    expect(byCommenter.body.edited_at).not.toBeNull();
    // Below the role (a guest, even the author of nothing) or without the scope: 403, nothing written.
    expectProblem(
      await t.http.patch(`${base}${theirs.body.id}/`).set(key(guest.key)).send({ comment_html: 'guest edit' }),
      403,
      'forbidden',
    );
    const readOnly = await t.token(commenter.email, ['projects.work_items.comments:read']);
    expectProblem(
      await t.http
        .patch(`${base}${theirs.body.id}/`)
        .set({ Authorization: `Bearer ${readOnly}` })
        .send({ comment_html: 'read scope edit' }),
      403,
      'forbidden',
    );
    expect((await t.http.get(`${base}${theirs.body.id}/`).set(key())).body.comment_html).toBe('edited by a commenter');
    // Delete stays with the author or a project admin.
    expectProblem(await t.http.delete(`${base}${c.body.id}/`).set(key(contributor.key)), 403, 'forbidden');
    expectProblem(await t.http.delete(`${base}${theirs.body.id}/`).set(key(commenter.key)), 403, 'forbidden');
    expect((await t.http.patch(`${base}${c.body.id}/`).set(key()).send({ comment_html: 'moderated' })).status).toBe(
      200,
    );
    expectProblem(
      await t.http.patch(`${base}${c.body.id}/`).set(key()).send({ comment_html: null }),
      400,
      'validation_error',
    );
    expectProblem(
      await t.http.patch(`${base}${c.body.id}/`).set(key()).send({ access: 'nope' }),
      400,
      'validation_error',
    );
  });

  it('DELETE: soft, 204, later GET 404, repeat 404', async () => {
    const c = await post({ comment_html: 'to delete' }, commenter.key);
    expect((await t.http.delete(`${base}${c.body.id}/`).set(key(commenter.key))).status).toBe(204);
    expectProblem(await t.http.get(`${base}${c.body.id}/`).set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.delete(`${base}${c.body.id}/`).set(key(commenter.key)), 404, 'resource_not_found');
    expect(
      (await t.ds.query(`SELECT deleted_at FROM work_item_comments WHERE id = $1`, [c.body.id]))[0].deleted_at,
    ).not.toBeNull();
    const admin = await post({ comment_html: 'admin deletes this' }, commenter.key);
    expect((await t.http.delete(`${base}${admin.body.id}/`).set(key())).status).toBe(204);
  });

  it('a comment of another work item is 404; unknown or archived work item is 404; malformed ids 400', async () => {
    const c = await post({ comment_html: 'mine' });
    expectProblem(await t.http.get(`${url(otherWi)}${c.body.id}/`).set(key()), 404, 'resource_not_found');
    expectProblem(
      await t.http
        .patch(`${url(otherWi)}${c.body.id}/`)
        .set(key())
        .send({ access: 'EXTERNAL' }),
      404,
      'resource_not_found',
    );
    expectProblem(await t.http.delete(`${url(otherWi)}${c.body.id}/`).set(key()), 404, 'resource_not_found');
    expect((await t.http.get(`${base}${c.body.id}/`).set(key())).status).toBe(200);
    expectProblem(await t.http.get(url('00000000-0000-4000-8000-000000000000')).set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.get(`${base}not-a-uuid/`).set(key()), 400, 'validation_error');
    expectProblem(await t.http.get(url('not-a-uuid')).set(key()), 400, 'validation_error');
    // A work item identifier where the work item id goes is 404, as on the work item routes (spec).
    const [{ identifier }] = await t.ds.query(`SELECT identifier FROM projects WHERE id = $1`, [pid]);
    expectProblem(await t.http.get(url(`${identifier}-1`)).set(key()), 404, 'resource_not_found');
    expectProblem(await post({ comment_html: 'x' }, ten.owner.key, `${identifier}-1`), 404, 'resource_not_found');
    expectProblem(await t.http.get(`${url(`${identifier}-1`)}${c.body.id}/`).set(key()), 404, 'resource_not_found');
    const items = `/api/v2/workspaces/${ten.slug}/projects/${pid}/work-items/`;
    const arch = (await t.http.post(items).set(key()).send({ name: 'Archived' })).body.id;
    await t.http.post(`${items}${arch}/archive/`).set(key());
    expectProblem(await t.http.get(url(arch)).set(key()), 404, 'resource_not_found');
    expectProblem(await post({ comment_html: 'x' }, ten.owner.key, arch), 404, 'resource_not_found');
  });

  it('roles and scopes: reads and writes commenter+ (a guest is intake only); projects.work_items.comments:read/write', async () => {
    const c = await post({ comment_html: 'seen by commenters' }, commenter.key);
    expectProblem(await t.http.get(base).set(key(guest.key)), 403, 'forbidden');
    expectProblem(await t.http.get(`${base}${c.body.id}/`).set(key(guest.key)), 403, 'forbidden');
    expect((await t.http.get(base).set(key(commenter.key))).status).toBe(200);
    expect((await t.http.get(`${base}${c.body.id}/`).set(key(commenter.key))).status).toBe(200);
    expectProblem(await post({ comment_html: 'guest' }, guest.key), 403, 'forbidden');
    expect((await post({ comment_html: 'commenter' }, commenter.key)).status).toBe(201);
    const bearer = (tok: string) => ({ Authorization: `Bearer ${tok}` });
    const readTok = await t.token(ten.owner.email, ['projects.work_items.comments:read']);
    const wiTok = await t.token(ten.owner.email, ['projects.work_items:write', 'projects.work_items:read']);
    const writeTok = await t.token(ten.owner.email, ['projects.work_items.comments:write']);
    expect((await t.http.get(base).set(bearer(readTok))).status).toBe(200);
    expectProblem(await t.http.post(base).set(bearer(readTok)).send({ comment_html: 'x' }), 403, 'forbidden');
    expectProblem(await t.http.post(base).set(bearer(wiTok)).send({ comment_html: 'x' }), 403, 'forbidden');
    expectProblem(await t.http.get(base).set(bearer(wiTok)), 403, 'forbidden');
    expect((await t.http.post(base).set(bearer(writeTok)).send({ comment_html: 'x' })).status).toBe(201);
  });

  it("tenant wall: another workspace's work item and comments are 404", async () => {
    const other = await t.tenant();
    const op = await t.project(other.slug, other.owner.key);
    const theirItem = (
      await t.http
        .post(`/api/v2/workspaces/${other.slug}/projects/${op.id}/work-items/`)
        .set(key(other.owner.key))
        .send({ name: 'theirs' })
    ).body.id;
    const theirUrl = `/api/v2/workspaces/${other.slug}/projects/${op.id}/work-items/${theirItem}/comments/`;
    const theirs = await t.http.post(theirUrl).set(key(other.owner.key)).send({ comment_html: 'secret' });
    expectProblem(await t.http.get(theirUrl).set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.get(url(theirItem)).set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.get(`${base}${theirs.body.id}/`).set(key()), 404, 'resource_not_found');
    expectProblem(
      await t.http.patch(`${base}${theirs.body.id}/`).set(key()).send({ comment_html: 'x' }),
      404,
      'resource_not_found',
    );
  });
});
