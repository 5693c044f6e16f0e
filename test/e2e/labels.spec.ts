import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

describe('labels', () => {
  let t: TestApp;
  let ten: Tenant;
  let projectId: string;
  let base: string;
  let wsBase: string;
  const key = () => ({ 'X-Api-Key': ten.owner.key });

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    projectId = (await t.project(ten.slug, ten.owner.key)).id;
    base = `/api/v2/workspaces/${ten.slug}/projects/${projectId}/labels/`;
    wsBase = `/api/v2/workspaces/${ten.slug}/labels/`;
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>, url = base) => t.http.post(url).set(key()).send(body);

  describe('project labels', () => {
    it('creates with only a name; sort_order auto-assigned after the last; full object shape', async () => {
      const a = await create({ name: 'bug' });
      expect(a.status).toBe(201);
      expect(a.body).toEqual({
        id: expect.any(String),
        name: 'bug',
        description: '',
        color: null,
        sort_order: 65535,
        parent_id: null,
        external_id: null,
        external_source: null,
        created_at: expect.any(String),
        created_by_id: ten.owner.id,
      });
      const b = await create({
        name: 'feature',
        color: '#00FF00',
        description: 'd',
        external_id: 'L1',
        external_source: 'gh',
        sort_order: 10,
      });
      expect(b.body).toMatchObject({
        color: '#00FF00',
        description: 'd',
        external_id: 'L1',
        external_source: 'gh',
        sort_order: 10,
      });
      const c = await create({ name: 'chore' });
      expect(c.body.sort_order).toBe(65535 * 2);
    });

    it('validation: missing/blank/over-long name, bad colour, bad sort_order, malformed parent_id', async () => {
      expect(expectProblem(await create({}), 400, 'validation_error').errors[0].field).toBe('name');
      expectProblem(await create({ name: ' ' }), 400, 'validation_error');
      expectProblem(await create({ name: 'x'.repeat(256) }), 400, 'validation_error');
      expect(expectProblem(await create({ name: 'c', color: 'green' }), 400, 'validation_error').errors[0].field).toBe(
        'color',
      );
      expect(
        expectProblem(await create({ name: 'c', sort_order: 'first' }), 400, 'validation_error').errors[0].field,
      ).toBe('sort_order');
      expect(expectProblem(await create({ name: 'c', parent_id: 'x' }), 400, 'validation_error').errors[0].field).toBe(
        'parent_id',
      );
    });

    it('duplicate name in the project is 409 (create and rename); same name in another project is fine', async () => {
      await create({ name: 'dup' });
      expectProblem(await create({ name: 'dup' }), 409, 'conflict');
      const other = await create({ name: 'other' });
      expectProblem(await t.http.patch(`${base}${other.body.id}/`).set(key()).send({ name: 'dup' }), 409, 'conflict');
      const p2 = await t.project(ten.slug, ten.owner.key);
      expect((await create({ name: 'dup' }, `/api/v2/workspaces/${ten.slug}/projects/${p2.id}/labels/`)).status).toBe(
        201,
      );
    });

    it('parent_id must be a label of the same project, else 400; no cycles; null lifts to top level', async () => {
      const parent = await create({ name: 'area' });
      const child = await create({ name: 'area/api', parent_id: parent.body.id });
      expect(child.body.parent_id).toBe(parent.body.id);
      const grandchild = await create({ name: 'area/api/v2', parent_id: child.body.id });
      // a label of another project of the same workspace
      const p2 = await t.project(ten.slug, ten.owner.key);
      const foreign = await create({ name: 'foreign' }, `/api/v2/workspaces/${ten.slug}/projects/${p2.id}/labels/`);
      expect(
        expectProblem(await create({ name: 'bad parent', parent_id: foreign.body.id }), 400, 'validation_error')
          .errors[0].field,
      ).toBe('parent_id');
      // a workspace-level label is not a project label's parent
      const wsl = await create({ name: 'ws-parent' }, wsBase);
      expectProblem(await create({ name: 'bad parent 2', parent_id: wsl.body.id }), 400, 'validation_error');
      expectProblem(
        await create({ name: 'bad parent 3', parent_id: '00000000-0000-4000-8000-000000000000' }),
        400,
        'validation_error',
      );
      // cycles
      expectProblem(
        await t.http.patch(`${base}${parent.body.id}/`).set(key()).send({ parent_id: parent.body.id }),
        400,
        'validation_error',
      );
      expectProblem(
        await t.http.patch(`${base}${parent.body.id}/`).set(key()).send({ parent_id: grandchild.body.id }),
        400,
        'validation_error',
      );
      const lifted = await t.http.patch(`${base}${child.body.id}/`).set(key()).send({ parent_id: null });
      expect(lifted.body.parent_id).toBeNull();
    });

    it('PATCH is partial; null clears color, description and external ids', async () => {
      const l = await create({
        name: 'patchy',
        color: '#123',
        description: 'keep',
        external_id: 'E',
        external_source: 'S',
      });
      const url = `${base}${l.body.id}/`;
      const a = await t.http.patch(url).set(key()).send({ sort_order: 3.5 });
      expect(a.body).toMatchObject({
        name: 'patchy',
        color: '#123',
        description: 'keep',
        external_id: 'E',
        sort_order: 3.5,
      });
      const b = await t.http
        .patch(url)
        .set(key())
        .send({ color: null, description: null, external_id: null, external_source: null, name: 'patched' });
      expect(b.body).toMatchObject({
        name: 'patched',
        color: null,
        description: '',
        external_id: null,
        external_source: null,
      });
      expectProblem(await t.http.patch(url).set(key()).send({ name: null }), 400, 'validation_error');
      expectProblem(await t.http.patch(url).set(key()).send({ color: '#12' }), 400, 'validation_error');
    });

    it('list: filters parent_id, parent_id__isnull, external_id, external_source, search; orderings; bare cursor is 400', async () => {
      const lp = await t.project(ten.slug, ten.owner.key);
      const url = `/api/v2/workspaces/${ten.slug}/projects/${lp.id}/labels/`;
      const top = await create({ name: 'Top', sort_order: 3 }, url);
      const kid = await create(
        { name: 'Kid', parent_id: top.body.id, sort_order: 1, external_id: 'K', external_source: 'jira' },
        url,
      );
      await create({ name: 'Other top', sort_order: 2 }, url);
      const names = async (q: string) => (await t.http.get(`${url}${q}`).set(key())).body.data.map((l: any) => l.name);
      expect(await names('')).toEqual(['Kid', 'Other top', 'Top']);
      expect(await names('?order_by=-sort_order')).toEqual(['Top', 'Other top', 'Kid']);
      expect(await names('?order_by=created_at')).toEqual(['Top', 'Kid', 'Other top']);
      expect(await names(`?parent_id=${top.body.id}`)).toEqual(['Kid']);
      expect(await names('?parent_id__isnull=true')).toEqual(['Other top', 'Top']);
      expect(await names('?parent_id__isnull=false')).toEqual(['Kid']);
      expect(await names('?external_id=K')).toEqual(['Kid']);
      expect(await names('?external_source=jira')).toEqual(['Kid']);
      expect(await names('?search=TOP')).toEqual(['Other top', 'Top']);
      expectProblem(await t.http.get(`${url}?parent_id=zzz`).set(key()), 400, 'validation_error');
      expectProblem(await t.http.get(`${url}?paginate=cursor`).set(key()), 400, 'ordering_not_cursor_eligible');
      const c1 = await t.http.get(`${url}?paginate=cursor&order_by=id&per_page=2`).set(key());
      expect(c1.body.has_more).toBe(true);
      const c2 = await t.http.get(`${url}?order_by=id&per_page=2&cursor=${c1.body.next_cursor}`).set(key());
      expect(c2.body.data).toHaveLength(1);
      expect(c2.body.has_more).toBe(false);
      expect(kid.status).toBe(201);
      // project labels do not list workspace labels
      await create({ name: 'ws-only' }, wsBase);
      expect(await names('?search=ws-only')).toEqual([]);
    });

    it('DELETE: 204, soft, children lifted, repeat 404; the name is free again', async () => {
      const parent = await create({ name: 'to-delete' });
      const child = await create({ name: 'to-delete/child', parent_id: parent.body.id });
      const d = await t.http.delete(`${base}${parent.body.id}/`).set(key());
      expect(d.status).toBe(204);
      expect(d.text).toBe('');
      expectProblem(await t.http.get(`${base}${parent.body.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.delete(`${base}${parent.body.id}/`).set(key()), 404, 'resource_not_found');
      expect((await t.http.get(`${base}${child.body.id}/`).set(key())).body.parent_id).toBeNull();
      expect(
        (await t.ds.query(`SELECT deleted_at FROM labels WHERE id = $1`, [parent.body.id]))[0].deleted_at,
      ).not.toBeNull();
      expect((await create({ name: 'to-delete' })).status).toBe(201);
    });

    it('DELETE strips the label from work items', async () => {
      const l = await create({ name: 'stripped' });
      const keep = await create({ name: 'kept' });
      const wi = await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/work-items/`)
        .set(key())
        .send({ name: 'Has labels', label_ids: [l.body.id, keep.body.id] });
      expect(wi.status).toBe(201);
      expect((await t.http.delete(`${base}${l.body.id}/`).set(key())).status).toBe(204);
      const after = await t.http
        .get(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/work-items/${wi.body.id}/`)
        .set(key());
      expect(after.body.label_ids).toEqual([keep.body.id]);
    });

    it('DELETE strips the label from archived and deleted work items too, each side read by an index', async () => {
      const l = await create({ name: 'stripped everywhere' });
      const items = `/api/v2/workspaces/${ten.slug}/projects/${projectId}/work-items/`;
      const made = async (name: string) =>
        (
          await t.http
            .post(items)
            .set(key())
            .send({ name, label_ids: [l.body.id] })
            .expect(201)
        ).body.id as string;
      const [live, archived, deleted] = [await made('live'), await made('archived'), await made('deleted')];
      await t.http.post(`${items}${archived}/archive/`).set(key()).expect(200);
      await t.http.delete(`${items}${deleted}/`).set(key()).expect(204);
      const links = () =>
        t.ds.query(`SELECT work_item_id, item_live FROM work_item_labels WHERE label_id = $1 ORDER BY item_live`, [
          l.body.id,
        ]);
      expect((await links()).map((r: { item_live: boolean }) => r.item_live)).toEqual([false, false, true]);
      expect((await t.http.delete(`${base}${l.body.id}/`).set(key())).status).toBe(204);
      expect(await links()).toEqual([]);
      await t.http.post(`${items}${archived}/unarchive/`).set(key()).expect(200);
      for (const id of [live, archived]) {
        const after = await t.http.get(`${items}${id}/`).set(key()).expect(200);
        expect(after.body.label_ids).toEqual([]);
      }
      // No index holds every link of a label (migration LinkKeyIndexesNotLiveOnly): each side must have one whose
      // predicate its statement meets, or a deletion reads the whole table (with sequential scans off, a plan still
      // shows one only when no index can serve it).
      const plan = (live: boolean) =>
        t.ds.transaction(async (m) => {
          await m.query('SET LOCAL enable_seqscan = off');
          const sql = `DELETE FROM work_item_labels x WHERE x.workspace_id = $1 AND x.label_id = $2 AND x.item_live = ${live}`;
          return JSON.stringify(await m.query(`EXPLAIN (FORMAT JSON) ${sql}`, [ten.workspaceId, l.body.id]));
        });
      expect(await plan(false)).toContain('ix_work_item_labels_not_live');
      expect(await plan(true)).not.toContain('Seq Scan');
    });

    it('tenant wall: labels of another project or workspace are 404 in paths', async () => {
      const other = await t.tenant();
      const op = await t.project(other.slug, other.owner.key);
      const ol = await t.http
        .post(`/api/v2/workspaces/${other.slug}/projects/${op.id}/labels/`)
        .set({ 'X-Api-Key': other.owner.key })
        .send({ name: 'theirs' });
      for (const req of [
        t.http.get(`${base}${ol.body.id}/`),
        t.http.patch(`${base}${ol.body.id}/`).send({ name: 'x' }),
        t.http.delete(`${base}${ol.body.id}/`),
      ]) {
        expectProblem(await req.set(key()), 404, 'resource_not_found');
      }
      const p2 = await t.project(ten.slug, ten.owner.key);
      const sib = await create({ name: 'sibling' }, `/api/v2/workspaces/${ten.slug}/projects/${p2.id}/labels/`);
      expectProblem(await t.http.get(`${base}${sib.body.id}/`).set(key()), 404, 'resource_not_found');
      // a workspace label is not reachable through a project path
      const wsl = await create({ name: 'ws-via-project' }, wsBase);
      expectProblem(await t.http.get(`${base}${wsl.body.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(
        await t.http.get(`/api/v2/workspaces/${other.slug}/projects/${op.id}/labels/`).set(key()),
        404,
        'resource_not_found',
      );
    });

    it('roles and scopes: guest reads, contributor 403 on writes; scope ceiling', async () => {
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
      const l = await create({ name: 'role-check' });
      expect((await t.http.get(base).set({ 'X-Api-Key': guest.key })).status).toBe(200);
      expect((await t.http.get(`${base}${l.body.id}/`).set({ 'X-Api-Key': guest.key })).status).toBe(200);
      const c = { 'X-Api-Key': contrib.key };
      expectProblem(await t.http.post(base).set(c).send({ name: 'nope' }), 403, 'forbidden');
      expectProblem(await t.http.patch(`${base}${l.body.id}/`).set(c).send({ name: 'nope' }), 403, 'forbidden');
      expectProblem(await t.http.delete(`${base}${l.body.id}/`).set(c), 403, 'forbidden');
      const ro = { Authorization: `Bearer ${await t.token(ten.owner.email, ['projects.labels:read'])}` };
      expect((await t.http.get(base).set(ro)).status).toBe(200);
      expectProblem(await t.http.post(base).set(ro).send({ name: 'nope' }), 403, 'forbidden');
      const rw = { Authorization: `Bearer ${await t.token(ten.owner.email, ['projects.labels:write'])}` };
      expect((await t.http.post(base).set(rw).send({ name: 'by-token' })).status).toBe(201);
      const wsScope = { Authorization: `Bearer ${await t.token(ten.owner.email, ['workspaces.labels:read'])}` };
      expectProblem(await t.http.get(base).set(wsScope), 403, 'forbidden');
    });
  });

  describe('workspace labels', () => {
    it('five operations with the same rules; names unique among workspace labels only', async () => {
      const a = await create({ name: 'priority', color: '#F00' }, wsBase);
      expect(a.status).toBe(201);
      expect(a.body).toMatchObject({ name: 'priority', color: '#F00', parent_id: null, created_by_id: ten.owner.id });
      expectProblem(await create({ name: 'priority' }, wsBase), 409, 'conflict');
      // the same name may exist as a project label (the work item resolver calls that ambiguous)
      expect((await create({ name: 'priority' })).status).toBe(201);
      const g = await t.http.get(`${wsBase}${a.body.id}/`).set(key());
      expect(g.body.id).toBe(a.body.id);
      const child = await create({ name: 'priority/high', parent_id: a.body.id }, wsBase);
      expect(child.body.parent_id).toBe(a.body.id);
      // a project label is not a workspace label's parent
      const pl = await create({ name: 'project-only' });
      expect(
        expectProblem(await create({ name: 'bad', parent_id: pl.body.id }, wsBase), 400, 'validation_error').errors[0]
          .field,
      ).toBe('parent_id');
      const p = await t.http.patch(`${wsBase}${child.body.id}/`).set(key()).send({ name: 'urgent', parent_id: null });
      expect(p.body).toMatchObject({ name: 'urgent', parent_id: null });
      expectProblem(
        await t.http.patch(`${wsBase}${child.body.id}/`).set(key()).send({ name: 'priority' }),
        409,
        'conflict',
      );
      const list = await t.http.get(`${wsBase}?search=prio`).set(key());
      expect(list.body.data.map((l: any) => l.name)).toEqual(['priority']);
      expect(
        (await t.http.get(`${wsBase}?parent_id__isnull=true`).set(key())).body.data.every(
          (l: any) => l.parent_id === null,
        ),
      ).toBe(true);
      expectProblem(await t.http.get(`${wsBase}?paginate=cursor`).set(key()), 400, 'ordering_not_cursor_eligible');
      // project labels are not reachable on the workspace path
      expectProblem(await t.http.get(`${wsBase}${pl.body.id}/`).set(key()), 404, 'resource_not_found');
      expect((await t.http.delete(`${wsBase}${child.body.id}/`).set(key())).status).toBe(204);
      expectProblem(await t.http.delete(`${wsBase}${child.body.id}/`).set(key()), 404, 'resource_not_found');
    });

    it('roles: any workspace member (guest included) reads; only admins and owners write; scopes', async () => {
      const l = await create({ name: 'ws-roles' }, wsBase);
      const guest = await t.member(ten.slug, 'guest');
      const member = await t.member(ten.slug, 'member');
      const admin = await t.member(ten.slug, 'admin');
      expect((await t.http.get(wsBase).set({ 'X-Api-Key': guest.key })).status).toBe(200);
      expect((await t.http.get(`${wsBase}${l.body.id}/`).set({ 'X-Api-Key': member.key })).status).toBe(200);
      expectProblem(await t.http.post(wsBase).set({ 'X-Api-Key': member.key }).send({ name: 'm' }), 403, 'forbidden');
      expectProblem(
        await t.http.patch(`${wsBase}${l.body.id}/`).set({ 'X-Api-Key': member.key }).send({ name: 'm' }),
        403,
        'forbidden',
      );
      expectProblem(await t.http.delete(`${wsBase}${l.body.id}/`).set({ 'X-Api-Key': member.key }), 403, 'forbidden');
      expect((await t.http.post(wsBase).set({ 'X-Api-Key': admin.key }).send({ name: 'by-admin' })).status).toBe(201);
      const ro = { Authorization: `Bearer ${await t.token(ten.owner.email, ['workspaces.labels:read'])}` };
      expect((await t.http.get(wsBase).set(ro)).status).toBe(200);
      expectProblem(await t.http.post(wsBase).set(ro).send({ name: 'x' }), 403, 'forbidden');
      const projScope = { Authorization: `Bearer ${await t.token(ten.owner.email, ['projects.labels:write'])}` };
      expectProblem(await t.http.post(wsBase).set(projScope).send({ name: 'x' }), 403, 'forbidden');
    });

    it("tenant wall: another workspace's labels are 404; a foreign workspace is 404", async () => {
      const other = await t.tenant();
      const ol = await t.http
        .post(`/api/v2/workspaces/${other.slug}/labels/`)
        .set({ 'X-Api-Key': other.owner.key })
        .send({ name: 'theirs' });
      expect(ol.status).toBe(201);
      expectProblem(await t.http.get(`${wsBase}${ol.body.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(
        await t.http.patch(`${wsBase}${ol.body.id}/`).set(key()).send({ name: 'x' }),
        404,
        'resource_not_found',
      );
      expectProblem(await t.http.delete(`${wsBase}${ol.body.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.get(`/api/v2/workspaces/${other.slug}/labels/`).set(key()), 404, 'resource_not_found');
      // another workspace's label as parent: 400 in the body
      expectProblem(await create({ name: 'x-parent', parent_id: ol.body.id }, wsBase), 400, 'validation_error');
    });
  });
});
