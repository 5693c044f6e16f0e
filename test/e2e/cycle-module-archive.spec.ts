import { WebhookOutbox } from '../../src/webhooks/webhook-outbox';
import { auditEntries } from '../helpers/audit';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

/** Issue 20: the v2 archive of cycles and modules (docs/cycles-modules-features.md, "Archive"). */
describe('cycle and module archive', () => {
  let t: TestApp;
  let ten: Tenant;
  let other: Tenant;
  let projectId: string;
  let contributor: { id: string; email: string; key: string };
  let commenter: { id: string; email: string; key: string };

  const project = (pid = projectId, slug = ten.slug) => `/api/v2/workspaces/${slug}/projects/${pid}`;
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });
  const PAST = { start_date: '2024-01-01T00:00:00Z', end_date: '2024-01-14T00:00:00Z' };

  async function created(path: string, body: Record<string, unknown>, pid = projectId, tenant = ten) {
    const res = await t.http
      .post(`${project(pid, tenant.slug)}/${path}/`)
      .set(key(tenant.owner.key))
      .send(body);
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }
  const post = (path: string, k = ten.owner.key, headers: Record<string, string> = {}) =>
    t.http.post(`${project()}/${path}`).set(key(k)).set(headers);
  const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((r) => r.id);

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    other = await t.tenant();
    projectId = (await t.project(ten.slug, ten.owner.key)).id;
    contributor = await t.member(ten.slug, 'member');
    commenter = await t.member(ten.slug, 'member');
    for (const [u, role] of [
      [contributor, 'contributor'],
      [commenter, 'commenter'],
    ] as const) {
      const r = await t.http.post(`${project()}/members/`).set(key()).send({ member_id: u.id, role });
      expect(r.status).toBe(201);
    }
  });
  afterAll(() => t.close());

  describe('cycles', () => {
    it('archives an ended cycle: 200 with archived_at, out of the list and the detail, in the archived list', async () => {
      const c = await created('cycles', { name: 'Ended', ...PAST });
      const live = await created('cycles', { name: 'Live' });
      const res = await post(`cycles/${c.id}/archive/`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          id: c.id,
          name: 'Ended',
          archived_at: expect.any(String),
          progress: expect.any(Object),
        }),
      );
      expect(Date.now() - Date.parse(res.body.archived_at)).toBeLessThan(60_000);
      expect(ids(await t.http.get(`${project()}/cycles/`).set(key()))).toEqual([live.id]);
      expectProblem(await t.http.get(`${project()}/cycles/${c.id}/`).set(key()), 404, 'resource_not_found');
      const archived = await t.http.get(`${project()}/archived-cycles/`).set(key());
      expect(archived.status).toBe(200);
      expect(archived.body.data).toEqual([expect.objectContaining({ id: c.id, archived_at: res.body.archived_at })]);
      expect(live.archived_at).toBeNull();
    });

    it('refuses a cycle that has not ended (no end_date, or end_date not yet past): 409 not_archivable', async () => {
      const undated = await created('cycles', { name: 'Undated' });
      const running = await created('cycles', {
        name: 'Running',
        start_date: '2024-01-01T00:00:00Z',
        end_date: '2999-01-01T00:00:00Z',
      });
      for (const c of [undated, running]) {
        const body = expectProblem(await post(`cycles/${c.id}/archive/`), 409, 'not_archivable');
        expect(body.detail).toMatch(/completed cycle/);
      }
      expect(ids(await t.http.get(`${project()}/cycles/`).set(key()))).toEqual(
        expect.arrayContaining([undated.id, running.id]),
      );
    });

    it('refuses every write to an archived cycle with 409 cycle_archived, archiving again included', async () => {
      const c = await created('cycles', { name: 'Frozen', ...PAST });
      const target = await created('cycles', { name: 'Next sprint' });
      const item = await created('work-items', { name: 'Item' });
      expect((await post(`cycles/${c.id}/work-items/`).send({ add: [item.id] })).status).toBe(200);
      expect((await post(`cycles/${c.id}/archive/`)).status).toBe(200);
      const base = `${project()}/cycles/${c.id}/`;
      expectProblem(await t.http.patch(base).set(key()).send({ description: 'x' }), 409, 'cycle_archived');
      expectProblem(await t.http.delete(base).set(key()), 409, 'cycle_archived');
      expectProblem(await post(`cycles/${c.id}/work-items/`).send({ add: [item.id] }), 409, 'cycle_archived');
      expectProblem(await post(`cycles/${c.id}/work-items/`).send({ remove: [item.id] }), 409, 'cycle_archived');
      expectProblem(await post(`cycles/${c.id}/transfer/`).send({ new_cycle_id: target.id }), 409, 'cycle_archived');
      expectProblem(await post(`cycles/${c.id}/archive/`), 409, 'cycle_archived');
      // Transfer into an archived cycle: the target is not a cycle one can move work to.
      const body = expectProblem(
        await post(`cycles/${target.id}/transfer/`).send({ new_cycle_id: c.id }),
        400,
        'validation_error',
      );
      expect(body.errors[0].field).toBe('new_cycle_id');
      // Its work item stays in it.
      const inCycle = await t.http.get(`${project()}/work-items/?cycle_id=${c.id}`).set(key());
      expect(ids(inCycle)).toEqual([item.id]);
    });

    it('unarchives: 200, back in the list and readable, writable again; idempotent on a live cycle', async () => {
      const c = await created('cycles', { name: 'Revived', ...PAST });
      expect((await post(`cycles/${c.id}/archive/`)).status).toBe(200);
      const res = await post(`cycles/${c.id}/unarchive/`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(expect.objectContaining({ id: c.id, archived_at: null }));
      const again = await post(`cycles/${c.id}/unarchive/`);
      expect(again.status).toBe(200);
      expect(again.body.archived_at).toBeNull();
      expect((await t.http.get(`${project()}/cycles/${c.id}/`).set(key())).status).toBe(200);
      expect(ids(await t.http.get(`${project()}/archived-cycles/`).set(key()))).not.toContain(c.id);
      const patched = await t.http.patch(`${project()}/cycles/${c.id}/`).set(key()).send({ description: 'back' });
      expect(patched.status).toBe(200);
    });

    it('bumps the row version: the ETag of the cycle changes across archive and unarchive', async () => {
      const c = await created('cycles', { name: 'Tagged', ...PAST });
      const before = (await t.http.get(`${project()}/cycles/${c.id}/`).set(key())).headers.etag;
      expect((await post(`cycles/${c.id}/archive/`)).status).toBe(200);
      expect((await post(`cycles/${c.id}/unarchive/`)).status).toBe(200);
      const after = (await t.http.get(`${project()}/cycles/${c.id}/`).set(key())).headers.etag;
      expect(before).toMatch(/^"1-/);
      expect(after).toMatch(/^"3-/);
    });
  });

  describe('modules', () => {
    it('archives a completed or cancelled module only; others are 409 not_archivable', async () => {
      for (const status of ['backlog', 'planned', 'in-progress', 'paused']) {
        const m = await created('modules', { name: `Open ${status}`, status });
        const body = expectProblem(await post(`modules/${m.id}/archive/`), 409, 'not_archivable');
        expect(body.detail).toMatch(/completed or cancelled/);
      }
      for (const status of ['completed', 'cancelled']) {
        const m = await created('modules', { name: `Closed ${status}`, status });
        const res = await post(`modules/${m.id}/archive/`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(expect.objectContaining({ id: m.id, status, archived_at: expect.any(String) }));
      }
    });

    it('hides an archived module from the list and the detail, lists it in archived-modules, refuses writes', async () => {
      const m = await created('modules', { name: 'Shipped', status: 'completed' });
      const item = await created('work-items', { name: 'In module' });
      expect((await post(`modules/${m.id}/work-items/`).send({ add: [item.id] })).status).toBe(200);
      expect((await post(`modules/${m.id}/archive/`)).status).toBe(200);
      expect(ids(await t.http.get(`${project()}/modules/`).set(key()))).not.toContain(m.id);
      expectProblem(await t.http.get(`${project()}/modules/${m.id}/`).set(key()), 404, 'resource_not_found');
      expect(ids(await t.http.get(`${project()}/archived-modules/`).set(key()))).toContain(m.id);
      const base = `${project()}/modules/${m.id}/`;
      expectProblem(await t.http.patch(base).set(key()).send({ status: 'planned' }), 409, 'module_archived');
      expectProblem(await t.http.delete(base).set(key()), 409, 'module_archived');
      expectProblem(await post(`modules/${m.id}/work-items/`).send({ remove: [item.id] }), 409, 'module_archived');
      expectProblem(await post(`modules/${m.id}/archive/`), 409, 'module_archived');
      const un = await post(`modules/${m.id}/unarchive/`);
      expect(un.status).toBe(200);
      expect(un.body).toEqual(expect.objectContaining({ id: m.id, archived_at: null, member_ids: [] }));
      expect((await post(`modules/${m.id}/unarchive/`)).status).toBe(200);
      expect((await t.http.patch(base).set(key()).send({ status: 'planned' })).status).toBe(200);
    });

    it('pages the archived list with the list parameters (filters, per_page, cursor)', async () => {
      const pid = (await t.project(ten.slug, ten.owner.key)).id;
      const made: string[] = [];
      for (let i = 0; i < 5; i++) {
        const m = await created('modules', { name: `Old ${i}`, status: 'completed' }, pid);
        expect((await t.http.post(`${project(pid)}/modules/${m.id}/archive/`).set(key())).status).toBe(200);
        made.push(m.id);
      }
      await created('modules', { name: 'Still open' }, pid);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = `paginate=cursor&order_by=created_at&per_page=2${cursor ? `&cursor=${cursor}` : ''}`;
        const page = await t.http.get(`${project(pid)}/archived-modules/?${q}`).set(key());
        expect(page.status).toBe(200);
        expect(page.body.data.length).toBeLessThanOrEqual(2);
        seen.push(...ids(page));
        cursor = page.body.has_more ? page.body.next_cursor : null;
      } while (cursor);
      expect(seen).toEqual(made);
      const filtered = await t.http.get(`${project(pid)}/archived-modules/?search=Old 3`).set(key());
      expect(ids(filtered)).toEqual([made[3]]);
      const cycles = await t.http.get(`${project(pid)}/archived-cycles/?per_page=1`).set(key());
      expect(cycles.status).toBe(200);
      expect(cycles.body.data).toEqual([]);
    });
  });

  describe('access', () => {
    it('another tenant\u2019s cycle or module is 404 on archive, unarchive; its archived list is 404', async () => {
      const foreignProject = (await t.project(other.slug, other.owner.key)).id;
      const c = await created('cycles', { name: 'Theirs', ...PAST }, foreignProject, other);
      const m = await created('modules', { name: 'Theirs', status: 'completed' }, foreignProject, other);
      for (const path of [
        `cycles/${c.id}/archive/`,
        `cycles/${c.id}/unarchive/`,
        `modules/${m.id}/archive/`,
        `modules/${m.id}/unarchive/`,
      ]) {
        expectProblem(await post(path), 404, 'resource_not_found');
      }
      const foreignList = await t.http.get(`${project(foreignProject, other.slug)}/archived-cycles/`).set(key());
      expect(foreignList.status).toBe(404);
      const theirs = await t.http
        .post(`${project(foreignProject, other.slug)}/cycles/${c.id}/archive/`)
        .set(key(other.owner.key));
      expect(theirs.status).toBe(200);
    });

    it('needs project contributor to archive and unarchive (commenter 403); a commenter reads the archived lists', async () => {
      const c = await created('cycles', { name: 'Roles', ...PAST });
      const m = await created('modules', { name: 'Roles', status: 'completed' });
      expectProblem(await post(`cycles/${c.id}/archive/`, commenter.key), 403, 'forbidden');
      expectProblem(await post(`modules/${m.id}/archive/`, commenter.key), 403, 'forbidden');
      expect((await post(`cycles/${c.id}/archive/`, contributor.key)).status).toBe(200);
      expect((await post(`modules/${m.id}/archive/`, contributor.key)).status).toBe(200);
      expectProblem(await post(`cycles/${c.id}/unarchive/`, commenter.key), 403, 'forbidden');
      expect((await t.http.get(`${project()}/archived-cycles/`).set(key(commenter.key))).status).toBe(200);
      expect((await t.http.get(`${project()}/archived-modules/`).set(key(commenter.key))).status).toBe(200);
      expect((await post(`cycles/${c.id}/unarchive/`, contributor.key)).status).toBe(200);
      expect((await post(`modules/${m.id}/unarchive/`, contributor.key)).status).toBe(200);
    });

    it('needs the write scope to archive and the read scope to list archived (403 otherwise)', async () => {
      const c = await created('cycles', { name: 'Scopes', ...PAST });
      const m = await created('modules', { name: 'Scopes', status: 'cancelled' });
      const bearer = async (scopes: string[]) => ({
        Authorization: `Bearer ${await t.token(ten.owner.email, scopes)}`,
      });
      const read = await bearer(['projects.cycles:read', 'projects.modules:read']);
      expectProblem(await t.http.post(`${project()}/cycles/${c.id}/archive/`).set(read), 403, 'forbidden');
      expectProblem(await t.http.post(`${project()}/modules/${m.id}/archive/`).set(read), 403, 'forbidden');
      const write = await bearer(['projects.cycles:write', 'projects.modules:write']);
      expectProblem(await t.http.get(`${project()}/archived-cycles/`).set(write), 403, 'forbidden');
      expectProblem(await t.http.get(`${project()}/archived-modules/`).set(write), 403, 'forbidden');
      expect((await t.http.get(`${project()}/archived-cycles/`).set(read)).status).toBe(200);
      expect((await t.http.post(`${project()}/cycles/${c.id}/archive/`).set(write)).status).toBe(200);
      expect((await t.http.post(`${project()}/modules/${m.id}/archive/`).set(write)).status).toBe(200);
    });

    it('refuses the archive while the feature is off (400 naming the flag)', async () => {
      const c = await created('cycles', { name: 'Feature', ...PAST });
      const flags = `${project()}/features/`;
      expect((await t.http.patch(flags).set(key()).send({ is_cycles_enabled: false })).status).toBe(200);
      const body = expectProblem(await post(`cycles/${c.id}/archive/`), 400, 'validation_error');
      expect(body.errors[0].field).toBe('is_cycles_enabled');
      expect((await t.http.patch(flags).set(key()).send({ is_cycles_enabled: true })).status).toBe(200);
    });
  });

  describe('bulk writes and upsert', () => {
    // The bulk rows are the single operations (src/common/bulk): an archived record refuses them row by row.
    const archivedOf = [
      ['cycles', 'cycle_archived', { ...PAST }],
      ['modules', 'module_archived', { status: 'completed' }],
    ] as const;

    it.each(archivedOf)(
      '%s: bulk-update and bulk-delete rows naming an archived record fail with 409 %s',
      async (path, code, extra) => {
        const live = await created(path, { name: `Live ${path}`, ...extra });
        const frozen = await created(path, { name: `Frozen ${path}`, ...extra });
        expect((await post(`${path}/${frozen.id}/archive/`)).status).toBe(200);
        const upd = await post(`${path}/bulk-update/`).send({
          items: [
            { id: frozen.id, description: 'x' },
            { id: live.id, description: 'y' },
          ],
        });
        expect(upd.status).toBe(200);
        expect(upd.body.results).toEqual([
          expect.objectContaining({ index: 0, result: 'failed', code, id: frozen.id }),
          expect.objectContaining({ index: 1, result: 'updated', id: live.id }),
        ]);
        const del = await post(`${path}/bulk-delete/`).send({ ids: [frozen.id] });
        expect(del.status).toBe(200);
        expect(del.body.results).toEqual([expect.objectContaining({ result: 'failed', code, id: frozen.id })]);
        const archived = await t.http.get(`${project()}/archived-${path}/`).set(key());
        const still = archived.body.data.find((r: { id: string }) => r.id === frozen.id);
        expect(still).toEqual(expect.objectContaining({ id: frozen.id, description: frozen.description }));
      },
    );

    it.each(archivedOf)(
      '%s: upsert naming an archived record by its external pair is 409 %s, nothing written',
      async (path, code, extra) => {
        const pair = { external_source: 'jira', external_id: `ARCH-${path}-${Date.now()}` };
        const first = await post(`${path}/upsert/`).send({ name: `Upserted ${path}`, ...extra, ...pair });
        expect(first.status).toBe(201);
        expect((await post(`${path}/${first.body.id}/archive/`)).status).toBe(200);
        const again = await post(`${path}/upsert/`).send({
          name: `Upserted ${path}`,
          ...extra,
          ...pair,
          description: 'z',
        });
        expectProblem(again, 409, code);
        // Neither a second record holding the pair nor a change to the archived one.
        const listed = await t.http.get(`${project()}/${path}/?per_page=100`).set(key());
        expect(listed.body.data.filter((r: { external_id: string }) => r.external_id === pair.external_id)).toEqual([]);
        const archived = await t.http.get(`${project()}/archived-${path}/?per_page=100`).set(key());
        const holders = archived.body.data.filter((r: { external_id: string }) => r.external_id === pair.external_id);
        expect(holders).toEqual([expect.objectContaining({ id: first.body.id, description: first.body.description })]);
      },
    );
  });

  describe('records', () => {
    it('audits archive and unarchive once each (not a no-op unarchive) and emits the webhook events', async () => {
      const outbox = t.app.get(WebhookOutbox);
      const spy = jest.spyOn(outbox, 'recordMany');
      try {
        const c = await created('cycles', { name: 'Audited', ...PAST });
        const m = await created('modules', { name: 'Audited', status: 'completed' });
        spy.mockClear();
        await post(`cycles/${c.id}/archive/`);
        await post(`cycles/${c.id}/unarchive/`);
        await post(`cycles/${c.id}/unarchive/`);
        await post(`modules/${m.id}/archive/`);
        await post(`modules/${m.id}/unarchive/`);
        const events = spy.mock.calls.flatMap(([, evs]) => evs.map((e) => [e.event, e.entityId]));
        expect(events).toEqual([
          ['cycle.archived', c.id],
          ['cycle.updated', c.id],
          ['module.archived', m.id],
          ['module.updated', m.id],
        ]);
        const entries = (await auditEntries(t, ten)).filter((e) => [c.id, m.id].includes(e.target_id));
        expect(entries.map((e) => [e.event_name, e.target_type, e.new_value])).toEqual([
          ['cycle.archived', 'cycle', { archived: true }],
          ['cycle.unarchived', 'cycle', { archived: false }],
          ['module.archived', 'module', { archived: true }],
          ['module.unarchived', 'module', { archived: false }],
        ]);
      } finally {
        spy.mockRestore();
      }
    });

    it('takes Idempotency-Key on the archive POST: a retry replays the first answer', async () => {
      const c = await created('cycles', { name: 'Retried', ...PAST });
      const first = await post(`cycles/${c.id}/archive/`, ten.owner.key, { 'Idempotency-Key': `arch-${c.id}` });
      expect(first.status).toBe(200);
      const retry = await post(`cycles/${c.id}/archive/`, ten.owner.key, { 'Idempotency-Key': `arch-${c.id}` });
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      // Without the key, a second archive is a write to an archived cycle.
      expectProblem(await post(`cycles/${c.id}/archive/`), 409, 'cycle_archived');
    });
  });
});
