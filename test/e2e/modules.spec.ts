import { createTestApp, expectProblem, Tenant, TestApp, errorFields } from '../helpers/test-app';

describe('modules', () => {
  let t: TestApp;
  let ten: Tenant;
  let projectId: string;
  let contributor: { id: string; email: string; key: string };
  let commenter: { id: string; email: string; key: string };
  let guest: { id: string; email: string; key: string };
  let outsider: { id: string; email: string; key: string };

  const base = (pid = projectId, slug = ten.slug) => `/api/v2/workspaces/${slug}/projects/${pid}/modules/`;
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });
  const create = async (body: Record<string, unknown>, pid = projectId, k = ten.owner.key, slug = ten.slug) => {
    const res = await t.http.post(base(pid, slug)).set(key(k)).send(body);
    if (res.status !== 201) throw new Error(`module create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const addToProject = async (pid: string, userId: string, role: string) => {
    const r = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/members/`)
      .set(key())
      .send({ member_id: userId, role });
    if (r.status !== 201) throw new Error(`add member failed: ${r.status} ${JSON.stringify(r.body)}`);
  };
  const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((x) => x.id);

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    projectId = (await t.project(ten.slug, ten.owner.key)).id;
    contributor = await t.member(ten.slug, 'member');
    commenter = await t.member(ten.slug, 'member');
    guest = await t.member(ten.slug, 'guest');
    outsider = await t.member(ten.slug, 'member');
    await addToProject(projectId, contributor.id, 'contributor');
    await addToProject(projectId, commenter.id, 'commenter');
    await addToProject(projectId, guest.id, 'guest');
  });
  afterAll(() => t.close());

  describe('create', () => {
    it('creates with only a name: status planned, no members', async () => {
      const m = await create({ name: 'Module minimal' });
      expect(m).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Module minimal',
        description: '',
        status: 'planned',
        start_date: null,
        target_date: null,
        lead_id: null,
        member_ids: [],
        sort_order: expect.any(Number),
        logo_props: {},
        external_id: null,
        external_source: null,
        archived_at: null,
        created_at: expect.any(String),
        created_by_id: ten.owner.id,
      });
    });

    it('stores every writable field; read-only fields sent are ignored', async () => {
      const m = await create(
        {
          name: 'Module full',
          description: 'plain text',
          status: 'in-progress',
          start_date: '2025-02-01',
          target_date: '2025-02-28',
          lead_id: contributor.id,
          logo_props: { color: '#fff' },
          external_id: 'M-1',
          external_source: 'jira',
          member_ids: [contributor.id],
          archived_at: '2025-01-01T00:00:00Z',
          created_by_id: contributor.id,
        },
        projectId,
        contributor.key,
      );
      expect(m).toMatchObject({
        description: 'plain text',
        status: 'in-progress',
        start_date: '2025-02-01',
        target_date: '2025-02-28',
        lead_id: contributor.id,
        member_ids: [],
        logo_props: { color: '#fff' },
        external_id: 'M-1',
        external_source: 'jira',
        archived_at: null,
        created_by_id: contributor.id,
      });
      expect((await t.http.get(`${base()}${m.id}/`).set(key())).body).toEqual(m);
    });

    it('accepts every status of the enum, with the hyphenated in-progress', async () => {
      for (const status of ['backlog', 'planned', 'in-progress', 'paused', 'completed', 'cancelled']) {
        expect((await create({ name: `Status ${status}`, status })).status).toBe(status);
      }
    });

    it('validates name, status, dates, lead, lengths and types', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{}, 'name'],
        [{ name: ' ' }, 'name'],
        [{ name: 'x'.repeat(256) }, 'name'],
        [{ name: 's', status: 'in_progress' }, 'status'],
        [{ name: 's', status: 'done' }, 'status'],
        [{ name: 's', status: null }, 'status'],
        [{ name: 'd', start_date: '2025-02-30' }, 'start_date'],
        [{ name: 'd', start_date: '2025-02-01T00:00:00Z' }, 'start_date'],
        [{ name: 'd', target_date: 'next week' }, 'target_date'],
        [{ name: 'd', start_date: '2025-03-02', target_date: '2025-03-01' }, 'target_date'],
        [{ name: 'l', lead_id: 'someone' }, 'lead_id'],
        [{ name: 'e', external_id: 'x'.repeat(256) }, 'external_id'],
        [{ name: 'o', sort_order: '1' }, 'sort_order'],
      ];
      for (const [body, field] of cases) {
        const res = await t.http.post(base()).set(key()).send(body);
        expect(errorFields(expectProblem(res, 400, 'validation_error'))).toContain(field);
      }
      await create({ name: 'One day', start_date: '2025-03-01', target_date: '2025-03-01' });
    });

    it('lead_id must be a member of the project', async () => {
      const other = await t.tenant();
      const stranger = await t.user();
      for (const lead of [outsider.id, other.owner.id, stranger.id, '00000000-0000-4000-8000-000000000000']) {
        const res = await t.http.post(base()).set(key()).send({ name: 'Led', lead_id: lead });
        const body = expectProblem(res, 400, 'validation_error');
        expect(errorFields(body)).toEqual(['lead_id']);
      }
      expect((await create({ name: 'Led by guest member', lead_id: guest.id })).lead_id).toBe(guest.id);
      expect((await create({ name: 'Led by owner', lead_id: ten.owner.id.toUpperCase() })).lead_id).toBe(ten.owner.id);
    });

    it('places a new module ahead of the existing ones', async () => {
      const p = await t.project(ten.slug, ten.owner.key);
      const a = await create({ name: 'A' }, p.id);
      const b = await create({ name: 'B' }, p.id);
      expect(b.sort_order).toBeLessThan(a.sort_order);
      // A requested slot behind existing modules is replaced; one ahead of them is kept.
      const c = await create({ name: 'C', sort_order: a.sort_order + 5000 }, p.id);
      expect(c.sort_order).toBeLessThan(b.sort_order);
      const d = await create({ name: 'D', sort_order: c.sort_order - 0.5 }, p.id);
      expect(d.sort_order).toBe(c.sort_order - 0.5);
      const list = await t.http.get(base(p.id)).set(key());
      expect(ids(list)).toEqual([d.id, c.id, b.id, a.id]);
      // The first module of a project takes the requested sort_order.
      const q = await t.project(ten.slug, ten.owner.key);
      expect((await create({ name: 'First', sort_order: 42 }, q.id)).sort_order).toBe(42);
      // PATCH sets a specific slot.
      const moved = await t.http
        .patch(`${base(p.id)}${d.id}/`)
        .set(key())
        .send({ sort_order: a.sort_order + 1 });
      expect(moved.body.sort_order).toBe(a.sort_order + 1);
      expect(ids(await t.http.get(base(p.id)).set(key()))).toEqual([c.id, b.id, a.id, d.id]);
    });

    it('rejects a name in use in the project with 409, allows it in another project', async () => {
      await create({ name: 'Dup module' });
      expectProblem(await t.http.post(base()).set(key()).send({ name: 'Dup module' }), 409, 'conflict');
      const p = await t.project(ten.slug, ten.owner.key);
      await create({ name: 'Dup module' }, p.id);
    });
  });

  describe('get, update, delete', () => {
    it("gets a module; another project's module, an unknown id and a malformed id are rejected", async () => {
      const m = await create({ name: 'Getme' });
      expect((await t.http.get(`${base()}${m.id}/`).set(key())).body).toEqual(m);
      const p = await t.project(ten.slug, ten.owner.key);
      expectProblem(await t.http.get(`${base(p.id)}${m.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(
        await t.http.get(`${base()}00000000-0000-4000-8000-000000000000/`).set(key()),
        404,
        'resource_not_found',
      );
      expect(errorFields(expectProblem(await t.http.get(`${base()}xyz/`).set(key()), 400, 'validation_error'))).toEqual(
        ['pk'],
      );
    });

    it('PATCH is partial, null clears, status moves freely, member_ids is read-only', async () => {
      const m = await create({
        name: 'Patchme',
        description: 'd',
        status: 'completed',
        start_date: '2025-01-01',
        target_date: '2025-01-31',
        lead_id: contributor.id,
        external_id: 'X',
      });
      const url = `${base()}${m.id}/`;
      const a = await t.http
        .patch(url)
        .set(key(contributor.key))
        .send({ status: 'backlog', member_ids: [ten.owner.id], archived_at: '2025-01-01T00:00:00Z' });
      expect(a.status).toBe(200);
      expect(a.body).toMatchObject({
        name: 'Patchme',
        description: 'd',
        status: 'backlog',
        lead_id: contributor.id,
        external_id: 'X',
        member_ids: [],
        archived_at: null,
      });
      const b = await t.http
        .patch(url)
        .set(key())
        .send({ lead_id: null, start_date: null, description: null, external_id: null });
      expect(b.body).toMatchObject({
        lead_id: null,
        start_date: null,
        target_date: '2025-01-31',
        description: '',
        external_id: null,
      });
      const c = await t.http
        .patch(url)
        .set(key())
        .send({ status: 'in-progress', name: 'Renamed module', lead_id: guest.id });
      expect(c.body).toMatchObject({ status: 'in-progress', name: 'Renamed module', lead_id: guest.id });
      expect((await t.http.get(url).set(key())).body).toEqual(c.body);
    });

    it('PATCH validates status and lead and checks target_date against the stored start_date', async () => {
      const m = await create({ name: 'Dated', start_date: '2025-05-10', target_date: '2025-05-20' });
      const url = `${base()}${m.id}/`;
      expect(
        errorFields(
          expectProblem(
            await t.http.patch(url).set(key()).send({ target_date: '2025-05-09' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['target_date']);
      expect(
        errorFields(
          expectProblem(await t.http.patch(url).set(key()).send({ start_date: '2025-05-21' }), 400, 'validation_error'),
        ),
      ).toEqual(['target_date']);
      expect(
        errorFields(
          expectProblem(await t.http.patch(url).set(key()).send({ status: 'started' }), 400, 'validation_error'),
        ),
      ).toEqual(['status']);
      expect(
        errorFields(
          expectProblem(await t.http.patch(url).set(key()).send({ lead_id: outsider.id }), 400, 'validation_error'),
        ),
      ).toEqual(['lead_id']);
      // Re-sending the stored lead is checked too: a lead who left the project is 400, not a silent 200.
      const leaver = await t.member(ten.slug, 'member');
      const joined = await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/members/`)
        .set(key())
        .send({ member_id: leaver.id, role: 'contributor' });
      expect(joined.status).toBe(201);
      expect((await t.http.patch(url).set(key()).send({ lead_id: leaver.id })).body.lead_id).toBe(leaver.id);
      expect((await t.http.patch(url).set(key()).send({ lead_id: leaver.id })).status).toBe(200);
      expect(
        (
          await t.http
            .delete(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/members/${joined.body.id}/`)
            .set(key())
        ).status,
      ).toBe(204);
      const gone = expectProblem(
        await t.http.patch(url).set(key()).send({ lead_id: leaver.id }),
        400,
        'validation_error',
      );
      expect(errorFields(gone)).toEqual(['lead_id']);
      expect((await t.http.patch(url).set(key()).send({ description: 'lead untouched when not sent' })).status).toBe(
        200,
      );
      expect((await t.http.patch(url).set(key()).send({ lead_id: null })).body.lead_id).toBeNull();
      expect(
        errorFields(expectProblem(await t.http.patch(url).set(key()).send({ name: null }), 400, 'validation_error')),
      ).toContain('name');
      const ok = await t.http.patch(url).set(key()).send({ start_date: '2025-06-01', target_date: '2025-06-02' });
      expect(ok.body).toMatchObject({ start_date: '2025-06-01', target_date: '2025-06-02' });
      expect((await t.http.patch(url).set(key()).send({ start_date: null, target_date: '2020-01-01' })).status).toBe(
        200,
      );
    });

    it('rename collision is 409', async () => {
      await create({ name: 'Module taken' });
      const m = await create({ name: 'Module free' });
      expectProblem(await t.http.patch(`${base()}${m.id}/`).set(key()).send({ name: 'Module taken' }), 409, 'conflict');
    });

    it('DELETE is 204 empty and soft, frees the name, and a repeat is 404', async () => {
      const m = await create({ name: 'Doomed module' });
      const url = `${base()}${m.id}/`;
      const d = await t.http.delete(url).set(key(contributor.key));
      expect(d.status).toBe(204);
      expect(d.text).toBe('');
      expectProblem(await t.http.delete(url).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.get(url).set(key()), 404, 'resource_not_found');
      expect((await t.ds.query(`SELECT deleted_at FROM modules WHERE id = $1`, [m.id]))[0].deleted_at).not.toBeNull();
      const again = await create({ name: 'Doomed module' });
      expect(ids(await t.http.get(`${base()}?search=doomed`).set(key()))).toEqual([again.id]);
    });
  });

  describe('list', () => {
    let pid: string;
    let ms: Array<{ id: string; name: string; sort_order: number }>;
    beforeAll(async () => {
      pid = (await t.project(ten.slug, ten.owner.key)).id;
      await addToProject(pid, contributor.id, 'contributor');
      ms = [];
      ms.push(
        await create(
          { name: 'Alpha API', status: 'backlog', lead_id: contributor.id, external_id: 'E1', external_source: 'jira' },
          pid,
        ),
      );
      ms.push(await create({ name: 'Beta api', status: 'in-progress', external_source: 'jira' }, pid));
      ms.push(await create({ name: 'Gamma', status: 'in-progress', lead_id: ten.owner.id, external_id: 'E3' }, pid));
      ms.push(await create({ name: 'Delta API', status: 'completed' }, pid));
    });

    it('defaults to sort_order (newest first, as each is placed ahead)', async () => {
      const res = await t.http.get(base(pid)).set(key());
      expect(res.body).toMatchObject({ total_count: 4, pagination: { style: 'offset' } });
      expect(ids(res)).toEqual(ms.map((m) => m.id).reverse());
      expect(ids(await t.http.get(`${base(pid)}?order_by=-sort_order`).set(key()))).toEqual(ms.map((m) => m.id));
      expect(ids(await t.http.get(`${base(pid)}?order_by=created_at`).set(key()))).toEqual(ms.map((m) => m.id));
      expect(ids(await t.http.get(`${base(pid)}?order_by=-created_at`).set(key()))).toEqual(
        ms.map((m) => m.id).reverse(),
      );
      expect(ids(await t.http.get(`${base(pid)}?order_by=id`).set(key()))).toEqual(ms.map((m) => m.id).sort());
      expect(ids(await t.http.get(`${base(pid)}?order_by=bogus`).set(key()))).toEqual(ms.map((m) => m.id).reverse());
    });

    it('filters by status (validated), lead_id, external ids and search', async () => {
      expect(ids(await t.http.get(`${base(pid)}?status=in-progress&order_by=created_at`).set(key()))).toEqual([
        ms[1].id,
        ms[2].id,
      ]);
      expect(ids(await t.http.get(`${base(pid)}?status__in=backlog,completed&order_by=created_at`).set(key()))).toEqual(
        [ms[0].id, ms[3].id],
      );
      expect(
        errorFields(
          expectProblem(await t.http.get(`${base(pid)}?status=in_progress`).set(key()), 400, 'validation_error'),
        ),
      ).toEqual(['status']);
      expect(
        errorFields(
          expectProblem(await t.http.get(`${base(pid)}?status__in=planned,nope`).set(key()), 400, 'validation_error'),
        ),
      ).toEqual(['status__in']);
      expect(ids(await t.http.get(`${base(pid)}?lead_id=${contributor.id}`).set(key()))).toEqual([ms[0].id]);
      expect(
        ids(
          await t.http.get(`${base(pid)}?lead_id__in=${contributor.id},${ten.owner.id}&order_by=created_at`).set(key()),
        ),
      ).toEqual([ms[0].id, ms[2].id]);
      expect(ids(await t.http.get(`${base(pid)}?lead_id__isnull=true&order_by=created_at`).set(key()))).toEqual([
        ms[1].id,
        ms[3].id,
      ]);
      expectProblem(await t.http.get(`${base(pid)}?lead_id=abc`).set(key()), 400, 'validation_error');
      expect(ids(await t.http.get(`${base(pid)}?external_id=E3`).set(key()))).toEqual([ms[2].id]);
      expect(ids(await t.http.get(`${base(pid)}?external_source=jira&order_by=created_at`).set(key()))).toEqual([
        ms[0].id,
        ms[1].id,
      ]);
      expect(ids(await t.http.get(`${base(pid)}?search=api&order_by=created_at`).set(key()))).toEqual([
        ms[0].id,
        ms[1].id,
        ms[3].id,
      ]);
      expect(ids(await t.http.get(`${base(pid)}?search=api&status=in-progress`).set(key()))).toEqual([ms[1].id]);
    });

    it('a bare cursor request is 400 (default sort_order); created_at and id walk', async () => {
      expectProblem(await t.http.get(`${base(pid)}?paginate=cursor`).set(key()), 400, 'ordering_not_cursor_eligible');
      expectProblem(
        await t.http.get(`${base(pid)}?paginate=cursor&order_by=-sort_order`).set(key()),
        400,
        'ordering_not_cursor_eligible',
      );
      const seen: string[] = [];
      let res = await t.http.get(`${base(pid)}?paginate=cursor&order_by=created_at&per_page=3`).set(key());
      seen.push(...ids(res));
      expect(res.body).toMatchObject({ has_more: true, pagination: { style: 'cursor' } });
      res = await t.http.get(`${base(pid)}?cursor=${res.body.next_cursor}&order_by=created_at&per_page=3`).set(key());
      seen.push(...ids(res));
      expect(res.body).toMatchObject({ has_more: false, next_cursor: null });
      expect(seen).toEqual(ms.map((m) => m.id));
      expect(ids(await t.http.get(`${base(pid)}?paginate=cursor&order_by=id`).set(key()))).toEqual(
        ms.map((m) => m.id).sort(),
      );
      // A cursor made for one ordering is refused under another.
      const first = await t.http.get(`${base(pid)}?paginate=cursor&order_by=created_at&per_page=1`).set(key());
      expectProblem(
        await t.http.get(`${base(pid)}?cursor=${first.body.next_cursor}&order_by=id`).set(key()),
        400,
        'validation_error',
      );
    });

    it('rejects ?expand=', async () => {
      expectProblem(await t.http.get(`${base(pid)}?expand=lead`).set(key()), 400, 'validation_error');
    });
  });

  describe('permissions and tenancy', () => {
    it('reads need project guest or higher, writes contributor or higher', async () => {
      const m = await create({ name: 'Perm module' });
      for (const u of [guest, commenter, contributor]) {
        expect((await t.http.get(base()).set(key(u.key))).status).toBe(200);
        expect((await t.http.get(`${base()}${m.id}/`).set(key(u.key))).status).toBe(200);
      }
      for (const u of [guest, commenter]) {
        expectProblem(await t.http.post(base()).set(key(u.key)).send({ name: 'Nope' }), 403, 'forbidden');
        expectProblem(await t.http.patch(`${base()}${m.id}/`).set(key(u.key)).send({ name: 'Nope' }), 403, 'forbidden');
        expectProblem(await t.http.delete(`${base()}${m.id}/`).set(key(u.key)), 403, 'forbidden');
      }
      expectProblem(await t.http.get(base()).set(key(outsider.key)), 403, 'forbidden');
      expect(
        (await t.http.patch(`${base()}${m.id}/`).set(key(contributor.key)).send({ status: 'paused' })).status,
      ).toBe(200);
    });

    it('OAuth tokens need projects.modules:read / :write', async () => {
      const bearer = async (scopes: string[]) => ({
        Authorization: `Bearer ${await t.token(ten.owner.email, scopes)}`,
      });
      const read = await bearer(['projects.modules:read']);
      const write = await bearer(['projects.modules:write']);
      const cycles = await bearer(['projects.cycles:read', 'projects.cycles:write']);
      expect((await t.http.get(base()).set(read)).status).toBe(200);
      expectProblem(await t.http.post(base()).set(read).send({ name: 'Scoped module' }), 403, 'forbidden');
      expect((await t.http.post(base()).set(write).send({ name: 'Scoped module' })).status).toBe(201);
      expectProblem(await t.http.get(base()).set(cycles), 403, 'forbidden');
      expectProblem(await t.http.post(base()).set(cycles).send({ name: 'Nope' }), 403, 'forbidden');
    });

    it("another tenant's workspace, project or module is 404", async () => {
      const other = await t.tenant();
      const op = await t.project(other.slug, other.owner.key);
      const om = await create({ name: 'Foreign module' }, op.id, other.owner.key, other.slug);
      expectProblem(await t.http.get(base(op.id, other.slug)).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.get(base(op.id)).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.get(`${base()}${om.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(
        await t.http.patch(`${base()}${om.id}/`).set(key()).send({ name: 'Stolen' }),
        404,
        'resource_not_found',
      );
      expectProblem(await t.http.delete(`${base()}${om.id}/`).set(key()), 404, 'resource_not_found');
      expect((await t.http.get(`${base(op.id, other.slug)}${om.id}/`).set(key(other.owner.key))).body.name).toBe(
        'Foreign module',
      );
    });
  });

  describe('disabled modules feature', () => {
    it('makes writes 400 naming is_modules_enabled while reads keep working', async () => {
      const p = await t.project(ten.slug, ten.owner.key);
      const m = await create({ name: 'Before' }, p.id);
      const feat = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/features/`;
      await t.http.patch(feat).set(key()).send({ is_modules_enabled: false });
      const attempts = [
        await t.http.post(base(p.id)).set(key()).send({ name: 'After' }),
        await t.http
          .patch(`${base(p.id)}${m.id}/`)
          .set(key())
          .send({ status: 'paused' }),
        await t.http.delete(`${base(p.id)}${m.id}/`).set(key()),
      ];
      for (const res of attempts) {
        const body = expectProblem(res, 400, 'validation_error');
        expect(errorFields(body)).toEqual(['is_modules_enabled']);
        expect(body.detail).toContain('is_modules_enabled');
      }
      expect(ids(await t.http.get(base(p.id)).set(key()))).toEqual([m.id]);
      expect((await t.http.get(`${base(p.id)}${m.id}/`).set(key())).body.status).toBe('planned');
      // Cycles are a separate switch.
      expect(
        (
          await t.http
            .post(`/api/v2/workspaces/${ten.slug}/projects/${p.id}/cycles/`)
            .set(key())
            .send({ name: 'Cycle still ok' })
        ).status,
      ).toBe(201);
      await t.http.patch(feat).set(key()).send({ is_modules_enabled: true });
      expect((await t.http.post(base(p.id)).set(key()).send({ name: 'After' })).status).toBe(201);
    });
  });
  describe('work items in modules', () => {
    let pid: string;
    const stateOf = async (p: string, group: string): Promise<string> =>
      (
        await t.ds.query(
          `SELECT id FROM states WHERE project_id = $1 AND "group" = $2 AND deleted_at IS NULL ORDER BY sequence LIMIT 1`,
          [p, group],
        )
      )[0].id;
    const wiUrl = (p = pid) => `/api/v2/workspaces/${ten.slug}/projects/${p}/work-items/`;
    const workItem = async (p: string, opts: { assignees?: string[]; name?: string } = {}): Promise<string> => {
      const res = await t.http
        .post(wiUrl(p))
        .set(key())
        .send({ name: opts.name ?? 'Item', state_id: await stateOf(p, 'backlog'), assignee_ids: opts.assignees ?? [] });
      if (res.status !== 201) throw new Error(`work item create failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.id;
    };
    const archive = async (id: string, p = pid) =>
      expect((await t.http.post(`${wiUrl(p)}${id}/archive/`).set(key())).status).toBe(200);
    const softDelete = async (id: string, p = pid) =>
      expect((await t.http.delete(`${wiUrl(p)}${id}/`).set(key())).status).toBe(204);
    const listIds = async (query: string, p = pid): Promise<string[]> => {
      const res = await t.http.get(`${wiUrl(p)}?${query}&per_page=200`).set(key());
      expect(res.status).toBe(200);
      return res.body.data.map((x: { id: string }) => x.id).sort();
    };
    const modulesOf = async (id: string): Promise<string[]> =>
      (
        await t.ds.query(`SELECT module_id FROM module_work_items WHERE work_item_id = $1 ORDER BY module_id`, [id])
      ).map((r: { module_id: string }) => r.module_id);
    const membership = (moduleId: string, body: unknown, k = ten.owner.key, p = pid) =>
      t.http
        .post(`${base(p)}${moduleId}/work-items/`)
        .set(key(k))
        .send(body as object);

    beforeAll(async () => {
      pid = (await t.project(ten.slug, ten.owner.key)).id;
      await addToProject(pid, contributor.id, 'contributor');
      await addToProject(pid, commenter.id, 'commenter');
      await addToProject(pid, guest.id, 'guest');
      padmin = await t.member(ten.slug, 'member');
      await addToProject(pid, padmin.id, 'admin');
    });
    let padmin: { id: string; email: string; key: string };

    it('adds and removes work items, reporting only actual changes; a work item may be in many modules', async () => {
      const m1 = await create({ name: 'Mod one' }, pid);
      const m2 = await create({ name: 'Mod two' }, pid);
      const [a, b] = [await workItem(pid), await workItem(pid)];
      const res = await membership(m1.id, { add: [a, b] }, contributor.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ added: [a, b], removed: [] });
      expect((await membership(m1.id, { add: [a] })).body).toEqual({ added: [], removed: [] });
      expect((await membership(m2.id, { add: [a] })).body).toEqual({ added: [a], removed: [] });
      expect(await modulesOf(a)).toEqual([m1.id, m2.id].sort());
      // The work item list's module_id filter sees the links.
      expect(await listIds(`module_id=${m1.id}`)).toEqual([a, b].sort());
      expect(await listIds(`module_id__in=${m1.id},${m2.id}`)).toEqual([a, b].sort());
      expect((await membership(m1.id, { remove: [a, b] })).body).toEqual({ added: [], removed: [a, b] });
      expect(await modulesOf(a)).toEqual([m2.id]);
      expect(await listIds(`module_id=${m1.id}`)).toEqual([]);
      expect((await membership(m1.id, { remove: [a] })).body).toEqual({ added: [], removed: [] });
    });

    it('ids that are not work items of this project make the whole request 400 naming them', async () => {
      const m = await create({ name: 'Strict module' }, pid);
      const mine = await workItem(pid);
      const other = await t.project(ten.slug, ten.owner.key);
      const foreign = await workItem(other.id);
      const gone = await workItem(pid);
      await softDelete(gone);
      const body = expectProblem(await membership(m.id, { add: [mine, foreign, gone] }), 400, 'validation_error');
      expect(errorFields(body)).toEqual(['add']);
      expect(body.errors[0].message).toContain(foreign);
      expect(body.errors[0].message).toContain(gone);
      expect(body.errors[0].message).not.toContain(mine);
      expect(await modulesOf(mine)).toEqual([]);
      expect(errorFields(expectProblem(await membership(m.id, {}), 400, 'validation_error'))).toEqual(['add']);
      expect(
        errorFields(expectProblem(await membership(m.id, { add: [mine], remove: [mine] }), 400, 'validation_error')),
      ).toEqual(['remove']);
      expect(errorFields(expectProblem(await membership(m.id, { remove: ['zzz'] }), 400, 'validation_error'))).toEqual([
        'remove',
      ]);
    });

    it('needs a live module of this project, contributor role, the write scope and the feature', async () => {
      const m = await create({ name: 'Guarded module' }, pid);
      const w = await workItem(pid);
      const other = await t.project(ten.slug, ten.owner.key);
      const om = await create({ name: 'Elsewhere' }, other.id);
      expectProblem(await membership(om.id, { add: [w] }), 404, 'resource_not_found');
      expectProblem(await membership(m.id, { add: [w] }, commenter.key), 403, 'forbidden');
      expectProblem(await membership(m.id, { add: [w] }, guest.key), 403, 'forbidden');
      const readTok = { Authorization: `Bearer ${await t.token(ten.owner.email, ['projects.modules:read'])}` };
      expectProblem(
        await t.http
          .post(`${base(pid)}${m.id}/work-items/`)
          .set(readTok)
          .send({ add: [w] }),
        403,
        'forbidden',
      );
      const cyclesTok = { Authorization: `Bearer ${await t.token(ten.owner.email, ['projects.cycles:write'])}` };
      expectProblem(
        await t.http
          .post(`${base(pid)}${m.id}/work-items/`)
          .set(cyclesTok)
          .send({ add: [w] }),
        403,
        'forbidden',
      );
      const feat = `/api/v2/workspaces/${ten.slug}/projects/${pid}/features/`;
      await t.http.patch(feat).set(key()).send({ is_modules_enabled: false });
      try {
        expect(errorFields(expectProblem(await membership(m.id, { add: [w] }), 400, 'validation_error'))).toEqual([
          'is_modules_enabled',
        ]);
      } finally {
        await t.http.patch(feat).set(key()).send({ is_modules_enabled: true });
      }
      expect((await membership(m.id, { add: [w] })).status).toBe(200);
    });

    it('member_ids are the distinct assignees of its live work items, not the lead', async () => {
      const m = await create({ name: 'Members', lead_id: guest.id }, pid);
      expect(m.member_ids).toEqual([]);
      const w1 = await workItem(pid, { assignees: [contributor.id, ten.owner.id] });
      const w2 = await workItem(pid, { assignees: [contributor.id] });
      const w3 = await workItem(pid, { assignees: [padmin.id] });
      const w4 = await workItem(pid, { assignees: [padmin.id] });
      const unassigned = await workItem(pid);
      await membership(m.id, { add: [w1, w2, w3, w4, unassigned] });
      await archive(w3);
      await softDelete(w4);
      const expected = [contributor.id, ten.owner.id].sort();
      expect((await t.http.get(`${base(pid)}${m.id}/`).set(key())).body.member_ids).toEqual(expected);
      const list = await t.http.get(`${base(pid)}?search=Members`).set(key());
      expect(list.body.data[0].member_ids).toEqual(expected);
      expect(
        (
          await t.http
            .patch(`${base(pid)}${m.id}/`)
            .set(key())
            .send({ member_ids: [guest.id] })
        ).body.member_ids,
      ).toEqual(expected);
      await membership(m.id, { remove: [w1] });
      expect((await t.http.get(`${base(pid)}${m.id}/`).set(key())).body.member_ids).toEqual([contributor.id]);
    });

    it('deleting a module drops the grouping and keeps the work items', async () => {
      const m = await create({ name: 'Short module' }, pid);
      const keep = await create({ name: 'Keeper module' }, pid);
      const w = await workItem(pid);
      await membership(m.id, { add: [w] });
      await membership(keep.id, { add: [w] });
      expect((await t.http.delete(`${base(pid)}${m.id}/`).set(key())).status).toBe(204);
      expect(await modulesOf(w)).toEqual([keep.id]);
      expect(await listIds(`module_id=${m.id}`)).toEqual([]);
      expect(await listIds(`module_id=${keep.id}`)).toEqual([w]);
      const rows = await t.ds.query(`SELECT count(*)::int AS c FROM work_items WHERE id = $1 AND deleted_at IS NULL`, [
        w,
      ]);
      expect(rows[0].c).toBe(1);
    });
    it('work items expand modules: an array of the live modules, [] when none', async () => {
      const m1 = await create({ name: 'Exp one', status: 'in-progress' }, pid);
      const m2 = await create({ name: 'Exp two' }, pid);
      const both = await workItem(pid, { name: 'both' });
      const none = await workItem(pid, { name: 'none' });
      await membership(m1.id, { add: [both] });
      await membership(m2.id, { add: [both] });
      const list = await t.http.get(`${wiUrl()}?expand=modules&per_page=200`).set(key());
      expect(list.status).toBe(200);
      const byId = new Map<string, any>(list.body.data.map((x: { id: string }) => [x.id, x]));
      // m2 was created after m1, so it is placed ahead (sort_order order).
      expect(byId.get(both).modules).toEqual([
        { id: m2.id, name: 'Exp two', status: 'planned' },
        { id: m1.id, name: 'Exp one', status: 'in-progress' },
      ]);
      expect(byId.get(none).modules).toEqual([]);
      const one = await t.http.get(`${wiUrl()}${both}/?expand=modules,cycle`).set(key());
      expect(one.body.modules).toHaveLength(2);
      expect(one.body.cycle).toBeNull();
      expect((await t.http.get(`${wiUrl()}${both}/`).set(key())).body).not.toHaveProperty('modules');
      await t.http.delete(`${base(pid)}${m1.id}/`).set(key());
      expect(
        (await t.http.get(`${wiUrl()}${both}/?expand=modules`).set(key())).body.modules.map(
          (x: { id: string }) => x.id,
        ),
      ).toEqual([m2.id]);
    });
  });
});
