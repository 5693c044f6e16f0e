import { HttpError, PlaneClient } from '@makeplane/plane-node-sdk';
import axios, { AxiosError, AxiosResponse } from 'axios';
import { validateExchange } from '../helpers/openapi-validator';
import { createTestApp, Tenant, TestApp } from '../helpers/test-app';

/**
 * Every exchange the SDK makes is checked against openapi-v1.json (status, content type, body), like the supertest
 * calls of every HTTP test. The SDK itself is untouched: this observes the HTTP library it uses through that
 * library's public interceptor API. A mismatch is recorded and fails the test at its end (an exception inside the
 * interceptor would reach the SDK's caller as an unrelated error).
 */
const mismatches: string[] = [];
function check(res: AxiosResponse | undefined): void {
  if (!res) return;
  const data: unknown = res.data;
  const sent = typeof res.config.data === 'string' ? (JSON.parse(res.config.data) as unknown) : undefined;
  try {
    validateExchange(
      (res.config.method ?? 'get').toUpperCase(),
      res.config.url ?? '',
      {
        status: res.status,
        headers: { 'content-type': res.headers['content-type'] },
        body: data,
        text: typeof data === 'string' ? data : JSON.stringify(data),
      },
      sent,
    );
  } catch (e) {
    mismatches.push((e as Error).message);
  }
}
axios.interceptors.response.use(
  (res) => {
    check(res);
    return res;
  },
  (err: AxiosError) => {
    check(err.response);
    return Promise.reject(err);
  },
);
afterEach(() => {
  const found = mismatches.splice(0);
  expect(found).toEqual([]);
});

/**
 * API v1 against Plane's published Node SDK (@makeplane/plane-node-sdk 0.2.12), used unmodified: every method of
 * a resource this service has is called against the running server and its result checked (README "Versions").
 */
