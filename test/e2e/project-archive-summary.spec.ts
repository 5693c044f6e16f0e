import { auditEntries } from '../helpers/audit';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

/** Project archive / unarchive / summary (issue 19). */
describe('project archive and summary', () => {
  let t: TestApp;
  let ten: Tenant;
  let p: { id: string; identifier: string };
  let contributor: { id: string; key: string };
  let base: string;
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });
  const post = (path: string, body?: Record<string, unknown>, k = ten.owner.key) =>
    t.http.post(`${base}${path}`).set(key(k)).send(body);

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    p = await t.project(ten.slug, ten.owner.key, { identifier: 'ARC' });
    base = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/`;
    contributor = await t.member(ten.slug, 'member');
    const r = await post('members/', { member_id: contributor.id, role: 'contributor' });
    expect(r.status).toBe(201);
  });
  afterAll(() => t.close());

  describe('summary', () => {
    it('answers identity, counts and the work item breakdown from counters', async () => {
      const states = await t.http.get(`${base}states/`).set(key());
      const started = states.body.data.find((s: any) => s.group === 'started').id;
      const cycle = await post('cycles/', { name: 'C1' });
      expect(cycle.status).toBe(201);
      const mod = await post('modules/', { name: 'M1' });
      expect(mod.status).toBe(201);
      const a = await post('work-items/', { name: 'a', priority: 'high', assignee_ids: [contributor.id] });
      const b = await post('work-items/', { name: 'b', state_id: started });
      await post('work-items/', { name: 'c' });
      expect((await post(`cycles/${cycle.body.id}/work-items/`, { add: [a.body.id] })).status).toBe(200);
      expect((await post(`modules/${mod.body.id}/work-items/`, { add: [a.body.id, b.body.id] })).status).toBe(200);

      const res = await t.http.get(`${base}summary/`).set(key());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: p.id,
        identifier: 'ARC',
        name: expect.any(String),
        counts: { members: 2, states: states.body.data.length, labels: 0, cycles: 1, modules: 1, issues: 3 },
        work_items: {
          by_state_group: { backlog: 2, started: 1 },
          by_priority: { high: 1, none: 2 },
          by_assignee: { [contributor.id]: 1 },
          by_cycle: { [cycle.body.id]: 1 },
          by_module: { [mod.body.id]: 2 },
        },
      });
    });

    it('?counts= narrows the counts; an unknown name is 400 naming counts', async () => {
      const res = await t.http.get(`${base}summary/?counts=issues,members`).set(key());
      expect(res.body.counts).toEqual({ issues: 3, members: 2 });
      const bad = expectProblem(
        await t.http.get(`${base}summary/?counts=issues,pages`).set(key()),
        400,
        'validation_error',
      );
      expect(bad.errors[0].field).toBe('counts');
    });

    it('is read with projects:read; a foreign project is 404', async () => {
      const tok = await t.token(ten.owner.email, ['projects.work_items:read']);
      expectProblem(await t.http.get(`${base}summary/`).set('Authorization', `Bearer ${tok}`), 403, 'forbidden');
      const other = await t.tenant();
      expectProblem(await t.http.get(`${base}summary/`).set(key(other.owner.key)), 404, 'resource_not_found');
    });
  });

  describe('archive', () => {
    it('project admins only', async () => {
      expectProblem(await post('archive/', undefined, contributor.key), 403, 'forbidden');
    });

    it('archives: 204, leaves the project and workspace lists, reads still work, writes are 409', async () => {
      const item = await post('work-items/', { name: 'kept' });
      expect((await post('archive/')).status).toBe(204);

      const projects = await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/`).set(key());
      expect(projects.body.data.map((x: any) => x.id)).not.toContain(p.id);
      const archived = await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/?is_archived=true`).set(key());
      expect(archived.body.data.map((x: any) => x.id)).toEqual([p.id]);
      const all = await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/?include_archived=true`).set(key());
      expect(all.body.data.map((x: any) => x.id)).toContain(p.id);
      const ws = await t.http.get(`/api/v2/workspaces/${ten.slug}/work-items/`).set(key());
      expect(ws.body.total_count).toBe(0);

      const got = await t.http.get(base).set(key());
      expect(got.body.archived_at).toEqual(expect.any(String));
      expect((await t.http.get(`${base}work-items/${item.body.id}/`).set(key())).status).toBe(200);
      expect((await t.http.get(`${base}summary/`).set(key())).body.counts.issues).toBe(4);

      expectProblem(await post('work-items/', { name: 'refused' }), 409, 'project_archived');
      expectProblem(
        await t.http.patch(`${base}work-items/${item.body.id}/`).set(key()).send({ name: 'x' }),
        409,
        'project_archived',
      );
      expectProblem(await t.http.patch(base).set(key()).send({ name: 'renamed' }), 409, 'project_archived');
      expectProblem(await post('labels/', { name: 'L' }), 409, 'project_archived');
      expectProblem(await post('archive/'), 409, 'project_archived');
      // The role comes first: a contributor learns it may not, not that the project is archived.
      expectProblem(await t.http.patch(base).set(key(contributor.key)).send({ name: 'x' }), 403, 'forbidden');
    });

    it('unarchives: 204, idempotent, writes work again; both audited once', async () => {
      expect((await post('unarchive/')).status).toBe(204);
      expect((await post('unarchive/')).status).toBe(204);
      expect((await post('work-items/', { name: 'accepted' })).status).toBe(201);
      const projects = await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/`).set(key());
      expect(projects.body.data.map((x: any) => x.id)).toContain(p.id);

      const entries = (await auditEntries(t, ten)).filter(
        (e: any) => e.event_name === 'project.archived' || e.event_name === 'project.unarchived',
      );
      expect(entries.map((e: any) => [e.event_name, e.target_id, e.new_value])).toEqual(
        expect.arrayContaining([
          ['project.archived', p.id, { archived: true }],
          ['project.unarchived', p.id, { archived: false }],
        ]),
      );
      expect(entries).toHaveLength(2);
    });

    it('an archived project can still be deleted', async () => {
      const q = await t.project(ten.slug, ten.owner.key);
      const qb = `/api/v2/workspaces/${ten.slug}/projects/${q.id}/`;
      expect((await t.http.post(`${qb}archive/`).set(key())).status).toBe(204);
      expect((await t.http.delete(qb).set(key())).status).toBe(204);
      expectProblem(await t.http.get(qb).set(key()), 404, 'resource_not_found');
    });
  });
});
