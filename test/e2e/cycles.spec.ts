import { createTestApp, expectProblem, Tenant, TestApp, errorFields } from '../helpers/test-app';

describe('cycles', () => {
  let t: TestApp;
  let ten: Tenant;
  let projectId: string;
  let contributor: { id: string; email: string; key: string };
  let commenter: { id: string; email: string; key: string };
  let guest: { id: string; email: string; key: string };
  let outsider: { id: string; email: string; key: string };

  const base = (pid = projectId, slug = ten.slug) => `/api/v2/workspaces/${slug}/projects/${pid}/cycles/`;
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });
  const create = async (body: Record<string, unknown>, pid = projectId, k = ten.owner.key, slug = ten.slug) => {
    const res = await t.http.post(base(pid, slug)).set(key(k)).send(body);
    if (res.status !== 201) throw new Error(`cycle create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const addToProject = async (pid: string, userId: string, role: string) => {
    const r = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/members/`)
      .set(key())
      .send({ member_id: userId, role });
    if (r.status !== 201) throw new Error(`add member failed: ${r.status} ${JSON.stringify(r.body)}`);
  };

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
    it('creates with only a name and server-set fields', async () => {
      const c = await create({ name: 'Sprint minimal' });
      expect(c).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Sprint minimal',
        description: '',
        start_date: null,
        end_date: null,
        timezone: 'UTC',
        owned_by_id: ten.owner.id,
        sort_order: expect.any(Number),
        logo_props: {},
        external_id: null,
        external_source: null,
        archived_at: null,
        created_at: expect.any(String),
        created_by_id: ten.owner.id,
        progress: { total: 0, backlog: 0, unstarted: 0, started: 0, completed: 0, cancelled: 0, triage: 0 },
      });
    });

    it('stores date-times in UTC, the time zone and opaque logo_props', async () => {
      const c = await create({
        name: 'Sprint full',
        description: 'two weeks',
        start_date: '2025-03-01T09:00:00+01:00',
        end_date: '2025-03-14T18:00:00Z',
        timezone: 'Europe/Berlin',
        sort_order: 12.5,
        logo_props: { emoji: '🚀', nested: { a: [1, 2] } },
        external_id: 'EXT-1',
        external_source: 'jira',
      });
      expect(c).toMatchObject({
        description: 'two weeks',
        start_date: '2025-03-01T08:00:00.000Z',
        end_date: '2025-03-14T18:00:00.000Z',
        timezone: 'Europe/Berlin',
        sort_order: 12.5,
        logo_props: { emoji: '🚀', nested: { a: [1, 2] } },
        external_id: 'EXT-1',
        external_source: 'jira',
      });
      // Without an offset the value is UTC; a bare date is midnight UTC.
      const n = await create({ name: 'Sprint naive', start_date: '2025-04-01T10:00:00', end_date: '2025-04-02' });
      expect(n.start_date).toBe('2025-04-01T10:00:00.000Z');
      expect(n.end_date).toBe('2025-04-02T00:00:00.000Z');
      // ISO 8601 sets no limit on fraction digits: nanoseconds are accepted (and kept to milliseconds).
      const nano = await create({ name: 'Sprint nano', start_date: '2030-01-01T00:00:00.123456789Z' });
      expect(nano.start_date).toBe('2030-01-01T00:00:00.123Z');
      expect(new Date((await t.http.get(`${base()}${c.id}/`).set(key())).body.start_date).toISOString()).toBe(
        '2025-03-01T08:00:00.000Z',
      );
    });

    it('sets owned_by_id to the creator and ignores owned_by_id and audit fields sent', async () => {
      const c = await create(
        {
          name: 'Owned',
          owned_by_id: ten.owner.id,
          created_by_id: ten.owner.id,
          created_at: '2000-01-01T00:00:00Z',
          id: '00000000-0000-4000-8000-000000000001',
        },
        projectId,
        contributor.key,
      );
      expect(c.owned_by_id).toBe(contributor.id);
      expect(c.created_by_id).toBe(contributor.id);
      expect(c.id).not.toBe('00000000-0000-4000-8000-000000000001');
      expect(c.created_at).not.toContain('2000-01-01');
    });

    it('appends new cycles after existing ones when sort_order is omitted', async () => {
      const p = await t.project(ten.slug, ten.owner.key);
      const a = await create({ name: 'A' }, p.id);
      const b = await create({ name: 'B' }, p.id);
      expect(b.sort_order).toBeGreaterThan(a.sort_order);
    });

    it('validates name, dates, time zone, lengths and types', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{}, 'name'],
        [{ name: '' }, 'name'],
        [{ name: '   ' }, 'name'],
        [{ name: 'x'.repeat(256) }, 'name'],
        [{ name: 'tz', timezone: 'Mars/Olympus' }, 'timezone'],
        [{ name: 'tz', timezone: 'utc' }, 'timezone'],
        [{ name: 'tz', timezone: 'Asia/kolkata' }, 'timezone'],
        [{ name: 'tz', timezone: 'Etc/Nowhere' }, 'timezone'],
        [{ name: 'tz', timezone: '+02:00' }, 'timezone'],
        [{ name: 'tz', timezone: null }, 'timezone'],
        [{ name: 'd', start_date: 'tomorrow' }, 'start_date'],
        [{ name: 'd', start_date: '2025-13-01T00:00:00Z' }, 'start_date'],
        [{ name: 'd', end_date: '2025-02-30' }, 'end_date'],
        [{ name: 'd', end_date: 20250101 }, 'end_date'],
        [{ name: 'd', start_date: '2025-03-10T00:00:00Z', end_date: '2025-03-09T23:59:59Z' }, 'end_date'],
        // Instants outside years 0001-9999 UTC and offsets PostgreSQL refuses (were 500s).
        [{ name: 'd', start_date: '9999-12-31T23:59:59-01:00' }, 'start_date'],
        [{ name: 'd', end_date: '0001-01-01T00:00:00+01:00' }, 'end_date'],
        [{ name: 'd', start_date: '2026-01-01T00:00:00+16:00' }, 'start_date'],
        [{ name: 'e', external_id: 'x'.repeat(256) }, 'external_id'],
        [{ name: 'e', external_source: 'x'.repeat(256) }, 'external_source'],
        [{ name: 's', sort_order: 'first' }, 'sort_order'],
        [{ name: 'l', logo_props: 'rocket' }, 'logo_props'],
      ];
      for (const [body, field] of cases) {
        const res = await t.http.post(base()).set(key()).send(body);
        expect(errorFields(expectProblem(res, 400, 'validation_error'))).toContain(field);
      }
      // Equal start and end are allowed.
      await create({ name: 'Same day', start_date: '2025-03-10T00:00:00Z', end_date: '2025-03-10T00:00:00Z' });
    });

    it('accepts current IANA names and links, not only the runtime canonical list', async () => {
      for (const tz of [
        'Asia/Kolkata',
        'Europe/Kyiv',
        'America/Argentina/Buenos_Aires',
        'Etc/UTC',
        'Etc/GMT+5',
        'US/Eastern',
      ]) {
        expect(await create({ name: `zone ${tz}`, timezone: tz })).toMatchObject({ timezone: tz });
      }
    });

    it('rejects a name in use in the project with 409, allows it in another project', async () => {
      await create({ name: 'Dup cycle' });
      expectProblem(await t.http.post(base()).set(key()).send({ name: 'Dup cycle' }), 409, 'conflict');
      expectProblem(await t.http.post(base()).set(key()).send({ name: '  Dup cycle ' }), 409, 'conflict');
      const p = await t.project(ten.slug, ten.owner.key);
      await create({ name: 'Dup cycle' }, p.id);
    });
  });

  describe('get, update, delete', () => {
    it("gets a cycle; another project's cycle, an unknown id and a malformed id are rejected", async () => {
      const c = await create({ name: 'Getme' });
      const res = await t.http.get(`${base()}${c.id}/`).set(key());
      expect(res.status).toBe(200);
      expect(res.body).toEqual(c);
      const p = await t.project(ten.slug, ten.owner.key);
      expectProblem(await t.http.get(`${base(p.id)}${c.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(
        await t.http.get(`${base()}00000000-0000-4000-8000-000000000000/`).set(key()),
        404,
        'resource_not_found',
      );
      expect(
        errorFields(expectProblem(await t.http.get(`${base()}nope/`).set(key()), 400, 'validation_error')),
      ).toEqual(['pk']);
    });

    it('PATCH is partial, null clears, owned_by_id is read-only', async () => {
      const c = await create({
        name: 'Patchme',
        description: 'd',
        start_date: '2025-01-01T00:00:00Z',
        end_date: '2025-01-10T00:00:00Z',
        external_id: 'X',
      });
      const a = await t.http
        .patch(`${base()}${c.id}/`)
        .set(key(contributor.key))
        .send({ description: 'new', owned_by_id: contributor.id });
      expect(a.status).toBe(200);
      expect(a.body).toMatchObject({
        name: 'Patchme',
        description: 'new',
        start_date: '2025-01-01T00:00:00.000Z',
        external_id: 'X',
        owned_by_id: ten.owner.id,
      });
      expect(a.body.progress).toBeDefined();
      const b = await t.http
        .patch(`${base()}${c.id}/`)
        .set(key())
        .send({ start_date: null, external_id: null, description: null, logo_props: { icon: 'x' } });
      expect(b.body).toMatchObject({
        start_date: null,
        end_date: '2025-01-10T00:00:00.000Z',
        external_id: null,
        description: '',
        logo_props: { icon: 'x' },
      });
      const lp = await t.http
        .patch(`${base()}${c.id}/`)
        .set(key())
        .send({ logo_props: { other: 1 } });
      expect(lp.body.logo_props).toEqual({ other: 1 });
      const tz = await t.http.patch(`${base()}${c.id}/`).set(key()).send({ timezone: 'Asia/Tokyo', name: 'Renamed' });
      expect(tz.body).toMatchObject({ timezone: 'Asia/Tokyo', name: 'Renamed' });
      expect((await t.http.get(`${base()}${c.id}/`).set(key())).body).toMatchObject({
        timezone: 'Asia/Tokyo',
        name: 'Renamed',
        start_date: null,
      });
    });

    it('PATCH validates and checks dates against the stored values', async () => {
      const c = await create({ name: 'Dates', start_date: '2025-05-10T00:00:00Z', end_date: '2025-05-20T00:00:00Z' });
      const url = `${base()}${c.id}/`;
      expect(
        errorFields(
          expectProblem(
            await t.http.patch(url).set(key()).send({ end_date: '2025-05-01T00:00:00Z' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['end_date']);
      expect(
        errorFields(
          expectProblem(
            await t.http.patch(url).set(key()).send({ start_date: '2025-06-01T00:00:00Z' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['end_date']);
      expect(
        errorFields(expectProblem(await t.http.patch(url).set(key()).send({ name: null }), 400, 'validation_error')),
      ).toContain('name');
      expect(
        errorFields(
          expectProblem(await t.http.patch(url).set(key()).send({ timezone: 'Nowhere' }), 400, 'validation_error'),
        ),
      ).toEqual(['timezone']);
      expect(
        errorFields(
          expectProblem(await t.http.patch(url).set(key()).send({ start_date: 'soon' }), 400, 'validation_error'),
        ),
      ).toEqual(['start_date']);
      // Moving both together is fine; clearing the start lifts the check.
      expect(
        (
          await t.http
            .patch(url)
            .set(key())
            .send({ start_date: '2025-06-01T00:00:00Z', end_date: '2025-06-05T00:00:00Z' })
        ).status,
      ).toBe(200);
      expect(
        (await t.http.patch(url).set(key()).send({ start_date: null, end_date: '2020-01-01T00:00:00Z' })).status,
      ).toBe(200);
    });

    it('rename collision is 409', async () => {
      await create({ name: 'Taken name' });
      const c = await create({ name: 'Free name' });
      expectProblem(await t.http.patch(`${base()}${c.id}/`).set(key()).send({ name: 'Taken name' }), 409, 'conflict');
      // Renaming to its own name is not a collision.
      expect((await t.http.patch(`${base()}${c.id}/`).set(key()).send({ name: 'Free name' })).status).toBe(200);
    });

    it('DELETE is 204 empty and soft, frees the name, and a repeat is 404', async () => {
      const c = await create({ name: 'Doomed' });
      const url = `${base()}${c.id}/`;
      const d = await t.http.delete(url).set(key(contributor.key));
      expect(d.status).toBe(204);
      expect(d.text).toBe('');
      expectProblem(await t.http.delete(url).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.get(url).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.patch(url).set(key()).send({ name: 'x' }), 404, 'resource_not_found');
      const rows = await t.ds.query(`SELECT deleted_at FROM cycles WHERE id = $1`, [c.id]);
      expect(rows[0].deleted_at).not.toBeNull();
      const again = await create({ name: 'Doomed' });
      expect(again.id).not.toBe(c.id);
      const list = await t.http.get(`${base()}?search=Doomed`).set(key());
      expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([again.id]);
    });
  });

  describe('list', () => {
    let pid: string;
    let cs: Array<{ id: string; name: string; sort_order: number; created_at: string }>;
    beforeAll(async () => {
      pid = (await t.project(ten.slug, ten.owner.key)).id;
      await addToProject(pid, contributor.id, 'contributor');
      cs = [];
      cs.push(await create({ name: 'Alpha Sprint', sort_order: 300, external_id: 'E1', external_source: 'jira' }, pid));
      cs.push(await create({ name: 'Beta sprint', sort_order: 100, external_id: 'E2', external_source: 'jira' }, pid));
      cs.push(await create({ name: 'Gamma', sort_order: 200, external_source: 'linear' }, pid, contributor.key));
      cs.push(await create({ name: 'Delta SPRINT', sort_order: 50 }, pid, contributor.key));
    });
    const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((x) => x.id);

    it('returns the offset envelope in created_at order by default', async () => {
      const res = await t.http.get(base(pid)).set(key());
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ next: null, previous: null, total_count: 4, pagination: { style: 'offset' } });
      expect(ids(res)).toEqual(cs.map((c) => c.id));
      expect(res.body.data[0]).not.toHaveProperty('progress');
      const page = await t.http.get(`${base(pid)}?per_page=2&offset=1`).set(key());
      expect(page.body).toMatchObject({ next: 3, previous: 0, total_count: 4 });
      expect(ids(page)).toEqual([cs[1].id, cs[2].id]);
      expect((await t.http.get(`${base(pid)}?count=false`).set(key())).body).not.toHaveProperty('total_count');
    });

    it('filters by owned_by_id (and __in), external_id, external_source and search', async () => {
      expect(ids(await t.http.get(`${base(pid)}?owned_by_id=${contributor.id}`).set(key()))).toEqual([
        cs[2].id,
        cs[3].id,
      ]);
      expect(
        ids(await t.http.get(`${base(pid)}?owned_by_id__in=${contributor.id},${ten.owner.id}`).set(key())),
      ).toHaveLength(4);
      expect(ids(await t.http.get(`${base(pid)}?external_id=E2`).set(key()))).toEqual([cs[1].id]);
      expect(ids(await t.http.get(`${base(pid)}?external_source=jira`).set(key()))).toEqual([cs[0].id, cs[1].id]);
      expect(ids(await t.http.get(`${base(pid)}?search=sprint`).set(key()))).toEqual([cs[0].id, cs[1].id, cs[3].id]);
      expect(ids(await t.http.get(`${base(pid)}?search=sprint&owned_by_id=${contributor.id}`).set(key()))).toEqual([
        cs[3].id,
      ]);
      expect(
        errorFields(expectProblem(await t.http.get(`${base(pid)}?owned_by_id=me`).set(key()), 400, 'validation_error')),
      ).toEqual(['owned_by_id']);
      expect(
        errorFields(
          expectProblem(
            await t.http.get(`${base(pid)}?owned_by_id__in=${contributor.id},bad`).set(key()),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['owned_by_id__in']);
    });

    it('orders by sort_order, created_at and id, both directions; unknown falls back to the default', async () => {
      expect(ids(await t.http.get(`${base(pid)}?order_by=sort_order`).set(key()))).toEqual([
        cs[3].id,
        cs[1].id,
        cs[2].id,
        cs[0].id,
      ]);
      expect(ids(await t.http.get(`${base(pid)}?order_by=-sort_order`).set(key()))).toEqual([
        cs[0].id,
        cs[2].id,
        cs[1].id,
        cs[3].id,
      ]);
      expect(ids(await t.http.get(`${base(pid)}?order_by=-created_at`).set(key()))).toEqual(
        cs.map((c) => c.id).reverse(),
      );
      expect(ids(await t.http.get(`${base(pid)}?order_by=id`).set(key()))).toEqual(cs.map((c) => c.id).sort());
      expect(ids(await t.http.get(`${base(pid)}?order_by=-id`).set(key()))).toEqual(
        cs
          .map((c) => c.id)
          .sort()
          .reverse(),
      );
      expect(ids(await t.http.get(`${base(pid)}?order_by=name`).set(key()))).toEqual(cs.map((c) => c.id));
    });

    it('walks with a cursor on eligible orderings; sort_order is not eligible', async () => {
      const seen: string[] = [];
      let res = await t.http.get(`${base(pid)}?paginate=cursor&per_page=3`).set(key());
      expect(res.body.pagination).toEqual({ style: 'cursor' });
      expect(res.body).not.toHaveProperty('total_count');
      seen.push(...ids(res));
      expect(res.body.has_more).toBe(true);
      res = await t.http.get(`${base(pid)}?cursor=${res.body.next_cursor}&per_page=3`).set(key());
      seen.push(...ids(res));
      expect(res.body).toMatchObject({ has_more: false, next_cursor: null });
      expect(seen).toEqual(cs.map((c) => c.id));
      const byId = await t.http.get(`${base(pid)}?paginate=cursor&order_by=-id&per_page=10`).set(key());
      expect(ids(byId)).toEqual(
        cs
          .map((c) => c.id)
          .sort()
          .reverse(),
      );
      expectProblem(
        await t.http.get(`${base(pid)}?paginate=cursor&order_by=sort_order`).set(key()),
        400,
        'ordering_not_cursor_eligible',
      );
      expectProblem(
        await t.http.get(`${base(pid)}?paginate=cursor&order_by=-sort_order`).set(key()),
        400,
        'ordering_not_cursor_eligible',
      );
      expectProblem(await t.http.get(`${base(pid)}?cursor=garbage!`).set(key()), 400, 'validation_error');
    });

    it('validates pagination parameters', async () => {
      expectProblem(await t.http.get(`${base(pid)}?per_page=abc`).set(key()), 400, 'validation_error');
      expectProblem(await t.http.get(`${base(pid)}?offset=-1`).set(key()), 400, 'validation_error');
      expectProblem(await t.http.get(`${base(pid)}?offset=10001`).set(key()), 400, 'validation_error');
      expect((await t.http.get(`${base(pid)}?per_page=500`).set(key())).status).toBe(200);
    });

    it('rejects ?expand=', async () => {
      expectProblem(await t.http.get(`${base(pid)}?expand=owned_by`).set(key()), 400, 'validation_error');
    });
  });

  describe('permissions and tenancy', () => {
    it('reads need project guest or higher, writes contributor or higher', async () => {
      const c = await create({ name: 'Perm cycle' });
      for (const u of [guest, commenter, contributor]) {
        expect((await t.http.get(base()).set(key(u.key))).status).toBe(200);
        expect((await t.http.get(`${base()}${c.id}/`).set(key(u.key))).status).toBe(200);
      }
      for (const u of [guest, commenter]) {
        expectProblem(await t.http.post(base()).set(key(u.key)).send({ name: 'Nope' }), 403, 'forbidden');
        expectProblem(await t.http.patch(`${base()}${c.id}/`).set(key(u.key)).send({ name: 'Nope' }), 403, 'forbidden');
        expectProblem(await t.http.delete(`${base()}${c.id}/`).set(key(u.key)), 403, 'forbidden');
      }
      // A workspace member who is not in the project has no project role.
      expectProblem(await t.http.get(base()).set(key(outsider.key)), 403, 'forbidden');
      expectProblem(await t.http.post(base()).set(key(outsider.key)).send({ name: 'Nope' }), 403, 'forbidden');
      // A workspace admin administers every project without membership.
      const wsAdmin = await t.member(ten.slug, 'admin');
      expect((await t.http.post(base()).set(key(wsAdmin.key)).send({ name: 'By ws admin' })).status).toBe(201);
      expectProblem(await t.http.get(base()), 401, 'unauthorized');
    });

    it('OAuth tokens need projects.cycles:read for reads and :write for writes', async () => {
      const bearer = async (scopes: string[]) => ({
        Authorization: `Bearer ${await t.token(ten.owner.email, scopes)}`,
      });
      const read = await bearer(['projects.cycles:read']);
      const write = await bearer(['projects.cycles:write']);
      const other = await bearer(['projects.modules:read', 'projects.modules:write']);
      expect((await t.http.get(base()).set(read)).status).toBe(200);
      expectProblem(await t.http.post(base()).set(read).send({ name: 'Scoped' }), 403, 'forbidden');
      const c = await t.http.post(base()).set(write).send({ name: 'Scoped' });
      expect(c.status).toBe(201);
      expectProblem(await t.http.get(base()).set(write), 403, 'forbidden');
      expectProblem(await t.http.get(base()).set(other), 403, 'forbidden');
      expectProblem(await t.http.patch(`${base()}${c.body.id}/`).set(other).send({ name: 'x' }), 403, 'forbidden');
      expect((await t.http.get(base()).set(await bearer(['read']))).status).toBe(200);
    });

    it("another tenant's workspace, project or cycle is 404", async () => {
      const other = await t.tenant();
      const op = await t.project(other.slug, other.owner.key);
      const oc = await create({ name: 'Foreign' }, op.id, other.owner.key, other.slug);
      expectProblem(await t.http.get(base(op.id, other.slug)).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.get(base(op.id)).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.get(`${base()}${oc.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(
        await t.http.patch(`${base()}${oc.id}/`).set(key()).send({ name: 'Stolen' }),
        404,
        'resource_not_found',
      );
      expectProblem(await t.http.delete(`${base()}${oc.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(
        await t.http.post(base(op.id, other.slug)).set(key()).send({ name: 'Intruder' }),
        404,
        'resource_not_found',
      );
      expect((await t.http.get(`${base(op.id, other.slug)}${oc.id}/`).set(key(other.owner.key))).body.name).toBe(
        'Foreign',
      );
      // Lists never show other tenants' cycles.
      const mine = await t.http.get(`${base()}?search=Foreign`).set(key());
      expect(mine.body.data).toEqual([]);
    });
  });

  describe('disabled cycles feature', () => {
    it('makes writes 400 naming is_cycles_enabled while reads keep working', async () => {
      const p = await t.project(ten.slug, ten.owner.key);
      const c = await create({ name: 'Before switch-off' }, p.id);
      const feat = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/features/`;
      expect((await t.http.patch(feat).set(key()).send({ is_cycles_enabled: false })).body.is_cycles_enabled).toBe(
        false,
      );
      const attempts = [
        t.http.post(base(p.id)).set(key()).send({ name: 'After' }),
        t.http
          .patch(`${base(p.id)}${c.id}/`)
          .set(key())
          .send({ name: 'Renamed' }),
        t.http.delete(`${base(p.id)}${c.id}/`).set(key()),
      ];
      for (const res of await Promise.all(attempts)) {
        const body = expectProblem(res, 400, 'validation_error');
        expect(errorFields(body)).toEqual(['is_cycles_enabled']);
        expect(body.detail).toContain('is_cycles_enabled');
      }
      expect((await t.http.get(base(p.id)).set(key())).body.data).toHaveLength(1);
      expect((await t.http.get(`${base(p.id)}${c.id}/`).set(key())).body.name).toBe('Before switch-off');
      // Modules are a separate switch.
      expect(
        (await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/${p.id}/features/`).set(key())).body
          .is_modules_enabled,
      ).toBe(true);
      await t.http.patch(feat).set(key()).send({ is_cycles_enabled: true });
      expect((await t.http.post(base(p.id)).set(key()).send({ name: 'After' })).status).toBe(201);
    });
  });
  describe('work items in cycles', () => {
    let pid: string;
    const wiUrl = (p = pid) => `/api/v2/workspaces/${ten.slug}/projects/${p}/work-items/`;
    const stateOf = async (p: string, group: string): Promise<string> =>
      (
        await t.ds.query(
          `SELECT id FROM states WHERE project_id = $1 AND "group" = $2 AND deleted_at IS NULL ORDER BY sequence LIMIT 1`,
          [p, group],
        )
      )[0].id;
    const workItem = async (p: string, opts: { group?: string; name?: string } = {}): Promise<string> => {
      const res = await t.http
        .post(wiUrl(p))
        .set(key())
        .send({ name: opts.name ?? 'Item', state_id: await stateOf(p, opts.group ?? 'backlog') });
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
    const cycleOf = async (id: string): Promise<string | null> =>
      (await t.ds.query(`SELECT cycle_id FROM work_items WHERE id = $1`, [id]))[0].cycle_id;
    const membership = (cycleId: string, body: unknown, k = ten.owner.key, p = pid) =>
      t.http
        .post(`${base(p)}${cycleId}/work-items/`)
        .set(key(k))
        .send(body as object);
    const transfer = (cycleId: string, body: unknown, k = ten.owner.key, p = pid) =>
      t.http
        .post(`${base(p)}${cycleId}/transfer/`)
        .set(key(k))
        .send(body as object);

    beforeAll(async () => {
      pid = (await t.project(ten.slug, ten.owner.key)).id;
      await addToProject(pid, contributor.id, 'contributor');
      await addToProject(pid, commenter.id, 'commenter');
      await addToProject(pid, guest.id, 'guest');
    });

    it('adds and removes work items, reporting only actual changes', async () => {
      const c = await create({ name: 'Membership' }, pid);
      const [a, b, d] = [await workItem(pid), await workItem(pid), await workItem(pid)];
      const res = await membership(c.id, { add: [a, b.toUpperCase()] }, contributor.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ added: [a, b], removed: [] });
      expect(await cycleOf(a)).toBe(c.id);
      expect(await cycleOf(b)).toBe(c.id);
      // The work item list's cycle_id filter sees the membership.
      expect(await listIds(`cycle_id=${c.id}`)).toEqual([a, b].sort());
      // Repeating is a no-op; duplicates collapse.
      expect((await membership(c.id, { add: [a, a] })).body).toEqual({ added: [], removed: [] });
      const r2 = await membership(c.id, { add: [d], remove: [a] });
      expect(r2.body).toEqual({ added: [d], removed: [a] });
      expect(await cycleOf(a)).toBeNull();
      expect(await listIds(`cycle_id__in=${c.id}`)).toEqual([b, d].sort());
      expect(await listIds('cycle_id__isnull=true')).toContain(a);
      // Removing a work item that is not in the cycle reports nothing.
      expect((await membership(c.id, { remove: [a] })).body).toEqual({ added: [], removed: [] });
      expect((await membership(c.id, { add: [], remove: [] })).body).toEqual({ added: [], removed: [] });
    });

    it('a work item is in at most one cycle: adding it elsewhere moves it', async () => {
      const c1 = await create({ name: 'First home' }, pid);
      const c2 = await create({ name: 'Second home' }, pid);
      const w = await workItem(pid);
      await membership(c1.id, { add: [w] });
      const res = await membership(c2.id, { add: [w] });
      expect(res.body.added).toEqual([w]);
      expect(await cycleOf(w)).toBe(c2.id);
      expect((await membership(c1.id, { remove: [w] })).body.removed).toEqual([]);
      expect((await t.http.get(`${base(pid)}${c1.id}/`).set(key())).body.progress.total).toBe(0);
      expect((await t.http.get(`${base(pid)}${c2.id}/`).set(key())).body.progress.total).toBe(1);
    });

    it('ids that are not work items of this project make the whole request 400 naming them', async () => {
      const c = await create({ name: 'Strict' }, pid);
      const mine = await workItem(pid);
      const otherProject = await t.project(ten.slug, ten.owner.key);
      const foreign = await workItem(otherProject.id);
      const otherTenant = await t.tenant();
      const op = await t.project(otherTenant.slug, otherTenant.owner.key);
      const alienRes = await t.http
        .post(`/api/v2/workspaces/${otherTenant.slug}/projects/${op.id}/work-items/`)
        .set(key(otherTenant.owner.key))
        .send({ name: 'Alien' });
      expect(alienRes.status).toBe(201);
      const alien = alienRes.body.id;
      const gone = await workItem(pid);
      await softDelete(gone);
      const unknown = '00000000-0000-4000-8000-000000000000';
      const res = await membership(c.id, { add: [mine, foreign, unknown], remove: [alien, gone] });
      const body = expectProblem(res, 400, 'validation_error');
      expect(body.errors).toEqual([
        { field: 'add', message: expect.stringContaining(foreign) },
        { field: 'remove', message: expect.stringContaining(alien) },
      ]);
      expect(body.errors[0].message).toContain(unknown);
      expect(body.errors[0].message).not.toContain(mine);
      expect(body.errors[1].message).toContain(gone);
      // Nothing was applied.
      expect(await cycleOf(mine)).toBeNull();
    });

    it('validates the body', async () => {
      const c = await create({ name: 'Body rules' }, pid);
      const w = await workItem(pid);
      expect(errorFields(expectProblem(await membership(c.id, {}), 400, 'validation_error'))).toEqual(['add']);
      expect(
        errorFields(expectProblem(await membership(c.id, { add: [w], remove: [w] }), 400, 'validation_error')),
      ).toEqual(['remove']);
      expect(errorFields(expectProblem(await membership(c.id, { add: ['nope'] }), 400, 'validation_error'))).toEqual([
        'add',
      ]);
      expect(errorFields(expectProblem(await membership(c.id, { add: w }), 400, 'validation_error'))).toContain('add');
      expect(errorFields(expectProblem(await membership(c.id, { remove: null }), 400, 'validation_error'))).toContain(
        'remove',
      );
    });

    it('needs a live cycle of this project, contributor role, the write scope and the feature', async () => {
      const c = await create({ name: 'Guarded' }, pid);
      const w = await workItem(pid);
      const other = await t.project(ten.slug, ten.owner.key);
      const oc = await create({ name: 'Elsewhere' }, other.id);
      expectProblem(await membership(oc.id, { add: [w] }), 404, 'resource_not_found');
      expectProblem(await membership('00000000-0000-4000-8000-000000000000', { add: [w] }), 404, 'resource_not_found');
      expectProblem(await transfer(oc.id, { new_cycle_id: c.id }), 404, 'resource_not_found');
      expectProblem(await membership(c.id, { add: [w] }, commenter.key), 403, 'forbidden');
      expectProblem(await transfer(c.id, { new_cycle_id: oc.id }, commenter.key), 403, 'forbidden');
      const readTok = { Authorization: `Bearer ${await t.token(ten.owner.email, ['projects.cycles:read'])}` };
      expectProblem(
        await t.http
          .post(`${base(pid)}${c.id}/work-items/`)
          .set(readTok)
          .send({ add: [w] }),
        403,
        'forbidden',
      );
      const writeTok = { Authorization: `Bearer ${await t.token(ten.owner.email, ['projects.cycles:write'])}` };
      expect(
        (
          await t.http
            .post(`${base(pid)}${c.id}/work-items/`)
            .set(writeTok)
            .send({ add: [w] })
        ).status,
      ).toBe(200);
      const feat = `/api/v2/workspaces/${ten.slug}/projects/${pid}/features/`;
      await t.http.patch(feat).set(key()).send({ is_cycles_enabled: false });
      try {
        expect(errorFields(expectProblem(await membership(c.id, { remove: [w] }), 400, 'validation_error'))).toEqual([
          'is_cycles_enabled',
        ]);
        expect(
          errorFields(expectProblem(await transfer(c.id, { new_cycle_id: oc.id }), 400, 'validation_error')),
        ).toEqual(['is_cycles_enabled']);
        expect((await t.http.get(`${base(pid)}${c.id}/`).set(key())).body.progress.total).toBe(1);
      } finally {
        await t.http.patch(feat).set(key()).send({ is_cycles_enabled: true });
      }
      const d = await create({ name: 'Deleted one' }, pid);
      await t.http.delete(`${base(pid)}${d.id}/`).set(key());
      expectProblem(await membership(d.id, { add: [w] }), 404, 'resource_not_found');
    });

    it('detail carries progress: work items per state group, without archived, deleted or drafts', async () => {
      const c = await create({ name: 'Progress' }, pid);
      const items: string[] = [];
      for (const g of [
        'backlog',
        'backlog',
        'unstarted',
        'started',
        'started',
        'started',
        'completed',
        'cancelled',
        'triage',
      ])
        items.push(await workItem(pid, { group: g }));
      const archived = await workItem(pid, { group: 'completed' });
      const deleted = await workItem(pid, { group: 'started' });
      const draft = await workItem(pid, { group: 'started' });
      await t.ds.query(`UPDATE work_items SET is_draft = true WHERE id = $1`, [draft]);
      await membership(c.id, { add: [...items, archived, deleted, draft] });
      await archive(archived);
      await softDelete(deleted);
      const res = await t.http.get(`${base(pid)}${c.id}/`).set(key(guest.key));
      expect(res.body.progress).toEqual({
        total: 9,
        backlog: 2,
        unstarted: 1,
        started: 3,
        completed: 1,
        cancelled: 1,
        triage: 1,
      });
      // PATCH responses carry it too; list items do not.
      expect(
        (
          await t.http
            .patch(`${base(pid)}${c.id}/`)
            .set(key())
            .send({ description: 'x' })
        ).body.progress.total,
      ).toBe(9);
      const list = await t.http.get(`${base(pid)}?search=Progress`).set(key());
      expect(list.body.data[0]).not.toHaveProperty('progress');
    });

    it('transfer moves the unfinished work items to another cycle', async () => {
      const from = await create({ name: 'From' }, pid);
      const to = await create({ name: 'To', end_date: '2999-01-01T00:00:00Z' }, pid);
      const open1 = await workItem(pid, { group: 'backlog' });
      const open2 = await workItem(pid, { group: 'started' });
      const open3 = await workItem(pid, { group: 'triage' });
      const done = await workItem(pid, { group: 'completed' });
      const dropped = await workItem(pid, { group: 'cancelled' });
      const shelved = await workItem(pid, { group: 'started' });
      await membership(from.id, { add: [open1, open2, open3, done, dropped, shelved] });
      await archive(shelved);
      const res = await transfer(from.id, { new_cycle_id: to.id.toUpperCase() }, contributor.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ new_cycle_id: to.id, transferred: [open1, open2, open3].sort() });
      for (const w of [open1, open2, open3]) expect(await cycleOf(w)).toBe(to.id);
      for (const w of [done, dropped, shelved]) expect(await cycleOf(w)).toBe(from.id);
      // Nothing left to move: a repeat transfers nothing.
      expect((await transfer(from.id, { new_cycle_id: to.id })).body.transferred).toEqual([]);
    });

    it('transfer validates new_cycle_id', async () => {
      const from = await create({ name: 'Transfer source' }, pid);
      const ended = await create(
        { name: 'Ended', start_date: '2020-01-01T00:00:00Z', end_date: '2020-01-14T00:00:00Z' },
        pid,
      );
      const other = await t.project(ten.slug, ten.owner.key);
      const elsewhere = await create({ name: 'Other project cycle' }, other.id);
      const deleted = await create({ name: 'Deleted target' }, pid);
      await t.http.delete(`${base(pid)}${deleted.id}/`).set(key());
      for (const body of [
        { new_cycle_id: from.id },
        { new_cycle_id: elsewhere.id },
        { new_cycle_id: deleted.id },
        { new_cycle_id: '00000000-0000-4000-8000-000000000000' },
        { new_cycle_id: ended.id },
        { new_cycle_id: 'x' },
        { new_cycle_id: null },
        {},
      ]) {
        expect(errorFields(expectProblem(await transfer(from.id, body), 400, 'validation_error'))).toEqual([
          'new_cycle_id',
        ]);
      }
    });

    it('deleting a cycle keeps its work items and drops their assignment', async () => {
      const c = await create({ name: 'Short-lived' }, pid);
      const w1 = await workItem(pid);
      const w2 = await workItem(pid);
      await membership(c.id, { add: [w1, w2] });
      expect((await t.http.delete(`${base(pid)}${c.id}/`).set(key())).status).toBe(204);
      expect(await cycleOf(w1)).toBeNull();
      expect(await cycleOf(w2)).toBeNull();
      expect(await listIds('cycle_id__isnull=true')).toEqual(expect.arrayContaining([w1, w2]));
      expect(await listIds(`cycle_id=${c.id}`)).toEqual([]);
      const rows = await t.ds.query(
        `SELECT count(*)::int AS c FROM work_items WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL`,
        [[w1, w2]],
      );
      expect(rows[0].c).toBe(2);
    });
    it('work items expand cycle: the cycle object beside the id, null when in none', async () => {
      const c = await create(
        {
          name: 'Expandable',
          start_date: '2025-07-01T00:00:00Z',
          end_date: '2025-07-15T00:00:00Z',
          timezone: 'Asia/Tokyo',
        },
        pid,
      );
      const inside = await workItem(pid, { name: 'inside' });
      const outside = await workItem(pid, { name: 'outside' });
      await membership(c.id, { add: [inside] });
      const ref = {
        id: c.id,
        name: 'Expandable',
        start_date: '2025-07-01T00:00:00.000Z',
        end_date: '2025-07-15T00:00:00.000Z',
        timezone: 'Asia/Tokyo',
      };
      const list = await t.http.get(`${wiUrl()}?expand=cycle&per_page=200`).set(key());
      expect(list.status).toBe(200);
      const byId = new Map(list.body.data.map((x: { id: string }) => [x.id, x]));
      expect((byId.get(inside) as { cycle: unknown }).cycle).toEqual(ref);
      expect((byId.get(outside) as { cycle: unknown }).cycle).toBeNull();
      const one = await t.http.get(`${wiUrl()}${inside}/?expand=cycle,state`).set(key());
      expect(one.body.cycle).toEqual(ref);
      expect(one.body.state).toBeDefined();
      // Without the expand no cycle key; a deleted cycle expands to null.
      expect((await t.http.get(`${wiUrl()}${inside}/`).set(key())).body).not.toHaveProperty('cycle');
      await t.http.delete(`${base(pid)}${c.id}/`).set(key());
      expect((await t.http.get(`${wiUrl()}${inside}/?expand=cycle`).set(key())).body.cycle).toBeNull();
    });
  });
});