describe('v1 through the published Plane Node SDK', () => {
  let t: TestApp;
  let ten: Tenant;
  let sdk: PlaneClient;
  let baseUrl: string;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    baseUrl = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    ten = await t.tenant();
    sdk = new PlaneClient({ baseUrl, apiKey: ten.owner.key });
  });
  afterAll(() => t.close());

  /** The HttpError a call fails with (the SDK's own error type, status and body). */
  async function failure(call: Promise<unknown>): Promise<HttpError> {
    try {
      await call;
    } catch (e) {
      expect(e).toBeInstanceOf(HttpError);
      return e as HttpError;
    }
    throw new Error('expected the call to fail');
  }

  it('users.me: the v1 user shape (names and avatar, no principal_kind or scopes)', async () => {
    const me = await sdk.users.me();
    expect(me).toEqual({
      id: ten.owner.id,
      first_name: expect.any(String),
      last_name: expect.any(String),
      email: ten.owner.email,
      avatar: expect.any(String),
      avatar_url: null,
      display_name: 'Test User',
    });
  });

  it('workspace.getMembers: the roster as an array of users with numeric role and role slug', async () => {
    const member = await t.member(ten.slug, 'member');
    const members = await sdk.workspace.getMembers(ten.slug);
    expect(members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: ten.owner.id, email: ten.owner.email, role: 20, role_slug: 'owner' }),
        expect.objectContaining({ id: member.id, email: member.email, role: 15, role_slug: 'member' }),
      ]),
    );
  });

  it('workspace features: retrieve and update with v1 flag names', async () => {
    const before = await sdk.workspace.retrieveFeatures(ten.slug);
    expect(before).toEqual(expect.objectContaining({ wiki: expect.any(Boolean), teams: expect.any(Boolean) }));
    const after = await sdk.workspace.updateFeatures(ten.slug, { wiki: !before.wiki });
    expect(after.wiki).toBe(!before.wiki);
    expect((await sdk.workspace.retrieveFeatures(ten.slug)).wiki).toBe(!before.wiki);
  });

  it('projects: create, retrieve, update, list, members, features, delete', async () => {
    const created = await sdk.projects.create(ten.slug, { name: 'SDK project', identifier: 'SDKP' });
    expect(created).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        name: 'SDK project',
        identifier: 'SDKP',
        workspace: ten.workspaceId,
      }),
    );
    expect(created.updated_at).toEqual(expect.any(String));
    const got = await sdk.projects.retrieve(ten.slug, created.id);
    expect(got.id).toBe(created.id);
    const updated = await sdk.projects.update(ten.slug, created.id, { description: 'changed' });
    expect(updated.description).toBe('changed');
    const list = await sdk.projects.list(ten.slug);
    expect(list.results.map((p) => p.id)).toContain(created.id);
    expect(list).toEqual(
      expect.objectContaining({
        total_count: list.results.length,
        count: list.results.length,
        next_page_results: false,
      }),
    );
    const members = await sdk.projects.getMembers(ten.slug, created.id);
    expect(members).toEqual([expect.objectContaining({ id: ten.owner.id, role: 20, role_slug: 'admin' })]);
    const features = await sdk.projects.retrieveFeatures(ten.slug, created.id);
    expect(features).toEqual(expect.objectContaining({ cycles: true, modules: true }));
    const off = await sdk.projects.updateFeatures(ten.slug, created.id, { modules: false });
    expect(off.modules).toBe(false);
    await sdk.projects.delete(ten.slug, created.id);
    expect((await failure(sdk.projects.retrieve(ten.slug, created.id))).statusCode).toBe(404);
  });

  it('states: create, retrieve, update (default), list, delete', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    const state = await sdk.states.create(ten.slug, project.id, { name: 'Review', color: '#aabbcc', group: 'started' });
    expect(state).toEqual(
      expect.objectContaining({
        name: 'Review',
        group: 'started',
        default: false,
        project: project.id,
        workspace: ten.workspaceId,
      }),
    );
    expect(state.updated_at).toEqual(expect.any(String));
    expect(await sdk.states.retrieve(ten.slug, project.id, state.id)).toEqual(
      expect.objectContaining({ id: state.id }),
    );
    const updated = await sdk.states.update(ten.slug, project.id, state.id, { default: true });
    expect(updated.default).toBe(true);
    const list = await sdk.states.list(ten.slug, project.id);
    expect(list.results.filter((s) => s.default).map((s) => s.id)).toEqual([state.id]);
    const other = await sdk.states.create(ten.slug, project.id, { name: 'Spare', color: '#000000' });
    await sdk.states.delete(ten.slug, project.id, other.id);
    expect((await failure(sdk.states.retrieve(ten.slug, project.id, other.id))).statusCode).toBe(404);
  });

  it('labels: create, retrieve, update, list, delete', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    await sdk.labels.create(ten.slug, project.id, { name: 'Area' });
    const label = await sdk.labels.create(ten.slug, project.id, { name: 'Backend', color: '#123456' });
    expect(label).toEqual(expect.objectContaining({ name: 'Backend', parent: null, project: project.id }));
    expect((await sdk.labels.retrieve(ten.slug, project.id, label.id)).name).toBe('Backend');
    expect((await sdk.labels.update(ten.slug, project.id, label.id, { name: 'API' })).name).toBe('API');
    const list = await sdk.labels.list(ten.slug, project.id);
    expect(list.results.map((l) => l.name).sort()).toEqual(['API', 'Area']);
    await sdk.labels.delete(ten.slug, project.id, label.id);
    expect((await sdk.labels.list(ten.slug, project.id)).results.map((l) => l.name)).toEqual(['Area']);
  });

  it('work items: create with v1 relation names, retrieve with expand, update, list, by identifier, archive, delete', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    const states = await sdk.states.list(ten.slug, project.id);
    const started = states.results.find((s) => s.group === 'started')!;
    const label = await sdk.labels.create(ten.slug, project.id, { name: 'bug' });
    const item = await sdk.workItems.create(ten.slug, project.id, {
      name: 'From the SDK',
      description_html: '<p>hello</p>',
      state: started.id,
      labels: [label.id],
      assignees: [ten.owner.id],
      priority: 'high',
    });
    expect(item).toEqual(
      expect.objectContaining({
        name: 'From the SDK',
        state: started.id,
        labels: [label.id],
        assignees: [ten.owner.id],
        priority: 'high',
        project: project.id,
        description_html: '<p>hello</p>',
      }),
    );
    expect(item.updated_at).toEqual(expect.any(String));
    const expanded = await sdk.workItems.retrieve(ten.slug, project.id, item.id, [
      'state',
      'labels',
      'assignees',
      'project',
    ]);
    expect(expanded.state).toEqual(expect.objectContaining({ id: started.id, name: started.name }));
    expect(expanded.labels).toEqual([expect.objectContaining({ id: label.id, name: 'bug' })]);
    expect(expanded.assignees).toEqual([expect.objectContaining({ id: ten.owner.id })]);
    expect(expanded.project).toEqual(expect.objectContaining({ id: project.id }));
    const updated = await sdk.workItems.update(ten.slug, project.id, item.id, { name: 'Renamed', labels: [] });
    expect(updated).toEqual(expect.objectContaining({ name: 'Renamed', labels: [] }));
    const list = await sdk.workItems.list(ten.slug, project.id);
    expect(list.results.map((w) => w.id)).toEqual([item.id]);
    const byId = await sdk.workItems.retrieveByIdentifier(ten.slug, `${project.identifier}-${item.sequence_id}`);
    expect(byId).toEqual(expect.objectContaining({ id: item.id, project: project.id }));
    await sdk.workItems.archive(ten.slug, project.id, item.id);
    expect((await sdk.workItems.list(ten.slug, project.id)).results).toEqual([]);
    await sdk.workItems.unarchive(ten.slug, project.id, item.id);
    expect((await sdk.workItems.list(ten.slug, project.id)).results.map((w) => w.id)).toEqual([item.id]);
    await sdk.workItems.delete(ten.slug, project.id, item.id);
    expect((await failure(sdk.workItems.retrieve(ten.slug, project.id, item.id))).statusCode).toBe(404);
  });

  it('workItems.listWorkspace and countWorkspace: every readable project, v1 envelope and filter names', async () => {
    const own = await t.tenant();
    const api = new PlaneClient({ baseUrl, apiKey: own.owner.key });
    const [p1, p2] = [await t.project(own.slug, own.owner.key), await t.project(own.slug, own.owner.key)];
    const a = await api.workItems.create(own.slug, p1.id, { name: 'One', priority: 'high' });
    const b = await api.workItems.create(own.slug, p2.id, { name: 'Two' });
    const all = await api.workItems.listWorkspace(own.slug, { per_page: 1 });
    expect(all.total_count).toBe(2);
    expect(all.results).toHaveLength(1);
    const next = await api.workItems.listWorkspace(own.slug, { cursor: all.next_cursor });
    expect([all.results[0].id, next.results[0].id].sort()).toEqual([a.id, b.id].sort());
    const inP2 = await api.workItems.listWorkspace(own.slug, { project: p2.id });
    expect(inP2.results.map((w) => [w.id, w.project])).toEqual([[b.id, p2.id]]);
    expect(await api.workItems.countWorkspace(own.slug)).toEqual({
      grouped_by: null,
      sub_grouped_by: null,
      total_count: 2,
    });
    expect((await api.workItems.countWorkspace(own.slug, { priority: 'high' })).total_count).toBe(1);
    // A member who reads neither project sees none of them.
    const outsider = await t.member(own.slug, 'member');
    const theirs = new PlaneClient({ baseUrl, apiKey: outsider.key });
    expect((await theirs.workItems.countWorkspace(own.slug)).total_count).toBe(0);
  });

  it('lite lists: projects, cycles, modules, workspace and project members, each a v1 page', async () => {
    const own = await t.tenant();
    const api = new PlaneClient({ baseUrl, apiKey: own.owner.key });
    const project = await t.project(own.slug, own.owner.key);
    await t.project(own.slug, own.owner.key);
    const first = await api.projects.listLite(own.slug, { per_page: 1 });
    expect(first.total_count).toBe(2);
    const second = await api.projects.listLite(own.slug, { cursor: first.next_cursor });
    expect(new Set([first.results[0].id, second.results[0].id]).size).toBe(2);
    const cycle = await api.cycles.create(own.slug, project.id, { name: 'Sprint' } as never);
    expect((await api.cycles.listLite(own.slug, project.id)).results.map((c) => c.id)).toEqual([cycle.id]);
    const mod = await api.modules.create(own.slug, project.id, { name: 'Core' });
    expect((await api.modules.listLite(own.slug, project.id)).results.map((m) => m.id)).toEqual([mod.id]);
    const member = await t.member(own.slug, 'member');
    const roster = await api.workspace.getMembersLite(own.slug);
    expect(roster.results.map((m) => m.id).sort()).toEqual([own.owner.id, member.id].sort());
    const team = await api.projects.getMembersLite(own.slug, project.id);
    expect(team.results).toEqual([expect.objectContaining({ id: own.owner.id, role: 20, role_slug: 'admin' })]);
  });

  it('comments: create, retrieve, update, list, delete', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    const item = await sdk.workItems.create(ten.slug, project.id, { name: 'Commented' });
    const comment = await sdk.workItems.comments.create(ten.slug, project.id, item.id, {
      comment_html: '<p>first</p>',
    });
    expect(comment).toEqual(
      expect.objectContaining({
        comment_html: '<p>first</p>',
        issue: item.id,
        actor: ten.owner.id,
        project: project.id,
      }),
    );
    expect((await sdk.workItems.comments.retrieve(ten.slug, project.id, item.id, comment.id)).id).toBe(comment.id);
    const edited = await sdk.workItems.comments.update(ten.slug, project.id, item.id, comment.id, {
      comment_html: '<p>edited</p>',
    });
    expect(edited.comment_html).toBe('<p>edited</p>');
    const list = await sdk.workItems.comments.list(ten.slug, project.id, item.id);
    expect(list.results.map((c) => c.id)).toEqual([comment.id]);
    await sdk.workItems.comments.delete(ten.slug, project.id, item.id, comment.id);
    expect((await sdk.workItems.comments.list(ten.slug, project.id, item.id)).results).toEqual([]);
  });

  it('cycles: CRUD, cycle-issues list/add/remove, transfer-issues', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    const create = (name: string) =>
      sdk.cycles.create(ten.slug, project.id, { name, owned_by: ten.owner.id, project_id: project.id });
    const cycle = await create('Sprint 1');
    expect(cycle).toEqual(expect.objectContaining({ name: 'Sprint 1', owned_by: ten.owner.id, project: project.id }));
    expect((await sdk.cycles.retrieve(ten.slug, project.id, cycle.id)).id).toBe(cycle.id);
    expect((await sdk.cycles.update(ten.slug, project.id, cycle.id, { description: 'first' })).description).toBe(
      'first',
    );
    expect((await sdk.cycles.list(ten.slug, project.id)).results.map((c) => c.id)).toEqual([cycle.id]);
    const a = await sdk.workItems.create(ten.slug, project.id, { name: 'A' });
    const b = await sdk.workItems.create(ten.slug, project.id, { name: 'B' });
    await sdk.cycles.addWorkItemsToCycle(ten.slug, project.id, cycle.id, [a.id, b.id]);
    const inCycle = await sdk.cycles.listWorkItemsInCycle(ten.slug, project.id, cycle.id);
    expect(inCycle.results.map((w) => w.name).sort()).toEqual(['A', 'B']);
    await sdk.cycles.removeWorkItemFromCycle(ten.slug, project.id, cycle.id, a.id);
    expect((await sdk.cycles.listWorkItemsInCycle(ten.slug, project.id, cycle.id)).results.map((w) => w.id)).toEqual([
      b.id,
    ]);
    const next = await create('Sprint 2');
    await sdk.cycles.transferWorkItemsToAnotherCycle(ten.slug, project.id, cycle.id, { new_cycle_id: next.id });
    expect((await sdk.cycles.listWorkItemsInCycle(ten.slug, project.id, next.id)).results.map((w) => w.id)).toEqual([
      b.id,
    ]);
    await sdk.cycles.delete(ten.slug, project.id, cycle.id);
    expect((await failure(sdk.cycles.retrieve(ten.slug, project.id, cycle.id))).statusCode).toBe(404);
  });

  it('modules: CRUD, module-issues list/add/remove, create of a work item with module', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    const mod = await sdk.modules.create(ten.slug, project.id, { name: 'Auth', lead: ten.owner.id, status: 'planned' });
    expect(mod).toEqual(
      expect.objectContaining({ name: 'Auth', lead: ten.owner.id, members: [], project: project.id }),
    );
    expect((await sdk.modules.retrieve(ten.slug, project.id, mod.id)).id).toBe(mod.id);
    expect((await sdk.modules.update(ten.slug, project.id, mod.id, { status: 'in-progress' })).status).toBe(
      'in-progress',
    );
    expect((await sdk.modules.list(ten.slug, project.id)).results.map((m) => m.id)).toEqual([mod.id]);
    const a = await sdk.workItems.create(ten.slug, project.id, { name: 'A', assignees: [ten.owner.id] });
    await sdk.modules.addWorkItemsToModule(ten.slug, project.id, mod.id, [a.id]);
    const b = await sdk.workItems.create(ten.slug, project.id, { name: 'B', module: mod.id });
    const inModule = await sdk.modules.listWorkItemsInModule(ten.slug, project.id, mod.id);
    expect(inModule.results.map((w) => w.id).sort()).toEqual([a.id, b.id].sort());
    expect((await sdk.modules.retrieve(ten.slug, project.id, mod.id)).members).toEqual([ten.owner.id]);
    await sdk.modules.removeWorkItemFromModule(ten.slug, project.id, mod.id, a.id);
    expect((await sdk.modules.listWorkItemsInModule(ten.slug, project.id, mod.id)).results.map((w) => w.id)).toEqual([
      b.id,
    ]);
    await sdk.modules.delete(ten.slug, project.id, mod.id);
    expect((await failure(sdk.modules.retrieve(ten.slug, project.id, mod.id))).statusCode).toBe(404);
  });

  it('estimates: the project estimate without an id, its points, linkToProject', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    expect((await failure(sdk.estimates.retrieve(ten.slug, project.id))).statusCode).toBe(404);
    const estimate = await sdk.estimates.create(ten.slug, project.id, { name: 'Story points', type: 'points' });
    expect(estimate).toEqual(expect.objectContaining({ name: 'Story points', type: 'points', project: project.id }));
    expect((await sdk.estimates.retrieve(ten.slug, project.id)).id).toBe(estimate.id);
    expect((await sdk.estimates.update(ten.slug, project.id, { description: 'Fibonacci' })).description).toBe(
      'Fibonacci',
    );
    const points = await sdk.estimates.createPoints(ten.slug, project.id, estimate.id, [
      { key: 1, value: '1' },
      { key: 2, value: '2' },
    ]);
    expect(points.map((p) => [p.key, p.value, p.estimate])).toEqual([
      [1, '1', estimate.id],
      [2, '2', estimate.id],
    ]);
    expect((await sdk.estimates.listPoints(ten.slug, project.id, estimate.id)).map((p) => p.value)).toEqual(['1', '2']);
    const three = await sdk.estimates.updatePoint(ten.slug, project.id, estimate.id, points[1].id, { value: '3' });
    expect(three.value).toBe('3');
    await sdk.estimates.deletePoint(ten.slug, project.id, estimate.id, points[0].id);
    expect((await sdk.estimates.listPoints(ten.slug, project.id, estimate.id)).map((p) => p.value)).toEqual(['3']);
    const other = await sdk.estimates.create(ten.slug, project.id, {
      name: 'T-shirt',
      type: 'categories',
      last_used: false,
    });
    expect((await sdk.estimates.retrieve(ten.slug, project.id)).id).toBe(estimate.id);
    const linked = await sdk.estimates.linkToProject(ten.slug, project.id, other.id);
    expect(linked.id).toBe(project.id);
    expect((await sdk.estimates.retrieve(ten.slug, project.id)).id).toBe(other.id);
    await sdk.estimates.delete(ten.slug, project.id);
    expect((await failure(sdk.estimates.retrieve(ten.slug, project.id))).statusCode).toBe(404);
  });

  it('projects: archive refuses writes under the project until unArchive (DELETE on the archive path)', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    await sdk.projects.archive(ten.slug, project.id);
    const refused = await failure(sdk.labels.create(ten.slug, project.id, { name: 'Late' }));
    expect(refused.statusCode).toBe(409);
    expect(refused.response).toEqual(expect.objectContaining({ code: 'project_archived' }));
    expect((await sdk.projects.list(ten.slug)).results.map((p) => p.id)).not.toContain(project.id);
    await sdk.projects.unArchive(ten.slug, project.id);
    expect((await sdk.labels.create(ten.slug, project.id, { name: 'Late' })).name).toBe('Late');
    expect((await sdk.projects.list(ten.slug)).results.map((p) => p.id)).toContain(project.id);
  });

  it('cycles: archive (only an ended cycle), listArchived, writes refused, unArchive (v2 rules)', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    const past = { start_date: '2024-01-01T00:00:00Z', end_date: '2024-01-14T00:00:00Z' };
    const done = await sdk.cycles.create(ten.slug, project.id, { name: 'Done', ...past } as never);
    const open = await sdk.cycles.create(ten.slug, project.id, { name: 'Open' } as never);
    const early = await failure(sdk.cycles.archive(ten.slug, project.id, open.id));
    expect([early.statusCode, (early.response as { code: string }).code]).toEqual([409, 'not_archivable']);
    expect(await sdk.cycles.archive(ten.slug, project.id, done.id)).toBeFalsy();
    expect((await sdk.cycles.list(ten.slug, project.id)).results.map((c) => c.id)).toEqual([open.id]);
    const archived = await sdk.cycles.listArchived(ten.slug, project.id);
    expect(archived.results).toEqual([
      expect.objectContaining({ id: done.id, name: 'Done', archived_at: expect.any(String), project: project.id }),
    ]);
    expect(archived.total_results).toBe(1);
    expect((await failure(sdk.cycles.retrieve(ten.slug, project.id, done.id))).statusCode).toBe(404);
    const item = await sdk.workItems.create(ten.slug, project.id, { name: 'Late' });
    const refused = await failure(sdk.cycles.addWorkItemsToCycle(ten.slug, project.id, done.id, [item.id]));
    expect([refused.statusCode, (refused.response as { code: string }).code]).toEqual([409, 'cycle_archived']);
    expect(await sdk.cycles.unArchive(ten.slug, project.id, done.id)).toBeFalsy();
    expect((await sdk.cycles.retrieve(ten.slug, project.id, done.id)).archived_at).toBeNull();
    expect((await sdk.cycles.listArchived(ten.slug, project.id)).results).toEqual([]);
    await sdk.cycles.unArchive(ten.slug, project.id, done.id);
  });

  it('modules: archiveModule (only completed or cancelled), listArchivedModules, unArchiveModule (v2 rules)', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    const mod = await sdk.modules.create(ten.slug, project.id, { name: 'Billing', status: 'in-progress' });
    const early = await failure(sdk.modules.archiveModule(ten.slug, project.id, mod.id));
    expect([early.statusCode, (early.response as { code: string }).code]).toEqual([409, 'not_archivable']);
    await sdk.modules.update(ten.slug, project.id, mod.id, { status: 'cancelled' });
    expect(await sdk.modules.archiveModule(ten.slug, project.id, mod.id)).toBeFalsy();
    expect((await sdk.modules.list(ten.slug, project.id)).results).toEqual([]);
    const archived = await sdk.modules.listArchivedModules(ten.slug, project.id);
    expect(archived.results).toEqual([
      expect.objectContaining({
        id: mod.id,
        status: 'cancelled',
        archived_at: expect.any(String),
        project: project.id,
      }),
    ]);
    const refused = await failure(sdk.modules.update(ten.slug, project.id, mod.id, { name: 'Renamed' }));
    expect([refused.statusCode, (refused.response as { code: string }).code]).toEqual([409, 'module_archived']);
    const again = await failure(sdk.modules.archiveModule(ten.slug, project.id, mod.id));
    expect(again.statusCode).toBe(409);
    expect(await sdk.modules.unArchiveModule(ten.slug, project.id, mod.id)).toBeFalsy();
    expect((await sdk.modules.list(ten.slug, project.id)).results.map((m) => m.id)).toEqual([mod.id]);
    expect((await sdk.modules.listArchivedModules(ten.slug, project.id)).results).toEqual([]);
  });

  it('links: create, retrieve, update, list, delete (v1 names: issue, created_by, project, workspace)', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    const item = await sdk.workItems.create(ten.slug, project.id, { name: 'Linked' });
    const link = await sdk.workItems.links.create(ten.slug, project.id, item.id, {
      url: 'https://example.com/spec',
      title: 'Spec',
    });
    expect(link).toEqual(
      expect.objectContaining({
        url: 'https://example.com/spec',
        title: 'Spec',
        issue: item.id,
        project: project.id,
        workspace: ten.workspaceId,
        created_by: ten.owner.id,
        updated_at: expect.any(String),
      }),
    );
    expect((await sdk.links.retrieve(ten.slug, project.id, item.id, link.id)).id).toBe(link.id);
    const renamed = await sdk.workItems.links.update(ten.slug, project.id, item.id, link.id, { title: 'Design' });
    expect(renamed).toEqual(expect.objectContaining({ title: 'Design', updated_by: ten.owner.id }));
    const listed = await sdk.workItems.links.list(ten.slug, project.id, item.id);
    expect(listed.results.map((l) => l.title)).toEqual(['Design']);
    expect(listed.total_count).toBe(1);
    const dup = await failure(sdk.workItems.links.create(ten.slug, project.id, item.id, { url: link.url }));
    expect(dup.statusCode).toBe(409);
    await sdk.workItems.links.delete(ten.slug, project.id, item.id, link.id);
    expect((await failure(sdk.workItems.links.retrieve(ten.slug, project.id, item.id, link.id))).statusCode).toBe(404);
  });

  it('relations: v1 types over v2 dependencies and built-in definitions, list from both ends, remove', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    const [a, b, c] = await Promise.all(
      ['A', 'B', 'C'].map((name) => sdk.workItems.create(ten.slug, project.id, { name })),
    );
    await sdk.workItems.relations.create(ten.slug, project.id, a.id, { relation_type: 'blocking', issues: [b.id] });
    await sdk.workItems.relations.create(ten.slug, project.id, a.id, { relation_type: 'duplicate', issues: [c.id] });
    await sdk.workItems.relations.create(ten.slug, project.id, b.id, { relation_type: 'relates_to', issues: [c.id] });
    const empty = {
      blocking: [],
      blocked_by: [],
      start_before: [],
      start_after: [],
      finish_before: [],
      finish_after: [],
    };
    expect(await sdk.workItems.relations.list(ten.slug, project.id, a.id)).toEqual({
      ...empty,
      blocking: [b.id],
      duplicate: [c.id],
      relates_to: [],
    });
    expect(await sdk.workItems.relations.list(ten.slug, project.id, c.id)).toEqual({
      ...empty,
      duplicate: [a.id],
      relates_to: [b.id],
    });
    // The same relation read through v2: a blocking dependency.
    const v2 = await t.http
      .get(`/api/v2/workspaces/${ten.slug}/projects/${project.id}/work-items/${b.id}/dependencies/`)
      .set('X-Api-Key', ten.owner.key)
      .expect(200);
    expect(v2.body.blocked_by).toEqual([a.id]);
    const bad = await failure(
      sdk.workItems.relations.create(ten.slug, project.id, a.id, { relation_type: 'parent' as never, issues: [b.id] }),
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.response).toEqual(expect.objectContaining({ errors: { relation_type: [expect.any(String)] } }));
    await sdk.workItems.relations.delete(ten.slug, project.id, a.id, { related_issue: b.id });
    expect((await sdk.workItems.relations.list(ten.slug, project.id, b.id)).blocked_by).toEqual([]);
    const again = await failure(sdk.workItems.relations.delete(ten.slug, project.id, a.id, { related_issue: b.id }));
    expect(again.statusCode).toBe(404);
  });

  it('dependencies, relation definitions and custom relations: the related items with their relation_type', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    const [a, b] = await Promise.all(['A', 'B'].map((name) => sdk.workItems.create(ten.slug, project.id, { name })));
    const created = await sdk.workItems.dependencies.create(ten.slug, project.id, a.id, {
      relation_type: 'start_before',
      work_item_ids: [b.id],
    });
    expect(created).toEqual([expect.objectContaining({ id: b.id, name: 'B', relation_type: 'start_before' })]);
    const deps = await sdk.workItems.dependencies.list(ten.slug, project.id, b.id);
    expect(deps.start_after).toEqual([
      expect.objectContaining({ id: a.id, name: 'A', project_id: project.id, relation_type: 'start_after' }),
    ]);
    await sdk.workItems.dependencies.remove(ten.slug, project.id, a.id, b.id);
    expect((await sdk.workItems.dependencies.list(ten.slug, project.id, a.id)).start_before).toEqual([]);

    const def = await sdk.workItemRelationDefinitions.create(ten.slug, {
      name: 'Implements',
      outward: 'implements',
      inward: 'implemented by',
    });
    expect(def).toEqual(expect.objectContaining({ name: 'Implements', workspace: ten.workspaceId, is_default: false }));
    expect((await sdk.workItemRelationDefinitions.update(ten.slug, def.id, { color: '#112233' })).color).toBe(
      '#112233',
    );
    const defs = await sdk.workItemRelationDefinitions.list(ten.slug, { is_default: false });
    expect(defs.map((d) => d.name)).toEqual(['Implements']);
    const related = await sdk.workItems.customRelations.create(ten.slug, project.id, a.id, {
      relation_definition_id: def.id,
      relation_definition_type: 'implements',
      work_item_ids: [b.id],
    });
    expect(related).toEqual([expect.objectContaining({ id: b.id, relation_type: 'implements' })]);
    const fromB = await sdk.workItems.customRelations.list(ten.slug, project.id, b.id);
    expect(fromB['implemented by']).toEqual([expect.objectContaining({ id: a.id, relation_type: 'implemented by' })]);
    await sdk.workItems.customRelations.remove(ten.slug, project.id, a.id, b.id);
    expect((await sdk.workItems.customRelations.list(ten.slug, project.id, a.id)).implements).toEqual([]);
    await sdk.workItemRelationDefinitions.del(ten.slug, def.id);
    expect((await sdk.workItemRelationDefinitions.list(ten.slug, { is_default: false })).length).toBe(0);
  });

  it('activities: the history of a work item in the v1 envelope and shape, one entry by id', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    const item = await sdk.workItems.create(ten.slug, project.id, { name: 'Tracked' });
    await sdk.workItems.update(ten.slug, project.id, item.id, { priority: 'urgent' });
    const page = await sdk.workItems.activities.list(ten.slug, project.id, item.id, { per_page: 1 });
    expect(page.results).toHaveLength(1);
    expect(page.total_count).toBe(2);
    expect(page.next_page_results).toBe(true);
    expect(page.results[0]).toEqual(
      expect.objectContaining({
        verb: 'created',
        issue: item.id,
        actor: ten.owner.id,
        project: project.id,
        workspace: ten.workspaceId,
        updated_at: expect.any(String),
      }),
    );
    // updated_at is the entry's created_at, read by work item and id (the history's key: ActivityEntryOneIndex).
    expect(page.results[0].updated_at).toBe(page.results[0].created_at);
    const next = await sdk.workItems.activities.list(ten.slug, project.id, item.id, { cursor: page.next_cursor });
    expect(next.results).toEqual([expect.objectContaining({ field: 'priority', new_value: 'urgent' })]);
    const one = await sdk.workItems.activities.retrieve(ten.slug, project.id, item.id, next.results[0].id);
    expect(one).toEqual(next.results[0]);
  });

  it('a v1 call that makes several v2 changes is one transaction: a refused step leaves nothing behind', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    const other = await t.project(ten.slug, ten.owner.key);
    const foreignModule = await sdk.modules.create(ten.slug, other.id, { name: 'Elsewhere' });
    const refused = await failure(
      sdk.workItems.create(ten.slug, project.id, { name: 'Orphan?', module: foreignModule.id }),
    );
    expect(refused.statusCode).toBe(404);
    expect((await sdk.workItems.list(ten.slug, project.id)).results.map((w) => w.name)).not.toContain('Orphan?');
    const estimate = await sdk.estimates.create(ten.slug, project.id, { name: 'Points', type: 'points' });
    const dup = await failure(
      sdk.estimates.createPoints(ten.slug, project.id, estimate.id, [
        { key: 1, value: '1' },
        { key: 2, value: '1' },
      ]),
    );
    expect(dup.statusCode).toBe(409);
    expect(await sdk.estimates.listPoints(ten.slug, project.id, estimate.id)).toEqual([]);
    const spare = await sdk.estimates.create(ten.slug, project.id, {
      name: 'Sizes',
      type: 'categories',
      last_used: false,
    });
    const clash = await t.http
      .patch(`/api/v1/workspaces/${ten.slug}/projects/${project.id}/`)
      .set('X-Api-Key', ten.owner.key)
      .send({ estimate: spare.id, identifier: other.identifier });
    expect(clash.status).toBe(409);
    expect((await sdk.estimates.retrieve(ten.slug, project.id)).id).toBe(estimate.id);
  });

  it('workflows: list, create, update, attach and detach states, transitions by project state', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    await t.http
      .patch(`/api/v2/workspaces/${ten.slug}/projects/${project.id}/features/`)
      .set('X-Api-Key', ten.owner.key)
      .send({ is_workflow_enabled: true })
      .expect(200);
    const states = (await sdk.states.list(ten.slug, project.id)).results;
    const [todo, doing] = [states.find((s) => s.group === 'unstarted')!, states.find((s) => s.group === 'started')!];
    const wf = await sdk.workflows.create(ten.slug, project.id, { name: 'Flow', description: 'd' });
    expect(wf).toEqual(expect.objectContaining({ name: 'Flow', project: project.id, work_item_type_ids: [] }));
    expect((await sdk.workflows.update(ten.slug, project.id, wf.id, { name: 'Flow 2' })).name).toBe('Flow 2');
    expect((await sdk.workflows.list(ten.slug, project.id)).map((w) => w.name)).toContain('Flow 2');
    // One transaction: a state refused (already in the workflow) attaches none of the states sent.
    const twice = await failure(
      sdk.workflows.states.attach(ten.slug, project.id, wf.id, { state_ids: [todo.id, todo.id] }),
    );
    expect(twice.statusCode).toBe(409);
    await sdk.workflows.states.attach(ten.slug, project.id, wf.id, { state_ids: [todo.id, doing.id] });
    const transition = await sdk.workflows.transitions.create(ten.slug, project.id, wf.id, {
      state_id: todo.id,
      transition_state_id: doing.id,
    });
    expect(transition).toEqual(expect.objectContaining({ state_id: todo.id, transition_state_id: doing.id }));
    // A repeated transition is v1's 400 "already exists", which the SDK turns into null (v2 keeps its 409).
    const again = { state_id: todo.id, transition_state_id: doing.id };
    expect(await sdk.workflows.transitions.create(ten.slug, project.id, wf.id, again)).toBeNull();
    const listed = await sdk.workflows.transitions.list(ten.slug, project.id, wf.id);
    expect(listed.map((x) => [x.state_id, x.transition_state_id])).toEqual([[todo.id, doing.id]]);
    const same = await sdk.workflows.transitions.update(ten.slug, project.id, wf.id, transition!.id, { pre_rules: [] });
    expect(same.id).toBe(transition!.id);
    await sdk.workflows.transitions.del(ten.slug, project.id, wf.id, transition!.id);
    expect(await sdk.workflows.transitions.list(ten.slug, project.id, wf.id)).toEqual([]);
    await sdk.workflows.states.detach(ten.slug, project.id, wf.id, doing.id);
    const rows = await t.http
      .get(`/api/v2/workspaces/${ten.slug}/projects/${project.id}/workflows/${wf.id}/states/`)
      .set('X-Api-Key', ten.owner.key);
    expect(rows.body.data.map((r: { state_id: string }) => r.state_id)).toEqual([todo.id]);
  });

  it("work item types and project properties: CRUD, with v2's type mode gate", async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${project.id}/work-item-types/enable/`)
      .set('X-Api-Key', ten.owner.key)
      .expect(200);
    const type = await sdk.workItemTypes.create(ten.slug, project.id, { name: 'Bug', description: 'Defects' });
    expect(type).toEqual(expect.objectContaining({ name: 'Bug', is_epic: false, project: project.id }));
    expect((await sdk.workItemTypes.retrieve(ten.slug, project.id, type.id)).name).toBe('Bug');
    expect((await sdk.workItemTypes.update(ten.slug, project.id, type.id, { name: 'Defect' })).name).toBe('Defect');
    const types = await sdk.workItemTypes.list(ten.slug, project.id);
    expect(types.map((x) => x.name)).toContain('Defect');
    const property = await sdk.workItemProperties.createProject(ten.slug, project.id, {
      name: 'Severity',
      display_name: 'Severity',
      property_type: 'TEXT',
      is_required: false,
    });
    expect(property).toEqual(expect.objectContaining({ display_name: 'Severity', property_type: 'TEXT' }));
    expect((await sdk.workItemProperties.retrieveProject(ten.slug, project.id, property.id)).id).toBe(property.id);
    const renamed = await sdk.workItemProperties.updateProject(ten.slug, project.id, property.id, {
      display_name: 'Impact',
    });
    expect(renamed.display_name).toBe('Impact');
    const props = await sdk.workItemProperties.listProject(ten.slug, project.id);
    expect(props.map((x) => x.id)).toEqual([property.id]);
    await sdk.workItemProperties.deleteProject(ten.slug, project.id, property.id);
    expect((await failure(sdk.workItemProperties.retrieveProject(ten.slug, project.id, property.id))).statusCode).toBe(
      404,
    );
    await sdk.workItemTypes.delete(ten.slug, project.id, type.id);
    expect((await failure(sdk.workItemTypes.retrieve(ten.slug, project.id, type.id))).statusCode).toBe(404);
    // Workspace mode: the project surface refuses writes with v2's 409, as a v1 error body.
    await t.http
      .patch(`/api/v2/workspaces/${ten.slug}/features/`)
      .set('X-Api-Key', ten.owner.key)
      .send({ is_work_item_types_enabled: true })
      .expect(200);
    const refused = await failure(sdk.workItemTypes.create(ten.slug, project.id, { name: 'Task' }));
    expect(refused.statusCode).toBe(409);
    expect(refused.response).toEqual(expect.objectContaining({ code: 'work_item_types_managed_at_workspace' }));
    await t.http
      .patch(`/api/v2/workspaces/${ten.slug}/features/`)
      .set('X-Api-Key', ten.owner.key)
      .send({ is_work_item_types_enabled: false })
      .expect(200);
  });

  it('per-type properties, attach/detach and property options (project mode), through v2 rules', async () => {
    const own = await t.tenant();
    const api = new PlaneClient({ baseUrl, apiKey: own.owner.key });
    const project = await t.project(own.slug, own.owner.key);
    await t.http
      .post(`/api/v2/workspaces/${own.slug}/projects/${project.id}/work-item-types/enable/`)
      .set('X-Api-Key', own.owner.key)
      .expect(200);
    const type = await api.workItemTypes.create(own.slug, project.id, { name: 'Bug' });
    const severity = await api.workItemProperties.create(own.slug, project.id, type.id, {
      display_name: 'Severity',
      property_type: 'TEXT',
    } as never);
    expect(severity).toEqual(expect.objectContaining({ display_name: 'Severity', project: project.id }));
    expect((await api.workItemProperties.list(own.slug, project.id, type.id)).map((p) => p.id)).toEqual([severity.id]);
    expect((await api.workItemProperties.retrieve(own.slug, project.id, type.id, severity.id)).id).toBe(severity.id);
    const renamed = await api.workItemProperties.update(own.slug, project.id, type.id, severity.id, {
      display_name: 'Impact',
    });
    expect(renamed.display_name).toBe('Impact');
    // A property of the project not attached to this type is not one of the type's: 404.
    const loose = await api.workItemProperties.createProject(own.slug, project.id, {
      display_name: 'Area',
      property_type: 'OPTION',
      options: [{ name: 'UI' }],
    } as never);
    const notAttached = await failure(api.workItemProperties.retrieve(own.slug, project.id, type.id, loose.id));
    expect(notAttached.statusCode).toBe(404);
    expect(await api.workItemProperties.attachToType(own.slug, project.id, type.id, [loose.id])).toEqual([loose.id]);
    expect((await api.workItemProperties.list(own.slug, project.id, type.id)).map((p) => p.id).sort()).toEqual(
      [severity.id, loose.id].sort(),
    );
    const option = await api.workItemProperties.options.create(own.slug, project.id, loose.id, { name: 'API' });
    expect(option).toEqual(expect.objectContaining({ name: 'API', project: project.id }));
    expect((await api.workItemProperties.options.list(own.slug, project.id, loose.id)).map((o) => o.name)).toEqual([
      'UI',
      'API',
    ]);
    expect((await api.workItemProperties.options.retrieve(own.slug, project.id, loose.id, option.id)).id).toBe(
      option.id,
    );
    const backend = await api.workItemProperties.options.update(own.slug, project.id, loose.id, option.id, {
      name: 'Backend',
    });
    expect(backend.name).toBe('Backend');
    await api.workItemProperties.options.delete(own.slug, project.id, loose.id, option.id);
    expect((await api.workItemProperties.options.list(own.slug, project.id, loose.id)).map((o) => o.name)).toEqual([
      'UI',
    ]);
    await api.workItemProperties.detachFromType(own.slug, project.id, type.id, loose.id);
    await api.workItemProperties.delete(own.slug, project.id, type.id, severity.id);
    expect(await api.workItemProperties.list(own.slug, project.id, type.id)).toEqual([]);
    expect((await api.workItemProperties.retrieveProject(own.slug, project.id, loose.id)).id).toBe(loose.id);
  });

  it('property values: list, retrieve, create, update, delete, over the work item custom_fields rules', async () => {
    const own = await t.tenant();
    const api = new PlaneClient({ baseUrl, apiKey: own.owner.key });
    const project = await t.project(own.slug, own.owner.key);
    await t.http
      .post(`/api/v2/workspaces/${own.slug}/projects/${project.id}/work-item-types/enable/`)
      .set('X-Api-Key', own.owner.key)
      .expect(200);
    const type = await api.workItemTypes.create(own.slug, project.id, { name: 'Bug' });
    const prop = await api.workItemProperties.create(own.slug, project.id, type.id, {
      display_name: 'Severity',
      property_type: 'TEXT',
    } as never);
    const item = await api.workItems.create(own.slug, project.id, { name: 'Crash', type: type.id });
    const values = api.workItemProperties.values;
    expect(await values.list(own.slug, project.id, item.id)).toEqual([]);
    expect(await values.create(own.slug, project.id, item.id, prop.id, { value: 'high' })).toEqual([
      { property_id: prop.id, values: ['high'] },
    ]);
    expect(await values.update(own.slug, project.id, item.id, prop.id, { value: 'low' })).toEqual([
      { property_id: prop.id, values: ['low'] },
    ]);
    expect(await values.retrieve(own.slug, project.id, item.id, prop.id)).toEqual([
      { property_id: prop.id, values: ['low'] },
    ]);
    // The same value through v2.
    const v2 = await t.http
      .get(`/api/v2/workspaces/${own.slug}/projects/${project.id}/work-items/${item.id}/`)
      .set('X-Api-Key', own.owner.key)
      .expect(200);
    expect(Object.values(v2.body.custom_fields)).toEqual([expect.objectContaining({ id: prop.id, value: 'low' })]);
    // v2's validation: a number for a TEXT property is 400 naming the custom field.
    const bad = await failure(values.update(own.slug, project.id, item.id, prop.id, { value: 5 }));
    expect(bad.statusCode).toBe(400);
    await values.delete(own.slug, project.id, item.id, prop.id);
    expect(await values.list(own.slug, project.id, item.id)).toEqual([]);
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await failure(values.retrieve(own.slug, project.id, item.id, unknown))).statusCode).toBe(404);
  });

  it('workspace types, properties, options and type properties (workspace mode); importToProject', async () => {
    const own = await t.tenant();
    const api = new PlaneClient({ baseUrl, apiKey: own.owner.key });
    const project = await t.project(own.slug, own.owner.key);
    // Project mode: the workspace surface refuses writes with v2's 409.
    const early = await failure(api.workspaceWorkItemTypes.create(own.slug, { name: 'Incident' }));
    expect(early.statusCode).toBe(409);
    await t.http
      .patch(`/api/v2/workspaces/${own.slug}/features/`)
      .set('X-Api-Key', own.owner.key)
      .send({ is_work_item_types_enabled: true })
      .expect(200);
    const type = await api.workspaceWorkItemTypes.create(own.slug, { name: 'Incident' });
    expect(type).toEqual(expect.objectContaining({ name: 'Incident', workspace: own.workspaceId }));
    expect((await api.workspaceWorkItemTypes.retrieve(own.slug, type.id)).id).toBe(type.id);
    expect((await api.workspaceWorkItemTypes.update(own.slug, type.id, { description: 'Outages' })).description).toBe(
      'Outages',
    );
    expect((await api.workspaceWorkItemTypes.list(own.slug)).map((x) => x.name)).toContain('Incident');
    const prop = await api.workspaceWorkItemProperties.create(own.slug, {
      display_name: 'Impact',
      property_type: 'OPTION',
      options: [{ name: 'Low' }],
    } as never);
    expect((await api.workspaceWorkItemProperties.retrieve(own.slug, prop.id)).id).toBe(prop.id);
    expect(
      (await api.workspaceWorkItemProperties.update(own.slug, prop.id, { display_name: 'Reach' })).display_name,
    ).toBe('Reach');
    expect((await api.workspaceWorkItemProperties.list(own.slug)).map((x) => x.id)).toEqual([prop.id]);
    const high = await api.workspaceWorkItemProperties.options.create(own.slug, prop.id, { name: 'High' });
    expect((await api.workspaceWorkItemProperties.options.retrieve(own.slug, prop.id, high.id)).name).toBe('High');
    expect(
      (await api.workspaceWorkItemProperties.options.update(own.slug, prop.id, high.id, { name: 'Top' })).name,
    ).toBe('Top');
    expect((await api.workspaceWorkItemProperties.options.list(own.slug, prop.id)).map((o) => o.name)).toEqual([
      'Low',
      'Top',
    ]);
    await api.workspaceWorkItemProperties.options.delete(own.slug, prop.id, high.id);
    const linked = await api.workspaceWorkItemTypes.properties.create(own.slug, type.id, { property_id: prop.id });
    expect(linked.id).toBe(prop.id);
    expect((await api.workspaceWorkItemTypes.properties.list(own.slug, type.id)).map((x) => x.id)).toEqual([prop.id]);
    await api.workspaceWorkItemTypes.properties.del(own.slug, type.id, prop.id);
    expect(await api.workspaceWorkItemTypes.properties.list(own.slug, type.id)).toEqual([]);
    const imported = await api.workItemTypes.importToProject(own.slug, project.id, [type.id]);
    expect(imported.map((x) => x.id)).toEqual([type.id]);
    expect((await api.workItemTypes.list(own.slug, project.id)).map((x) => x.id)).toContain(type.id);
    await api.workspaceWorkItemProperties.del(own.slug, prop.id);
    expect((await failure(api.workspaceWorkItemProperties.retrieve(own.slug, prop.id))).statusCode).toBe(404);
  });

  it('errors are v1 JSON with the status, never problem+json, and the SDK surfaces them as HttpError', async () => {
    const project = await t.project(ten.slug, ten.owner.key);
    const err = await failure(sdk.states.create(ten.slug, project.id, { name: '', color: '#fff' }));
    expect(err.statusCode).toBe(400);
    expect(err.response).toEqual({
      error: expect.any(String),
      detail: expect.any(String),
      code: 'validation_error',
      errors: { name: [expect.any(String)] },
    });
  });
});
