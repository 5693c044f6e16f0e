import { createTestApp, expectProblem, Tenant, TestApp, errorFields, waitForLockWait } from '../helpers/test-app';

describe('work items', () => {
  let t: TestApp;
  let ten: Tenant;
  let pid: string;
  let ident: string;
  let base: string;
  let states: Record<string, string>;
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });
  const create = (body: Record<string, unknown>, k = ten.owner.key, url = base) =>
    t.http.post(url).set(key(k)).send(body);
  const patch = (id: string, body: Record<string, unknown>, k = ten.owner.key) =>
    t.http.patch(`${base}${id}/`).set(key(k)).send(body);
  const stateIds = async (slug: string, p: string, k: string) => {
    const res = await t.http.get(`/api/v2/workspaces/${slug}/projects/${p}/states/`).set({ 'X-Api-Key': k });
    return Object.fromEntries(res.body.data.map((s: any) => [s.name, s.id])) as Record<string, string>;
  };
  const addToProject = async (slug: string, p: string, userId: string, role: string, k = ten.owner.key) => {
    const r = await t.http
      .post(`/api/v2/workspaces/${slug}/projects/${p}/members/`)
      .set(key(k))
      .send({ member_id: userId, role });
    expect(r.status).toBe(201);
    return r.body as { id: string };
  };

  let contributor: { id: string; email: string; key: string };
  let commenter: { id: string; email: string; key: string };
  let guest: { id: string; email: string; key: string };

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    const p = await t.project(ten.slug, ten.owner.key, { identifier: 'WIT' });
    pid = p.id;
    ident = p.identifier;
    base = `/api/v2/workspaces/${ten.slug}/projects/${pid}/work-items/`;
    states = await stateIds(ten.slug, pid, ten.owner.key);
    contributor = await t.member(ten.slug, 'member');
    commenter = await t.member(ten.slug, 'member');
    guest = await t.member(ten.slug, 'guest');
    await addToProject(ten.slug, pid, contributor.id, 'contributor');
    await addToProject(ten.slug, pid, commenter.id, 'commenter');
    await addToProject(ten.slug, pid, guest.id, 'guest');
  });
  afterAll(() => t.close());

  describe('create', () => {
    it('only name is required: read shape exactly, project defaults, identifier, custom_fields {}', async () => {
      const res = await create({ name: '  First item  ' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        name: 'First item',
        identifier: `${ident}-${res.body.sequence_id}`,
        sequence_id: expect.any(Number),
        project_id: pid,
        priority: 'none',
        state_id: states.Backlog,
        type_id: null,
        assignee_ids: [],
        label_ids: [],
        parent_id: null,
        cycle_id: null,
        module_ids: [],
        start_date: null,
        target_date: null,
        is_draft: false,
        archived_at: null,
        created_at: expect.any(String),
        created_by_id: ten.owner.id,
        custom_fields: {},
      });
      expect(ident).toBe('WIT');
    });

    it('rejects a missing, blank or over-long name and a bad priority', async () => {
      expect(errorFields(expectProblem(await create({}), 400, 'validation_error'))).toContain('name');
      expectProblem(await create({ name: '   ' }), 400, 'validation_error');
      expectProblem(await create({ name: 'x'.repeat(256) }), 400, 'validation_error');
      expect(
        errorFields(expectProblem(await create({ name: 'p', priority: 'critical' }), 400, 'validation_error')),
      ).toEqual(['priority']);
      expect((await create({ name: 'x'.repeat(255), priority: 'urgent' })).body.priority).toBe('urgent');
    });

    it('a value of the wrong kind is reported as such, without size messages that do not apply to it', async () => {
      const messages = (body: Record<string, any>) =>
        (body.errors as Array<{ field: string; message: string }>).map((e) => `${e.field}: ${e.message}`);
      const missing = messages(expectProblem(await create({}), 400, 'validation_error'));
      expect(missing.length).toBeGreaterThan(0);
      for (const m of missing) expect(m).not.toMatch(/shorter than/);
      const notArrays = messages(
        expectProblem(await create({ name: 'n', label_ids: 'x', assignees: 'a@b.example' }), 400, 'validation_error'),
      );
      expect(notArrays).toEqual(
        expect.arrayContaining(['label_ids: label_ids must be an array', 'assignees: assignees must be an array']),
      );
      for (const m of notArrays) expect(m).not.toMatch(/no more than/);
      // Size messages stay where the kind is right.
      expect(messages(expectProblem(await create({ name: 'x'.repeat(256) }), 400, 'validation_error'))).toEqual([
        'name: name must be shorter than or equal to 255 characters',
      ]);
      const many = Array.from({ length: 101 }, () => '00000000-0000-4000-8000-000000000000');
      expect(messages(expectProblem(await create({ name: 'n', label_ids: many }), 400, 'validation_error'))).toEqual([
        'label_ids: label_ids must contain no more than 100 elements',
      ]);
    });

    it('description_html is sanitized, stored with its plain text, and never returned; unusable content is 400', async () => {
      const res = await create({
        name: 'Desc',
        description_html: '<p onclick="x()">Hello <b>there</b><script>alert(1)</script></p>',
      });
      expect(res.status).toBe(201);
      expect(res.body.description_html).toBeUndefined();
      const [row] = await t.ds.query(`SELECT description_html, description_stripped FROM work_items WHERE id = $1`, [
        res.body.id,
      ]);
      expect(row).toEqual({ description_html: '<p>Hello <b>there</b></p>', description_stripped: 'Hello there' });
      const b = expectProblem(
        await create({ name: 'Bad', description_html: '<script>alert(1)</script>' }),
        400,
        'validation_error',
      );
      expect(errorFields(b)).toEqual(['description_html']);
      expect((await create({ name: 'Empty doc', description_html: '<p></p>' })).status).toBe(201);
    });

    it('description_html made only of dropped elements (iframe, object, embed) is 400 like a lone <script>, on create and PATCH', async () => {
      for (const html of [
        '<iframe src="http://evil"></iframe>',
        '<p></p><IFRAME SRC="http://evil"></IFRAME>',
        '<object data="x.swf"></object>',
        '<embed src="x">',
      ]) {
        const b = expectProblem(await create({ name: 'Embed', description_html: html }), 400, 'validation_error');
        expect(b.errors).toEqual([
          { field: 'description_html', message: expect.stringContaining('could not be sanitized') },
        ]);
      }
      const ok = await create({
        name: 'Text survives',
        description_html: '<p>kept</p><iframe src="http://evil"></iframe>',
      });
      expect(ok.status).toBe(201);
      const [row] = await t.ds.query(`SELECT description_html, description_stripped FROM work_items WHERE id = $1`, [
        ok.body.id,
      ]);
      expect(row).toEqual({ description_html: '<p>kept</p>', description_stripped: 'kept' });
      expect(
        (await create({ name: 'Empty wrapper', description_html: '<html><body><p></p><br></body></html>' })).status,
      ).toBe(201);
      const b = expectProblem(
        await patch(ok.body.id, { description_html: '<iframe src="http://evil"></iframe>' }),
        400,
        'validation_error',
      );
      expect(errorFields(b)).toEqual(['description_html']);
      expect(
        (await t.ds.query(`SELECT description_html FROM work_items WHERE id = $1`, [ok.body.id]))[0].description_html,
      ).toBe('<p>kept</p>');
    });

    it('external ids are write-only; a reused (external_source, external_id) pair is 409 naming the existing id', async () => {
      const a = await create({ name: 'Imported', external_id: 'J-1', external_source: 'jira' });
      expect(a.status).toBe(201);
      expect(a.body.external_id).toBeUndefined();
      expect(a.body.external_source).toBeUndefined();
      const b = expectProblem(
        await create({ name: 'Again', external_id: 'J-1', external_source: 'jira' }),
        409,
        'conflict',
      );
      expect(b.detail).toContain(a.body.id);
      expect((await create({ name: 'Other source', external_id: 'J-1', external_source: 'linear' })).status).toBe(201);
      const c = await create({ name: 'Third', external_id: 'J-2', external_source: 'jira' });
      const p = expectProblem(await patch(c.body.id, { external_id: 'J-1' }), 409, 'conflict');
      expect(p.detail).toContain(a.body.id);
      // a deleted item frees its pair
      expect((await t.http.delete(`${base}${a.body.id}/`).set(key())).status).toBe(204);
      expect((await create({ name: 'Reuse after delete', external_id: 'J-1', external_source: 'jira' })).status).toBe(
        201,
      );
    });

    it('an empty or blank external_id / external_source names no external record: stored as null, never a pair conflict (was a 500)', async () => {
      for (const pair of [
        { external_id: '', external_source: '' },
        { external_id: 'E-1', external_source: ' ' },
        { external_id: '', external_source: 'jira' },
      ]) {
        const first = await create({ name: 'No source id', ...pair });
        expect(first.status).toBe(201);
        expect((await create({ name: 'No source id again', ...pair })).status).toBe(201);
        const [row] = await t.ds.query(`SELECT external_id, external_source FROM work_items WHERE id = $1`, [
          first.body.id,
        ]);
        expect(row).toEqual({
          external_id: pair.external_id.trim() || null,
          external_source: pair.external_source.trim() || null,
        });
        expect((await patch(first.body.id, pair)).status).toBe(200);
      }
    });

    it('start_date after target_date is 400, on create and against stored values on PATCH', async () => {
      expect(
        errorFields(
          expectProblem(
            await create({ name: 'd', start_date: '2025-02-02', target_date: '2025-02-01' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['start_date']);
      expectProblem(await create({ name: 'd', start_date: '2025-02-30' }), 400, 'validation_error');
      const ok = await create({ name: 'dated', start_date: '2025-02-01', target_date: '2025-02-01' });
      expect(ok.body).toMatchObject({ start_date: '2025-02-01', target_date: '2025-02-01' });
      expectProblem(await patch(ok.body.id, { start_date: '2025-03-01' }), 400, 'validation_error');
      expectProblem(await patch(ok.body.id, { target_date: '2025-01-01' }), 400, 'validation_error');
      expect((await patch(ok.body.id, { target_date: null, start_date: '2025-03-01' })).body).toMatchObject({
        start_date: '2025-03-01',
        target_date: null,
      });
    });

    it('custom_fields while custom properties are disabled is 400; type_id without types is 400', async () => {
      const feat = (v: boolean) =>
        t.http.patch(`/api/v2/workspaces/${ten.slug}/features/`).set(key()).send({ is_custom_properties_enabled: v });
      expect((await feat(false)).status).toBe(200);
      expect(
        errorFields(expectProblem(await create({ name: 'cf', custom_fields: {} }), 400, 'validation_error')),
      ).toEqual(['custom_fields']);
      expect((await feat(true)).status).toBe(200);
      const b = expectProblem(
        await create({ name: 'typed', type_id: '00000000-0000-4000-8000-000000000000' }),
        400,
        'validation_error',
      );
      expect(b.errors[0]).toEqual({ field: 'type_id', message: expect.stringContaining('not enabled') });
      expect(
        errorFields(expectProblem(await create({ name: 'typed', type: 'Task' }), 400, 'validation_error')),
      ).toEqual(['type']);
    });
  });

  describe('name-or-id resolution', () => {
    it('state by name (case-insensitive) or id; both forms, no match, several matches and foreign ids are 400', async () => {
      expect((await create({ name: 's', state: 'in progress' })).body.state_id).toBe(states['In Progress']);
      expect((await create({ name: 's', state_id: states.Todo })).body.state_id).toBe(states.Todo);
      let b = expectProblem(await create({ name: 's', state: 'Todo', state_id: states.Todo }), 400, 'validation_error');
      expect(b.errors[0].message).toBe('Provide either state_id or state, not both.');
      b = expectProblem(await create({ name: 's', state: 'Nope' }), 400, 'validation_error');
      expect(b.errors[0]).toEqual({ field: 'state', message: expect.stringContaining('"Nope"') });
      const sb = `/api/v2/workspaces/${ten.slug}/projects/${pid}/states/`;
      expect((await t.http.post(sb).set(key()).send({ name: 'Review', color: '#fff' })).status).toBe(201);
      expect((await t.http.post(sb).set(key()).send({ name: 'REVIEW', color: '#fff' })).status).toBe(201);
      b = expectProblem(await create({ name: 's', state: 'review' }), 400, 'validation_error');
      expect(b.errors[0].message).toContain('send state_id');
      const other = await t.project(ten.slug, ten.owner.key);
      const otherStates = await stateIds(ten.slug, other.id, ten.owner.key);
      b = expectProblem(await create({ name: 's', state_id: otherStates.Todo }), 400, 'validation_error');
      expect(errorFields(b)).toEqual(['state_id']);
      expectProblem(await create({ name: 's', state_id: 'not-a-uuid' }), 400, 'validation_error');
    });

    it('labels: project and workspace labels by id or name; a name at both levels is ambiguous; foreign ids 400', async () => {
      const pl = await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/`)
        .set(key())
        .send({ name: 'Bug' });
      const wl = await t.http.post(`/api/v2/workspaces/${ten.slug}/labels/`).set(key()).send({ name: 'Security' });
      const both1 = await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/`)
        .set(key())
        .send({ name: 'Shared' });
      const both2 = await t.http.post(`/api/v2/workspaces/${ten.slug}/labels/`).set(key()).send({ name: 'shared' });
      expect([pl.status, wl.status, both1.status, both2.status]).toEqual([201, 201, 201, 201]);
      const r = await create({ name: 'l', labels: ['bug', 'SECURITY'] });
      expect(r.status).toBe(201);
      expect([...r.body.label_ids].sort()).toEqual([pl.body.id, wl.body.id].sort());
      expect((await create({ name: 'l', label_ids: [both1.body.id, both2.body.id] })).status).toBe(201);
      let b = expectProblem(await create({ name: 'l', labels: ['Shared'] }), 400, 'validation_error');
      expect(b.errors[0]).toEqual({ field: 'labels', message: expect.stringContaining('label_ids') });
      b = expectProblem(await create({ name: 'l', labels: ['bug', 'missing-one'] }), 400, 'validation_error');
      expect(b.detail).toContain('missing-one');
      expectProblem(await create({ name: 'l', labels: ['bug'], label_ids: [pl.body.id] }), 400, 'validation_error');
      const other = await t.project(ten.slug, ten.owner.key);
      const ol = await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${other.id}/labels/`)
        .set(key())
        .send({ name: 'Elsewhere' });
      b = expectProblem(await create({ name: 'l', label_ids: [ol.body.id] }), 400, 'validation_error');
      expect(b.errors[0]).toEqual({ field: 'label_ids', message: expect.stringContaining(ol.body.id) });
      // PATCH replaces the set; [] clears
      expect((await patch(r.body.id, { label_ids: [pl.body.id] })).body.label_ids).toEqual([pl.body.id]);
      expect((await patch(r.body.id, { labels: [] })).body.label_ids).toEqual([]);
    });

    it('assignees: active assignable project members (contributor or admin) by id or email; others named in the 400', async () => {
      const r = await create({ name: 'a', assignees: [contributor.email.toUpperCase(), ten.owner.email] });
      expect(r.status).toBe(201);
      expect([...r.body.assignee_ids].sort()).toEqual([contributor.id, ten.owner.id].sort());
      const stranger = await t.member(ten.slug, 'member');
      let b = expectProblem(
        await create({ name: 'a', assignees: [contributor.email, stranger.email, 'nobody@example.com'] }),
        400,
        'validation_error',
      );
      expect(b.detail).toContain(stranger.email);
      expect(b.detail).toContain('nobody@example.com');
      b = expectProblem(await create({ name: 'a', assignee_ids: [commenter.id] }), 400, 'validation_error');
      expect(b.errors[0]).toEqual({ field: 'assignee_ids', message: expect.stringContaining(commenter.id) });
      expectProblem(await create({ name: 'a', assignee_ids: [guest.id] }), 400, 'validation_error');
      const otherTen = await t.tenant();
      expectProblem(await create({ name: 'a', assignee_ids: [otherTen.owner.id] }), 400, 'validation_error');
      expectProblem(
        await create({ name: 'a', assignee_ids: [contributor.id], assignees: [contributor.email] }),
        400,
        'validation_error',
      );
    });

    it('the project default assignee applies when assignees are omitted; [] means none', async () => {
      const p = await t.project(ten.slug, ten.owner.key);
      await addToProject(ten.slug, p.id, contributor.id, 'contributor');
      const pr = await t.http
        .patch(`/api/v2/workspaces/${ten.slug}/projects/${p.id}/`)
        .set(key())
        .send({ default_assignee_id: contributor.id });
      expect(pr.status).toBe(200);
      const url = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/work-items/`;
      expect((await create({ name: 'd' }, ten.owner.key, url)).body.assignee_ids).toEqual([contributor.id]);
      expect((await create({ name: 'd', assignee_ids: [] }, ten.owner.key, url)).body.assignee_ids).toEqual([]);
      expect((await create({ name: 'd', assignee_ids: [ten.owner.id] }, ten.owner.key, url)).body.assignee_ids).toEqual(
        [ten.owner.id],
      );
    });

    it('parent by identifier (any project of the workspace, case-insensitive) or id; loops and foreign parents are 400', async () => {
      const other = await t.project(ten.slug, ten.owner.key, { identifier: 'OTH' });
      const parent = await create(
        { name: 'parent' },
        ten.owner.key,
        `/api/v2/workspaces/${ten.slug}/projects/${other.id}/work-items/`,
      );
      const child = await create({ name: 'child', parent: `oth-${parent.body.sequence_id}` });
      expect(child.status).toBe(201);
      expect(child.body.parent_id).toBe(parent.body.id);
      expect(
        errorFields(expectProblem(await create({ name: 'c', parent: 'OTH-99999' }), 400, 'validation_error')),
      ).toEqual(['parent']);
      expect(
        errorFields(expectProblem(await create({ name: 'c', parent: 'garbage' }), 400, 'validation_error')),
      ).toEqual(['parent']);
      const otherTen = await t.tenant();
      const op = await t.project(otherTen.slug, otherTen.owner.key);
      const foreign = await create(
        { name: 'f' },
        otherTen.owner.key,
        `/api/v2/workspaces/${otherTen.slug}/projects/${op.id}/work-items/`,
      );
      expect(
        errorFields(expectProblem(await create({ name: 'c', parent_id: foreign.body.id }), 400, 'validation_error')),
      ).toEqual(['parent_id']);
      const grandchild = await create({ name: 'grandchild', parent_id: child.body.id });
      expectProblem(await patch(child.body.id, { parent_id: grandchild.body.id }), 400, 'validation_error');
      expectProblem(await patch(child.body.id, { parent_id: child.body.id }), 400, 'validation_error');
      expect((await patch(child.body.id, { parent_id: null })).body.parent_id).toBeNull();
      const e = await t.http.get(`${base}${grandchild.body.id}/?expand=parent`).set(key());
      expect(e.body.parent).toEqual({ id: child.body.id, name: 'child', sequence_id: child.body.sequence_id });
    });

    it('a parent in another project must be one the writer can read: hidden projects answer like nothing is there; the current parent may be resent', async () => {
      const hidden = await t.project(ten.slug, ten.owner.key, { identifier: 'HID' });
      const secret = (
        await create(
          { name: 'secret' },
          ten.owner.key,
          `/api/v2/workspaces/${ten.slug}/projects/${hidden.id}/work-items/`,
        )
      ).body;
      // The contributor is on this project only: the hidden item is 400 like an unknown one, by id and by identifier.
      const byId = expectProblem(
        await create({ name: 'c', parent_id: secret.id }, contributor.key),
        400,
        'validation_error',
      );
      expect(byId.errors).toEqual([{ field: 'parent_id', message: expect.stringContaining(secret.id) }]);
      expect(
        errorFields(
          expectProblem(
            await create({ name: 'c', parent: `HID-${secret.sequence_id}` }, contributor.key),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['parent']);
      // An owner (workspace admin) links it; the contributor may still edit the item and send its parent back.
      const child = (await create({ name: 'linked by the owner', parent_id: secret.id })).body;
      const edited = await patch(child.id, { name: 'edited by a contributor', parent_id: secret.id }, contributor.key);
      expect(edited.status).toBe(200);
      expect(edited.body.parent_id).toBe(secret.id);
      expect(
        errorFields(
          expectProblem(
            await patch(child.id, { parent_id: secret.id, parent: `WIT-${child.sequence_id}` }, contributor.key),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['parent']);
      // A guest of the hidden project does not see its items (gap-reference 6: guests are intake only), so still 400...
      const membership = await addToProject(ten.slug, hidden.id, contributor.id, 'guest');
      expect(
        errorFields(
          expectProblem(await create({ name: 'c', parent_id: secret.id }, contributor.key), 400, 'validation_error'),
        ),
      ).toEqual(['parent_id']);
      // ...a commenter there does: the contributor can link to it.
      const promoted = await t.http
        .patch(`/api/v2/workspaces/${ten.slug}/projects/${hidden.id}/members/${membership.id}/`)
        .set(key())
        .send({ role: 'commenter' });
      expect(promoted.status).toBe(200);
      expect((await create({ name: 'c', parent_id: secret.id }, contributor.key)).status).toBe(201);
    });

    it("deleting a project lifts its items' children in other projects to the top level; its items cannot become parents", async () => {
      const doomed = await t.project(ten.slug, ten.owner.key, { identifier: 'DOOM' });
      const doomedItems = `/api/v2/workspaces/${ten.slug}/projects/${doomed.id}/work-items/`;
      const parent = await create({ name: 'parent in a doomed project' }, ten.owner.key, doomedItems);
      const sibling = await create(
        { name: 'sibling in the doomed project', parent_id: parent.body.id },
        ten.owner.key,
        doomedItems,
      );
      const child = await create({ name: 'child elsewhere', parent_id: parent.body.id });
      const customField = await create({ name: 'relation holder' });
      expect(child.body.parent_id).toBe(parent.body.id);
      expect((await t.http.delete(`/api/v2/workspaces/${ten.slug}/projects/${doomed.id}/`).set(key())).status).toBe(
        204,
      );

      const after = await t.http.get(`${base}${child.body.id}/?expand=parent`).set(key());
      expect(after.body).toMatchObject({ parent_id: null, parent: null });
      expect((await t.http.get(`${base}?parent_id=${parent.body.id}`).set(key())).body.data).toEqual([]);
      // The doomed project's own rows are left as they were (hidden with it).
      expect((await t.ds.query(`SELECT parent_id FROM work_items WHERE id = $1`, [sibling.body.id]))[0].parent_id).toBe(
        parent.body.id,
      );
      // Neither form can link an item of the deleted project any more.
      expect(
        errorFields(expectProblem(await create({ name: 'c', parent_id: parent.body.id }), 400, 'validation_error')),
      ).toEqual(['parent_id']);
      expect(
        errorFields(
          expectProblem(
            await create({ name: 'c', parent: `DOOM-${parent.body.sequence_id}` }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['parent']);
      expectProblem(await patch(customField.body.id, { parent_id: parent.body.id }), 400, 'validation_error');
    });

    it('estimate by point value or id against the active estimate; both forms 400', async () => {
      await t.http
        .patch(`/api/v2/workspaces/${ten.slug}/projects/${pid}/features/`)
        .set(key())
        .send({ is_estimates_enabled: true });
      const est = await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/estimates/`)
        .set(key())
        .send({ name: 'Sizes', is_active: true });
      expect(est.status).toBe(201);
      const pt = await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/estimates/${est.body.id}/points/`)
        .set(key())
        .send({ value: 'L' });
      expect(pt.status).toBe(201);
      const r = await create({ name: 'e', estimate: 'l' });
      expect(r.status).toBe(201);
      expect(r.body.estimate_point_id).toBeUndefined();
      expect(
        (await t.ds.query(`SELECT estimate_point_id FROM work_items WHERE id = $1`, [r.body.id]))[0].estimate_point_id,
      ).toBe(pt.body.id);
      expectProblem(await create({ name: 'e', estimate: 'XXL' }), 400, 'validation_error');
      expectProblem(await create({ name: 'e', estimate: 'L', estimate_point_id: pt.body.id }), 400, 'validation_error');
      await patch(r.body.id, { estimate_point_id: null });
      expect(
        (await t.ds.query(`SELECT estimate_point_id FROM work_items WHERE id = $1`, [r.body.id]))[0].estimate_point_id,
      ).toBeNull();
    });
  });

  describe('reads', () => {
    it('get by id: custom_fields populated; malformed pk 400; other project 404; expand adds objects beside ids', async () => {
      const l = await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/`)
        .set(key())
        .send({ name: 'Expand-me', color: '#ff0000' });
      const c = await create({ name: 'Expand', label_ids: [l.body.id], assignee_ids: [contributor.id] });
      const res = await t.http.get(`${base}${c.body.id}/?expand=state,labels,assignees,type,parent`).set(key());
      expect(res.status).toBe(200);
      expect(res.body.custom_fields).toEqual({});
      expect(res.body.state_id).toBe(states.Backlog);
      expect(res.body.state).toEqual({
        id: states.Backlog,
        name: 'Backlog',
        color: expect.any(String),
        group: 'backlog',
      });
      expect(res.body.labels).toEqual([{ id: l.body.id, name: 'Expand-me', color: '#ff0000' }]);
      expect(res.body.assignees).toEqual([
        { id: contributor.id, display_name: expect.any(String), avatar_url: null, email: contributor.email },
      ]);
      expect(res.body.type).toBeNull();
      expect(res.body.parent).toBeNull();
      expect((await t.http.get(`${base}${c.body.id}/`).set(key())).body.state).toBeUndefined();
      const b = expectProblem(
        await t.http.get(`${base}${c.body.id}/?expand=state,comments`).set(key()),
        400,
        'validation_error',
      );
      expect(errorFields(b)).toEqual(['expand']);
      // {pk} is the UUID only: the identifier form is 404 (spec), any other non-UUID 400 naming pk.
      expectProblem(await t.http.get(`${base}${ident}-1/`).set(key()), 404, 'resource_not_found');
      expect(
        errorFields(expectProblem(await t.http.get(`${base}not-a-uuid/`).set(key()), 400, 'validation_error')),
      ).toEqual(['pk']);
      const other = await t.project(ten.slug, ten.owner.key);
      expectProblem(
        await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/${other.id}/work-items/${c.body.id}/`).set(key()),
        404,
        'resource_not_found',
      );
      const created = await create({ name: 'with expand' }, ten.owner.key, `${base}?expand=state`);
      expect(created.body.state.id).toBe(states.Backlog);
      expect((await patch(created.body.id, {})).status).toBe(200);
    });

    it('get by identifier: case-insensitive project part; malformed, other workspace, non-member and archived are 404', async () => {
      const c = await create({ name: 'By identifier' });
      const url = (i: string, slug = ten.slug) => `/api/v2/workspaces/${slug}/work-items/${i}/`;
      const res = await t.http.get(url(`wit-${c.body.sequence_id}`)).set(key());
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: c.body.id, identifier: `WIT-${c.body.sequence_id}`, custom_fields: {} });
      // The later edition's read shape names the project (issue 19).
      expect(res.body.project_id).toBe(pid);
      expect((await t.http.get(`${url(c.body.identifier)}?expand=state`).set(key())).body.state.id).toBe(
        states.Backlog,
      );
      expect((await t.http.get(url(c.body.identifier)).set(key(commenter.key))).status).toBe(200);
      // A project guest is on the project but below the reading role: 403, not the 404 of no access.
      expectProblem(await t.http.get(url(c.body.identifier)).set(key(guest.key)), 403, 'forbidden');
      for (const bad of [
        `WIT_${c.body.sequence_id}`,
        `${c.body.sequence_id}`,
        `-${c.body.sequence_id}`,
        'WIT-99999',
        '1WIT-1',
        `WIT-0${c.body.sequence_id}`,
        'WIT-0',
        `%20WIT-${c.body.sequence_id}`,
        `WIT-${c.body.sequence_id}%20`,
        `WIT-${c.body.sequence_id}%09`,
      ]) {
        expectProblem(await t.http.get(url(bad)).set(key()), 404, 'resource_not_found');
      }
      const outsider = await t.member(ten.slug, 'member');
      expectProblem(await t.http.get(url(c.body.identifier)).set(key(outsider.key)), 404, 'resource_not_found');
      const otherTen = await t.tenant();
      expectProblem(
        await t.http.get(url(c.body.identifier, otherTen.slug)).set(key(otherTen.owner.key)),
        404,
        'resource_not_found',
      );
      expectProblem(await t.http.get(url(c.body.identifier, otherTen.slug)).set(key()), 404, 'resource_not_found');
      await t.http.post(`${base}${c.body.id}/archive/`).set(key());
      expectProblem(await t.http.get(url(c.body.identifier)).set(key()), 404, 'resource_not_found');
    });
  });

  describe('update', () => {
    it('is partial; read-only fields are ignored; null clears; sets are replaced', async () => {
      const c = await create({
        name: 'Patch me',
        priority: 'high',
        assignee_ids: [contributor.id],
        start_date: '2025-01-01',
      });
      const res = await patch(c.body.id, {
        name: 'Patched',
        sequence_id: 999,
        identifier: 'X-1',
        is_draft: true,
        archived_at: '2020-01-01T00:00:00Z',
        created_by_id: contributor.id,
        id: contributor.id,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...c.body, name: 'Patched', custom_fields: {} });
      const cleared = await patch(c.body.id, { start_date: null, assignee_ids: [] });
      expect(cleared.body).toMatchObject({ start_date: null, assignee_ids: [], priority: 'high' });
      // null clears a set like [] (spec: "sending null clears it"), in either form.
      expect((await patch(c.body.id, { assignee_ids: [contributor.id] })).body.assignee_ids).toEqual([contributor.id]);
      expect((await patch(c.body.id, { assignee_ids: null, label_ids: null })).body).toMatchObject({
        assignee_ids: [],
        label_ids: [],
      });
      expect((await patch(c.body.id, { assignees: [contributor.email] })).body.assignee_ids).toEqual([contributor.id]);
      expect((await patch(c.body.id, { assignees: null })).body.assignee_ids).toEqual([]);
      expectProblem(await patch(c.body.id, { name: null }), 400, 'validation_error');
      expectProblem(await patch(c.body.id, { state_id: null }), 400, 'validation_error');
      expect((await patch(c.body.id, { state: 'done' })).body.state_id).toBe(states.Done);
      const [row] = await t.ds.query(`SELECT updated_by_id FROM work_items WHERE id = $1`, [c.body.id]);
      expect(row.updated_by_id).toBe(ten.owner.id);
      expectProblem(await patch('00000000-0000-4000-8000-000000000000', { name: 'x' }), 404, 'resource_not_found');
    });
    it('sending the current type or estimate point again is no change, even once the type is inactive or the estimate is not', async () => {
      const p = await t.project(ten.slug, ten.owner.key);
      const pb = `/api/v2/workspaces/${ten.slug}/projects/${p.id}`;
      const url = `${pb}/work-items/`;
      expect((await t.http.post(`${pb}/work-item-types/enable/`).set(key())).status).toBe(200);
      const bug = (await t.http.post(`${pb}/work-item-types/`).set(key()).send({ name: 'Bug' })).body;
      const spike = (await t.http.post(`${pb}/work-item-types/`).set(key()).send({ name: 'Spike' })).body;
      await t.http.patch(`${pb}/features/`).set(key()).send({ is_estimates_enabled: true });
      const sizes = (await t.http.post(`${pb}/estimates/`).set(key()).send({ name: 'Sizes', is_active: true })).body;
      const [m, l] = await Promise.all(
        ['M', 'L'].map(
          async (value) => (await t.http.post(`${pb}/estimates/${sizes.id}/points/`).set(key()).send({ value })).body,
        ),
      );
      const item = (
        await create({ name: 'Keeps its type', type_id: bug.id, estimate_point_id: m.id }, ten.owner.key, url)
      ).body;
      expect(
        (await t.http.patch(`${pb}/work-item-types/${bug.id}/`).set(key()).send({ is_active: false })).status,
      ).toBe(200);
      expect(
        (await t.http.patch(`${pb}/work-item-types/${spike.id}/`).set(key()).send({ is_active: false })).status,
      ).toBe(200);
      expect((await t.http.post(`${pb}/estimates/`).set(key()).send({ name: 'Points', is_active: true })).status).toBe(
        201,
      );
      const same = await t.http
        .patch(`${url}${item.id}/`)
        .set(key())
        .send({ type_id: bug.id.toUpperCase(), estimate_point_id: m.id, name: 'Still a bug' });
      expect(same.status).toBe(200);
      expect(same.body).toMatchObject({ type_id: bug.id, name: 'Still a bug' });
      expect(
        (await t.ds.query(`SELECT estimate_point_id FROM work_items WHERE id = $1`, [item.id]))[0].estimate_point_id,
      ).toBe(m.id);
      // With its name form beside it, the current id is still the both-forms 400 (nothing changes).
      expect(
        errorFields(
          expectProblem(
            await t.http.patch(`${url}${item.id}/`).set(key()).send({ type_id: bug.id, type: 'Task' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['type']);
      expect(
        errorFields(
          expectProblem(
            await t.http.patch(`${url}${item.id}/`).set(key()).send({ estimate_point_id: m.id, estimate: 'L' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['estimate']);
      // A different inactive type, or another point of the inactive estimate, is still a new choice: 400.
      expect(
        errorFields(
          expectProblem(
            await t.http.patch(`${url}${item.id}/`).set(key()).send({ type_id: spike.id }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['type_id']);
      expect(
        errorFields(
          expectProblem(
            await t.http.patch(`${url}${item.id}/`).set(key()).send({ estimate_point_id: l.id }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['estimate_point_id']);
    });

    it('nested objects of an expanded read are ignored when sent back (gap-reference 4), on PATCH and create', async () => {
      const label = (
        await t.http
          .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/`)
          .set(key())
          .send({ name: 'roundtrip' })
      ).body;
      const parent = (await create({ name: 'Round-trip parent' })).body;
      const c = (
        await create({
          name: 'Round trip',
          state: 'todo',
          assignee_ids: [contributor.id],
          label_ids: [label.id],
          parent_id: parent.id,
        })
      ).body;
      const expanded = (await t.http.get(`${base}${c.id}/?expand=state,type,parent,assignees,labels`).set(key())).body;
      expect(expanded.state).toEqual(expect.objectContaining({ id: states.Todo }));
      expect(expanded.type).toBeNull();
      // The whole expanded body sent back: objects, null to-ones and arrays of objects are ignored, ids rule.
      const back = await patch(c.id, { ...expanded, name: 'Round trip 2' });
      expect(back.status).toBe(200);
      expect(back.body).toEqual({ ...c, name: 'Round trip 2', custom_fields: {} });
      // An item with empty sets: [] beside its id field is the expansion of an empty set, not a second form.
      const bare = (await create({ name: 'Bare' })).body;
      const bareExpanded = (await t.http.get(`${base}${bare.id}/?expand=state,type,parent,assignees,labels`).set(key()))
        .body;
      expect(bareExpanded).toMatchObject({ parent: null, assignees: [], labels: [] });
      expect((await patch(bare.id, bareExpanded)).status).toBe(200);
      // On create too; the name forms stay strings.
      const made = await create({
        name: 'Objects only',
        state: { id: states.Done, name: 'Done' },
        parent: null,
        labels: [{ id: label.id, name: 'roundtrip' }],
      });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({ state_id: states.Backlog, parent_id: null, label_ids: [] });
      expect(errorFields(expectProblem(await create({ name: 'x', state: 7 }), 400, 'validation_error'))).toEqual([
        'state',
      ]);
      expect(
        errorFields(
          expectProblem(await create({ name: 'x', state_id: states.Done, state: 'done' }), 400, 'validation_error'),
        ),
      ).toEqual(['state']);
      expect(
        errorFields(
          expectProblem(await create({ name: 'x', labels: ['roundtrip', { id: label.id }] }), 400, 'validation_error'),
        ),
      ).toEqual(['labels']);
    });
  });

  describe('archive, unarchive, delete', () => {
    it('archive: 200 with archived_at and custom_fields null; gone from get and list; again 404; unarchive idempotent', async () => {
      const c = await create({ name: 'Archive me' });
      const a = await t.http.post(`${base}${c.body.id}/archive/`).set(key()).send({ anything: true });
      expect(a.status).toBe(200);
      expect(a.body.archived_at).not.toBeNull();
      expect(a.body.custom_fields).toBeNull();
      expect(a.body.id).toBe(c.body.id);
      expectProblem(await t.http.get(`${base}${c.body.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(await patch(c.body.id, { name: 'x' }), 404, 'resource_not_found');
      const list = await t.http.get(`${base}?per_page=200`).set(key());
      expect(list.body.data.map((x: any) => x.id)).not.toContain(c.body.id);
      expectProblem(await t.http.post(`${base}${c.body.id}/archive/`).set(key()), 404, 'resource_not_found');
      // Unarchive is the one route that still resolves an archived item: DELETE does not, and deletes nothing.
      expectProblem(await t.http.delete(`${base}${c.body.id}/`).set(key()), 404, 'resource_not_found');
      expect(
        (await t.ds.query(`SELECT deleted_at FROM work_items WHERE id = $1`, [c.body.id]))[0].deleted_at,
      ).toBeNull();
      const u = await t.http.post(`${base}${c.body.id}/unarchive/`).set(key());
      expect(u.status).toBe(200);
      expect(u.body).toMatchObject({ id: c.body.id, archived_at: null, custom_fields: null });
      const again = await t.http.post(`${base}${c.body.id}/unarchive/`).set(key());
      expect(again.status).toBe(200);
      expect(again.body.archived_at).toBeNull();
      expect((await t.http.get(`${base}${c.body.id}/`).set(key())).status).toBe(200);
      expectProblem(
        await t.http.post(`${base}${ident}-${c.body.sequence_id}/unarchive/`).set(key()),
        404,
        'resource_not_found',
      );
      expectProblem(await t.http.post(`${base}12345/unarchive/`).set(key()), 400, 'validation_error');
      // Bodyless: an empty body sent with a JSON content type is no body, not a 400.
      const empty = await t.http
        .post(`${base}${c.body.id}/archive/`)
        .set(key())
        .set('Content-Type', 'application/json')
        .send('');
      expect(empty.status).toBe(200);
      expect(empty.body.archived_at).not.toBeNull();
      const emptyUn = await t.http
        .post(`${base}${c.body.id}/unarchive/`)
        .set(key())
        .set('Content-Type', 'application/json')
        .send('');
      expect(emptyUn.status).toBe(200);
      expect(emptyUn.body.archived_at).toBeNull();
      expectProblem(
        await t.http.post(`${base}00000000-0000-4000-8000-000000000000/unarchive/`).set(key()),
        404,
        'resource_not_found',
      );
    });

    it('delete: soft, 204; repeat 404; only project admins and the creator; sequence ids never reused', async () => {
      const mine = await create({ name: 'Contributor item' }, contributor.key);
      expect(mine.status).toBe(201);
      const owners = await create({ name: 'Owner item' });
      expectProblem(await t.http.delete(`${base}${owners.body.id}/`).set(key(contributor.key)), 403, 'forbidden');
      expect((await t.http.delete(`${base}${mine.body.id}/`).set(key(contributor.key))).status).toBe(204);
      expectProblem(
        await t.http.delete(`${base}${mine.body.id}/`).set(key(contributor.key)),
        404,
        'resource_not_found',
      );
      expectProblem(await t.http.get(`${base}${mine.body.id}/`).set(key()), 404, 'resource_not_found');
      expect(
        (await t.ds.query(`SELECT deleted_at FROM work_items WHERE id = $1`, [mine.body.id]))[0].deleted_at,
      ).not.toBeNull();
      expect((await t.http.delete(`${base}${owners.body.id}/`).set(key())).status).toBe(204);
      const next = await create({ name: 'After delete' });
      expect(next.body.sequence_id).toBeGreaterThan(owners.body.sequence_id);
      expectProblem(await t.http.delete(`${base}not-a-uuid/`).set(key()), 400, 'validation_error');
    });
  });

  describe('OpenAPI', () => {
    it("unarchive declares the spec's errors, 409 conflict included, as problem+json", async () => {
      const doc = (await t.http.get('/api/v2/schema/')).body;
      const op = doc.paths['/api/v2/workspaces/{slug}/projects/{project_id}/work-items/{pk}/unarchive/'].post;
      expect(op.operationId).toBe('work_items_unarchive');
      for (const status of ['400', '404', '409'])
        expect(Object.keys(op.responses[status].content)).toEqual(['application/problem+json']);
      expect(op.responses['409'].description).toContain('`conflict`');
    });
  });

  describe('relations deleted between resolve and insert', () => {
    it('create re-checks labels, estimate point and parent inside the transaction: deleted meanwhile is 400, nothing written', async () => {
      const p = await t.project(ten.slug, ten.owner.key);
      const pb = `/api/v2/workspaces/${ten.slug}/projects/${p.id}`;
      const url = `${pb}/work-items/`;
      const s = await stateIds(ten.slug, p.id, ten.owner.key);
      await t.http.patch(`${pb}/features/`).set(key()).send({ is_estimates_enabled: true });
      const est = await t.http.post(`${pb}/estimates/`).set(key()).send({ name: 'Race sizes', is_active: true });
      const pt = await t.http.post(`${pb}/estimates/${est.body.id}/points/`).set(key()).send({ value: 'M' });
      const label = await t.http.post(`${pb}/labels/`).set(key()).send({ name: 'racy' });
      const keep = await t.http.post(`${pb}/labels/`).set(key()).send({ name: 'kept' });
      const parent = await create({ name: 'racy parent' }, ten.owner.key, url);
      expect([pt.status, label.status, keep.status, parent.status]).toEqual([201, 201, 201, 201]);

      // Pause the create after resolution: hold the default state FOR UPDATE, so its in-transaction state
      // check (FOR KEY SHARE) waits; meanwhile delete the label, the point and the parent through the API.
      const qr = t.ds.createQueryRunner();
      await qr.connect();
      await qr.startTransaction();
      try {
        await qr.query(`SELECT id FROM states WHERE id = $1 FOR UPDATE`, [s.Backlog]);
        const pending = create(
          {
            name: 'raced',
            label_ids: [keep.body.id, label.body.id],
            estimate_point_id: pt.body.id,
            parent_id: parent.body.id,
          },
          ten.owner.key,
          url,
        ).then((r) => r);
        await waitForLockWait(t.ds, '%FROM states%FOR KEY SHARE%');
        expect((await t.http.delete(`${pb}/labels/${label.body.id}/`).set(key())).status).toBe(204);
        expect((await t.http.delete(`${pb}/estimates/${est.body.id}/points/${pt.body.id}/`).set(key())).status).toBe(
          204,
        );
        expect((await t.http.delete(`${url}${parent.body.id}/`).set(key())).status).toBe(204);
        await qr.commitTransaction();
        const b = expectProblem(await pending, 400, 'validation_error');
        expect(b.errors).toEqual([
          { field: 'label_ids', message: expect.stringContaining(label.body.id) },
          { field: 'estimate_point_id', message: expect.stringContaining(pt.body.id) },
          { field: 'parent_id', message: expect.stringContaining(parent.body.id) },
        ]);
      } finally {
        if (qr.isTransactionActive) await qr.rollbackTransaction();
        await qr.release();
      }
      expect(
        (
          await t.ds.query(`SELECT count(*)::int AS n FROM work_items WHERE project_id = $1 AND name = 'raced'`, [p.id])
        )[0].n,
      ).toBe(0);
      expect(
        (await t.ds.query(`SELECT count(*)::int AS n FROM work_item_labels WHERE label_id = $1`, [label.body.id]))[0].n,
      ).toBe(0);
      // Afterwards the deleted point is refused at resolution already; the surviving label by name resolves and locks.
      expect(
        errorFields(
          expectProblem(
            await create({ name: 'calm', labels: ['kept'], estimate: 'M' }, ten.owner.key, url),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['estimate']);
      expect((await create({ name: 'calm', labels: ['kept'] }, ten.owner.key, url)).body.label_ids).toEqual([
        keep.body.id,
      ]);
    });
  });

  describe('deleting a parent', () => {
    it('lifts its children (any project, archived too) to the top level in the same transaction; grandchildren keep theirs', async () => {
      const other = await t.project(ten.slug, ten.owner.key);
      const otherUrl = `/api/v2/workspaces/${ten.slug}/projects/${other.id}/work-items/`;
      const parent = await create({ name: 'doomed parent' }, contributor.key);
      const child = await create({ name: 'child of doomed', parent_id: parent.body.id });
      const archivedChild = await create({ name: 'archived child of doomed', parent_id: parent.body.id });
      await t.http.post(`${base}${archivedChild.body.id}/archive/`).set(key());
      const remote = await create(
        { name: 'remote child of doomed', parent_id: parent.body.id },
        ten.owner.key,
        otherUrl,
      );
      const grandchild = await create({ name: 'grandchild of doomed', parent_id: child.body.id });
      expect(
        (await t.http.get(`${base}?parent_id=${parent.body.id}`).set(key())).body.data.map((x: any) => x.id),
      ).toEqual([child.body.id]);

      expect((await t.http.delete(`${base}${parent.body.id}/`).set(key(contributor.key))).status).toBe(204);

      const got = await t.http.get(`${base}${child.body.id}/?expand=parent`).set(key());
      expect(got.body).toMatchObject({ parent_id: null, parent: null });
      expect((await t.http.get(`${base}?parent_id=${parent.body.id}`).set(key())).body.data).toEqual([]);
      expect((await t.http.get(`${base}?parent_id__in=${parent.body.id}`).set(key())).body.data).toEqual([]);
      const top = (await t.http.get(`${base}?parent_id__isnull=true&per_page=200`).set(key())).body.data.map(
        (x: any) => x.id,
      );
      expect(top).toContain(child.body.id);
      expect(top).not.toContain(grandchild.body.id);
      expect((await t.http.get(`${base}${grandchild.body.id}/`).set(key())).body.parent_id).toBe(child.body.id);
      expect((await t.http.get(`${otherUrl}${remote.body.id}/`).set(key())).body.parent_id).toBeNull();
      expect((await t.http.post(`${base}${archivedChild.body.id}/unarchive/`).set(key())).body.parent_id).toBeNull();
      const [row] = await t.ds.query(`SELECT updated_by_id FROM work_items WHERE id = $1`, [child.body.id]);
      expect(row.updated_by_id).toBe(contributor.id);
      // The deleted parent can no longer be chosen.
      expect(
        errorFields(
          expectProblem(await create({ name: 'late child', parent_id: parent.body.id }), 400, 'validation_error'),
        ),
      ).toEqual(['parent_id']);
    });
  });

  describe('permissions and tenant wall', () => {
    it('reads: project commenter+ (a guest is intake only, gap-reference 6); writes: contributor+; scopes projects.work_items:read/write', async () => {
      const c = await create({ name: 'Perm' });
      expectProblem(await t.http.get(base).set(key(guest.key)), 403, 'forbidden');
      expectProblem(await t.http.get(`${base}${c.body.id}/`).set(key(guest.key)), 403, 'forbidden');
      expect((await t.http.get(base).set(key(commenter.key))).status).toBe(200);
      expect((await t.http.get(`${base}${c.body.id}/`).set(key(commenter.key))).status).toBe(200);
      expectProblem(await create({ name: 'g' }, guest.key), 403, 'forbidden');
      expectProblem(await create({ name: 'c' }, commenter.key), 403, 'forbidden');
      expectProblem(await patch(c.body.id, { name: 'c' }, commenter.key), 403, 'forbidden');
      expectProblem(await t.http.post(`${base}${c.body.id}/archive/`).set(key(guest.key)), 403, 'forbidden');
      expect((await patch(c.body.id, { name: 'by contributor' }, contributor.key)).status).toBe(200);
      const readTok = await t.token(ten.owner.email, ['projects.work_items:read']);
      const writeTok = await t.token(ten.owner.email, ['projects.work_items:write']);
      const bearer = (tok: string) => ({ Authorization: `Bearer ${tok}` });
      expect((await t.http.get(base).set(bearer(readTok))).status).toBe(200);
      expect(
        (await t.http.get(`/api/v2/workspaces/${ten.slug}/work-items/${c.body.identifier}/`).set(bearer(readTok)))
          .status,
      ).toBe(200);
      expectProblem(await t.http.post(base).set(bearer(readTok)).send({ name: 'x' }), 403, 'forbidden');
      expectProblem(await t.http.get(base).set(bearer(writeTok)), 403, 'forbidden');
      expect((await t.http.post(base).set(bearer(writeTok)).send({ name: 'x' })).status).toBe(201);
      const outsider = await t.member(ten.slug, 'member');
      expectProblem(await t.http.get(base).set(key(outsider.key)), 403, 'forbidden');
    });

    it("another workspace's project and work items are 404", async () => {
      const otherTen = await t.tenant();
      const op = await t.project(otherTen.slug, otherTen.owner.key);
      const theirs = await create(
        { name: 'theirs' },
        otherTen.owner.key,
        `/api/v2/workspaces/${otherTen.slug}/projects/${op.id}/work-items/`,
      );
      expectProblem(
        await t.http.get(`/api/v2/workspaces/${otherTen.slug}/projects/${op.id}/work-items/`).set(key()),
        404,
        'resource_not_found',
      );
      for (const req of [
        t.http.get(`${base}${theirs.body.id}/`),
        t.http.patch(`${base}${theirs.body.id}/`).send({ name: 'x' }),
        t.http.delete(`${base}${theirs.body.id}/`),
        t.http.post(`${base}${theirs.body.id}/archive/`),
        t.http.post(`${base}${theirs.body.id}/unarchive/`),
      ]) {
        expectProblem(await req.set(key()), 404, 'resource_not_found');
      }
      expect(
        (await t.ds.query(`SELECT name, archived_at, deleted_at FROM work_items WHERE id = $1`, [theirs.body.id]))[0],
      ).toEqual({ name: 'theirs', archived_at: null, deleted_at: null });
    });
  });

  describe('workflow rules', () => {
    it('create in a restricted state and a disallowed state change are 403 workflow_transition_denied, writing nothing', async () => {
      const p = await t.project(ten.slug, ten.owner.key);
      const s = await stateIds(ten.slug, p.id, ten.owner.key);
      const url = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/work-items/`;
      const wfUrl = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/workflows/`;
      const item = await create({ name: 'before rules', state_id: s.Todo }, ten.owner.key, url);
      expect(
        (
          await t.http
            .patch(`/api/v2/workspaces/${ten.slug}/projects/${p.id}/features/`)
            .set(key())
            .send({ is_workflow_enabled: true })
        ).status,
      ).toBe(200);
      const wf = await t.http.post(wfUrl).set(key()).send({ name: 'Rules', is_active: true });
      const row = async (state: string, allow: boolean) =>
        (
          await t.http
            .post(`${wfUrl}${wf.body.id}/states/`)
            .set(key())
            .send({ state_id: s[state], allow_issue_creation: allow })
        ).body.id;
      await row('Backlog', false);
      const todo = await row('Todo', true);
      expect(
        (
          await t.http
            .post(`${wfUrl}${wf.body.id}/state-transitions/`)
            .set(key())
            .send({ workflow_state_id: todo, transition_state_id: s['In Progress'] })
        ).status,
      ).toBe(201);
      const count = async () =>
        (await t.ds.query(`SELECT count(*)::int AS c FROM work_items WHERE project_id = $1`, [p.id]))[0].c;
      const before = await count();
      expectProblem(await create({ name: 'x' }, ten.owner.key, url), 403, 'workflow_transition_denied');
      expectProblem(
        await create({ name: 'x', state: 'backlog' }, ten.owner.key, url),
        403,
        'workflow_transition_denied',
      );
      expect(await count()).toBe(before);
      expect((await create({ name: 'ok', state_id: s.Todo }, ten.owner.key, url)).status).toBe(201);
      const denied = await t.http
        .patch(`${url}${item.body.id}/`)
        .set(key())
        .send({ state_id: s.Done, name: 'renamed too' });
      expectProblem(denied, 403, 'workflow_transition_denied');
      expect((await t.ds.query(`SELECT name, state_id FROM work_items WHERE id = $1`, [item.body.id]))[0]).toEqual({
        name: 'before rules',
        state_id: s.Todo,
      });
      expect(
        (await t.http.patch(`${url}${item.body.id}/`).set(key()).send({ name: 'non-state edit', state_id: s.Todo }))
          .status,
      ).toBe(200);
      expect(
        (await t.http.patch(`${url}${item.body.id}/`).set(key()).send({ state: 'In Progress' })).body.state_id,
      ).toBe(s['In Progress']);
    });
  });

  describe('sequence ids', () => {
    it('100 parallel creates in one project get 100 distinct sequence ids, no error', async () => {
      const p = await t.project(ten.slug, ten.owner.key);
      const url = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/work-items/`;
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => create({ name: `parallel ${i}` }, ten.owner.key, url)),
      );
      expect(results.map((r) => r.status)).toEqual(Array(100).fill(201));
      const seqs = results.map((r) => r.body.sequence_id);
      expect(new Set(seqs).size).toBe(100);
      expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(new Set(results.map((r) => r.body.identifier)).size).toBe(100);
    });
  });

  describe("other engineers' hooks", () => {
    it('a state holding work items cannot be deleted (409); deleting a label strips it from work items', async () => {
      const sb = `/api/v2/workspaces/${ten.slug}/projects/${pid}/states/`;
      const busy = await t.http.post(sb).set(key()).send({ name: 'Busy', color: '#fff' });
      await create({ name: 'in busy', state_id: busy.body.id });
      expectProblem(await t.http.delete(`${sb}${busy.body.id}/`).set(key()), 409, 'conflict');
      const lb = `/api/v2/workspaces/${ten.slug}/labels/`;
      const wl = await t.http.post(lb).set(key()).send({ name: 'Strip me' });
      const item = await create({ name: 'labelled', label_ids: [wl.body.id] });
      expect((await t.http.delete(`${lb}${wl.body.id}/`).set(key())).status).toBe(204);
      expect((await t.http.get(`${base}${item.body.id}/`).set(key())).body.label_ids).toEqual([]);
    });
  });
});
