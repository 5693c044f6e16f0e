import request from 'supertest';
import { createTestApp, Tenant, TestApp } from '../helpers/test-app';

/**
 * v1 beside v2 (README "Versions"): one state for both, the same tenant wall, roles, scopes, rate-limit budget and
 * audit trail, v1's pagination, PUT and PATCH, errors and the maintenance-mode headers.
 */
describe('API v1 beside v2', () => {
  let t: TestApp;
  let ten: Tenant;
  let project: { id: string; identifier: string };
  const v1 = (path: string) => `/api/v1/workspaces/${ten.slug}${path}`;
  const v2 = (path: string) => `/api/v2/workspaces/${ten.slug}${path}`;

  beforeAll(async () => {
    t = await createTestApp({ rateLimit: { limit: 400, ttlMs: 60_000 } });
    ten = await t.tenant();
    project = await t.project(ten.slug, ten.owner.key);
  });
  afterAll(() => t.close());

  const items = () => v1(`/projects/${project.id}/work-items/`);

  it('written through v1, read through v2, and back: one state', async () => {
    const states = (await t.http.get(v2(`/projects/${project.id}/states/`)).set('X-Api-Key', ten.owner.key)).body.data;
    const started = states.find((s: { group: string }) => s.group === 'started');
    const created = await t.http
      .post(items())
      .set('X-API-Key', ten.owner.key)
      .send({ name: 'Cross', state: started.id, assignees: [ten.owner.id] });
    expect(created.status).toBe(201);
    const inV2 = await t.http
      .get(v2(`/projects/${project.id}/work-items/${created.body.id}/`))
      .set('X-Api-Key', ten.owner.key);
    expect(inV2.body).toEqual(
      expect.objectContaining({ name: 'Cross', state_id: started.id, assignee_ids: [ten.owner.id] }),
    );
    const patched = await t.http
      .patch(v2(`/projects/${project.id}/work-items/${created.body.id}/`))
      .set('X-Api-Key', ten.owner.key)
      .send({ name: 'Cross (v2)', assignee_ids: [] });
    expect(patched.status).toBe(200);
    const back = await t.http.get(`${items()}${created.body.id}/`).set('X-Api-Key', ten.owner.key);
    expect(back.body).toEqual(expect.objectContaining({ name: 'Cross (v2)', assignees: [], state: started.id }));
    expect(Date.parse(back.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));
  });

  it('a client on v2 for work items and v1 for cycles sees one consistent state', async () => {
    const cycle = await t.http
      .post(v1(`/projects/${project.id}/cycles/`))
      .set('X-Api-Key', ten.owner.key)
      .send({ name: 'Mixed' });
    expect(cycle.status).toBe(201);
    const item = await t.http
      .post(v2(`/projects/${project.id}/work-items/`))
      .set('X-Api-Key', ten.owner.key)
      .send({ name: 'On v2' });
    const added = await t.http
      .post(v1(`/projects/${project.id}/cycles/${cycle.body.id}/cycle-issues/`))
      .set('X-Api-Key', ten.owner.key)
      .send({ issues: [item.body.id] });
    expect(added.status).toBe(201);
    expect(added.body).toEqual([expect.objectContaining({ issue: item.body.id, cycle: cycle.body.id })]);
    const viaV2 = await t.http
      .get(v2(`/projects/${project.id}/work-items/?cycle_id=${cycle.body.id}`))
      .set('X-Api-Key', ten.owner.key);
    expect(viaV2.body.data.map((w: { id: string }) => w.id)).toEqual([item.body.id]);
    await t.http
      .post(v2(`/projects/${project.id}/cycles/${cycle.body.id}/work-items/`))
      .set('X-Api-Key', ten.owner.key)
      .send({ remove: [item.body.id] })
      .expect(200);
    const viaV1 = await t.http
      .get(v1(`/projects/${project.id}/cycles/${cycle.body.id}/cycle-issues/`))
      .set('X-Api-Key', ten.owner.key);
    expect(viaV1.body.results).toEqual([]);
  });

  it('walks a list to the end with per_page and cursor: no item twice, none missing', async () => {
    const own = await t.project(ten.slug, ten.owner.key);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await t.http
        .post(v2(`/projects/${own.id}/work-items/`))
        .set('X-Api-Key', ten.owner.key)
        .send({ name: `Item ${i}` });
      ids.push(res.body.id);
    }
    const seen: string[] = [];
    let query = 'per_page=3';
    for (let page = 0; page < 10; page++) {
      const res = await t.http.get(v1(`/projects/${own.id}/work-items/?${query}`)).set('X-Api-Key', ten.owner.key);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({ total_count: 7, total_results: 7, total_pages: 3, count: res.body.results.length }),
      );
      expect(res.body.prev_page_results).toBe(page > 0);
      seen.push(...res.body.results.map((w: { id: string }) => w.id));
      if (!res.body.next_page_results) break;
      expect(res.body.next_cursor).toBe(`3:${page + 1}:0`);
      query = `cursor=${res.body.next_cursor}`;
    }
    expect(seen).toHaveLength(7);
    expect([...seen].sort()).toEqual([...ids].sort());
    const bad = await t.http.get(v1(`/projects/${own.id}/work-items/?cursor=abc`)).set('X-Api-Key', ten.owner.key);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      error: expect.any(String),
      detail: expect.any(String),
      code: 'validation_error',
      errors: { cursor: [expect.any(String)] },
    });
  });

  it('accepts PUT as well as PATCH', async () => {
    const label = await t.http
      .post(v1(`/projects/${project.id}/labels/`))
      .set('X-Api-Key', ten.owner.key)
      .send({ name: 'put-me' });
    const url = v1(`/projects/${project.id}/labels/${label.body.id}/`);
    const put = await t.http.put(url).set('X-Api-Key', ten.owner.key).send({ name: 'put' });
    expect(put.status).toBe(200);
    expect(put.body.name).toBe('put');
    const patch = await t.http.patch(url).set('X-Api-Key', ten.owner.key).send({ name: 'patched' });
    expect(patch.body.name).toBe('patched');
    const v2put = await t.http
      .put(v2(`/projects/${project.id}/labels/${label.body.id}/`))
      .set('X-Api-Key', ten.owner.key);
    expect(v2put.status).toBe(405);
  });

  it('holds the tenant wall: another workspace and its records are 404', async () => {
    const other = await t.tenant();
    const foreign = await t.project(other.slug, other.owner.key);
    const wi = await t.http
      .post(`/api/v2/workspaces/${other.slug}/projects/${foreign.id}/work-items/`)
      .set('X-Api-Key', other.owner.key)
      .send({ name: 'Foreign' });
    const asOwner = (url: string) => t.http.get(url).set('X-Api-Key', ten.owner.key);
    expect((await asOwner(`/api/v1/workspaces/${other.slug}/projects/`)).status).toBe(404);
    expect((await asOwner(v1(`/projects/${foreign.id}/`))).status).toBe(404);
    expect((await asOwner(v1(`/projects/${project.id}/work-items/${wi.body.id}/`))).status).toBe(404);
    // A foreign work item under one's own project, on each of its v1 sub-resources.
    for (const sub of ['links/', 'relations/', 'dependencies/', 'work-item-relations/', 'activities/'])
      expect((await asOwner(v1(`/projects/${project.id}/work-items/${wi.body.id}/${sub}`))).status).toBe(404);
    const values = v1(`/projects/${project.id}/work-items/${wi.body.id}/work-item-properties/values/`);
    expect((await asOwner(values)).status).toBe(404);
    const res = await asOwner(v1(`/projects/${foreign.id}/work-items/`));
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: expect.any(String), detail: expect.any(String), code: 'resource_not_found' });
  });

  it('enforces roles (403) and OAuth scopes (403) as v2 does, and records the refusal in the audit trail', async () => {
    const guest = await t.member(ten.slug, 'guest');
    const denied = await t.http
      .post(v1('/projects/'))
      .set('X-Api-Key', guest.key)
      .send({ name: 'Nope', identifier: 'NOPE' });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('forbidden');
    const token = await t.token(ten.owner.email, ['projects:read']);
    const scoped = await t.http
      .post(v1(`/projects/${project.id}/states/`))
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'x', color: '#000000' });
    expect(scoped.status).toBe(403);
    expect((await t.http.get(v1('/projects/')).set('Authorization', `Bearer ${token}`)).status).toBe(200);
    const audit = await t.http
      .get(v2(`/audit-logs/?event_name=permission.denied&actor_id=${guest.id}`))
      .set('X-Api-Key', ten.owner.key);
    expect(audit.body.data[0]).toEqual(
      expect.objectContaining({ target_id: 'POST /api/v1/workspaces/{slug}/projects/', reason: 'insufficient_role' }),
    );
  });

  it('writes through v1 land in the audit trail like v2 writes', async () => {
    const created = await t.http
      .post(v1('/projects/'))
      .set('X-Api-Key', ten.owner.key)
      .send({ name: 'Audited v1', identifier: 'AUDV' });
    expect(created.status).toBe(201);
    const audit = await t.http
      .get(v2(`/audit-logs/?event_name=project.created&target_id=${created.body.id}`))
      .set('X-Api-Key', ten.owner.key);
    expect(audit.body.data).toHaveLength(1);
  });

  it('marks every v1 response deprecated, links the v2 successor where there is one', async () => {
    const res = await t.http.get(v1(`/projects/${project.id}/states/`)).set('X-Api-Key', ten.owner.key);
    expect(res.headers.deprecation).toMatch(/^@\d+$/);
    expect(res.headers.link).toBe(
      `</api/v2/workspaces/${ten.slug}/projects/${project.id}/states/>; rel="successor-version"`,
    );
    expect(res.headers.sunset).toBeUndefined();
    const members = await t.http.get(v1(`/projects/${project.id}/project-members/`)).set('X-Api-Key', ten.owner.key);
    expect(members.headers.link).toBe(
      `</api/v2/workspaces/${ten.slug}/projects/${project.id}/members/>; rel="successor-version"`,
    );
    const refused = await t.http.get(v1('/projects/'));
    expect(refused.status).toBe(401);
    expect(refused.headers.deprecation).toMatch(/^@\d+$/);
    expect(refused.body).toEqual({ error: expect.any(String), detail: expect.any(String), code: 'unauthorized' });
    const v2res = await t.http.get(v2('/projects/')).set('X-Api-Key', ten.owner.key);
    expect(v2res.headers.deprecation).toBeUndefined();
  });

  it('shares the rate-limit budget with v2 (one per credential)', async () => {
    const u = await t.member(ten.slug, 'member');
    const a = await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key);
    const b = await t.http.get('/api/v1/users/me/').set('X-Api-Key', u.key);
    expect(Number(b.headers['x-ratelimit-remaining'])).toBe(Number(a.headers['x-ratelimit-remaining']) - 1);
  });

  it('v1 paths end with "/" like v2 ones', async () => {
    const res = await t.http.get('/api/v1/users/me').set('X-Api-Key', ten.owner.key);
    expect(res.status).toBe(404);
  });
});

describe('API v1 settings', () => {
  it('API_V1_ENABLED=false: /api/v1/... is a 404 like any unknown path; V1_SUNSET adds Sunset', async () => {
    const off = await createTestApp({ v1: { enabled: false, sunset: undefined } });
    try {
      const u = await off.user();
      // Not through the validating agent: with v1 off its document does not describe the server.
      const gone = await request(off.app.getHttpServer()).get('/api/v1/users/me/').set('X-Api-Key', u.key);
      expect(gone.status).toBe(404);
      expect(gone.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect((await off.http.get('/api/v2/users/me/').set('X-Api-Key', u.key)).status).toBe(200);
    } finally {
      await off.close();
    }
    const sunset = new Date(Date.UTC(2027, 5, 30)).toUTCString();
    const on = await createTestApp({ v1: { enabled: true, sunset } });
    try {
      const u = await on.user();
      const res = await on.http.get('/api/v1/users/me/').set('X-Api-Key', u.key);
      expect(res.status).toBe(200);
      expect(res.headers.sunset).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
    } finally {
      await on.close();
    }
  });
});
