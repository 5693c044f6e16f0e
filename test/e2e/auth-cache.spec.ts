import { hashSecret } from '../../src/common/auth/credentials';
import { AuthCache } from '../../src/common/auth/auth-cache';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';
import { waitFor } from '../helpers/wait';
import { statementsOf } from '../helpers/record-statements';

/**
 * Resolved credentials are reused for a few seconds (AuthCache), yet every change of what they resolve to is
 * seen by the very next request: changes from other connections (another instance, the CLI, psql) by the
 * tables' notification, the process's own writes by invalidation before their response.
 */
let names = 0;
const uniqueName = () => `Label ${++names}`;

describe('auth cache', () => {
  let t: TestApp;
  let ten: Tenant;
  let cache: AuthCache;
  let pid: string;
  const me = '/api/v2/users/me/';

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    cache = t.app.get(AuthCache);
    pid = (await t.project(ten.slug, ten.owner.key)).id;
  });
  afterAll(() => t.close());

  /** Revokes a key with plain SQL, as another instance, the CLI or psql would. */
  const revokeElsewhere = (key: string) =>
    t.ds.query(`UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1`, [hashSecret(key)]);

  it('keeps a resolved credential once listening', async () => {
    await waitFor('the listener', () => cache.active);
    const u = await t.user();
    await t.authChanged();
    expect((await t.http.get(me).set('X-Api-Key', u.key)).status).toBe(200);
    expect(cache.size).toBeGreaterThan(0);
  });

  it('a change committed by another connection arrives within milliseconds, without waiting for the TTL', async () => {
    const u = await t.user();
    expect((await t.http.get(me).set('X-Api-Key', u.key)).status).toBe(200);
    await revokeElsewhere(u.key);
    const since = Date.now();
    await waitFor('the revocation', async () => (await t.http.get(me).set('X-Api-Key', u.key)).status === 401, 2_000);
    expect(Date.now() - since).toBeLessThan(500);
  });

  it('a key revoked by another connection is refused once its notification is in, every time', async () => {
    for (let i = 0; i < 20; i++) {
      const u = await t.user();
      for (let j = 0; j < 3; j++) expect((await t.http.get(me).set('X-Api-Key', u.key)).status).toBe(200);
      await revokeElsewhere(u.key);
      await t.authChanged();
      expectProblem(await t.http.get(me).set('X-Api-Key', u.key), 401, 'unauthorized');
    }
  });

  it('a project role lowered by another connection, or through the API, holds at the next request', async () => {
    const items = `/api/v2/workspaces/${ten.slug}/projects/${pid}/work-items/`;
    const u = await t.member(ten.slug, 'member');
    const add = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/members/`)
      .set('X-Api-Key', ten.owner.key)
      .send({ member_id: u.id, role: 'contributor' });
    expect(add.status).toBe(201);
    expect((await t.http.get(items).set('X-Api-Key', u.key)).status).toBe(200);
    await t.ds.query(`UPDATE project_members SET role = 'guest' WHERE project_id = $1 AND member_id = $2`, [pid, u.id]);
    await t.authChanged();
    expectProblem(await t.http.get(items).set('X-Api-Key', u.key), 403, 'forbidden');

    // Back to contributor, then down to guest through the API (this process's own write).
    await t.ds.query(`UPDATE project_members SET role = 'contributor' WHERE project_id = $1 AND member_id = $2`, [
      pid,
      u.id,
    ]);
    await t.authChanged();
    expect((await t.http.get(items).set('X-Api-Key', u.key)).status).toBe(200);
    const patch = await t.http
      .patch(`/api/v2/workspaces/${ten.slug}/projects/${pid}/members/${add.body.id}/`)
      .set('X-Api-Key', ten.owner.key)
      .send({ role: 'guest' });
    expect(patch.status).toBe(200);
    expectProblem(await t.http.get(items).set('X-Api-Key', u.key), 403, 'forbidden');
    // Removed from the workspace through the API: an outsider (404) at once.
    expect(
      (
        await t.http
          .post(`/api/v2/workspaces/${ten.slug}/members/remove/`)
          .set('X-Api-Key', ten.owner.key)
          .send({ email: u.email })
      ).status,
    ).toBe(204);
    expectProblem(await t.http.get(items).set('X-Api-Key', u.key), 404, 'resource_not_found');
  });

  it('a project archived through v2 or v1 is refused at the next request, even while notifications are late', async () => {
    // The listener busy in a statement of its own: PostgreSQL holds its notifications until the statement ends,
    // so only the write route's own invalidation can make the next request see the archive.
    const listener = (cache as unknown as { listener: { query(sql: string): Promise<unknown> } }).listener;
    for (const version of ['v2', 'v1']) {
      const project = await t.project(ten.slug, ten.owner.key);
      const base = `/api/${version}/workspaces/${ten.slug}/projects/${project.id}`;
      const label = () => t.http.post(`${base}/labels/`).set('X-Api-Key', ten.owner.key).send({ name: uniqueName() });
      expect((await label()).status).toBe(201);
      const busy = listener.query('SELECT pg_sleep(1)');
      const archive = await t.http.post(`${base}/archive/`).set('X-Api-Key', ten.owner.key);
      expect(archive.status).toBeLessThan(300);
      const refused = await label();
      expect([refused.status, refused.body.code]).toEqual([409, 'project_archived']);
      await busy;
    }
  });

  it('a cached token still expires on time, with nothing notified', async () => {
    const tok = (await t.admin.createToken(ten.owner.email, ['read'], 1)).access_token;
    expect((await t.http.get(me).set('Authorization', `Bearer ${tok}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_100));
    expectProblem(await t.http.get(me).set('Authorization', `Bearer ${tok}`), 401, 'unauthorized');
  });

  it('while its listening connection is lost nothing is cached, and it comes back by itself', async () => {
    await waitFor('the listener', () => cache.active);
    await t.ds.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'work-tracking-api:auth-cache' AND datname = current_database()`,
    );
    await waitFor('the loss to be noticed', () => !cache.active);
    expect(cache.size).toBe(0);
    const u = await t.user();
    expect((await t.http.get(me).set('X-Api-Key', u.key)).status).toBe(200);
    expect(cache.size).toBe(0);
    await revokeElsewhere(u.key);
    await t.authChanged();
    expectProblem(await t.http.get(me).set('X-Api-Key', u.key), 401, 'unauthorized');

    await waitFor('the listener to reconnect', () => cache.active);
    const v = await t.user();
    // Creating v's key notifies the cache; let that land before the lookup meant to be cached.
    await t.authChanged();
    expect((await t.http.get(me).set('X-Api-Key', v.key)).status).toBe(200);
    expect(cache.size).toBeGreaterThan(0);
    await revokeElsewhere(v.key);
    await t.authChanged();
    expectProblem(await t.http.get(me).set('X-Api-Key', v.key), 401, 'unauthorized');
  });
});

describe('auth cache off (AUTH_CACHE_TTL_SECONDS=0)', () => {
  it('keeps nothing', async () => {
    const t = await createTestApp({ authCacheTtlSeconds: 0 });
    try {
      const u = await t.user();
      expect((await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key)).status).toBe(200);
      expect(t.app.get(AuthCache).active).toBe(false);
      expect(t.app.get(AuthCache).size).toBe(0);
    } finally {
      await t.close();
    }
  });
});

/**
 * The credential lookup names the workspace by id (a statement a distributed PostgreSQL routes to one shard),
 * learned from the slug once per process (WorkspaceIds); with the row cache off every request shows what the
 * lookup costs.
 */
describe('workspace ids by slug (the credential lookup)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ authCacheTtlSeconds: 0 });
  });
  afterAll(() => t.close());

  it('reads a slug once, then resolves a credential in one statement pinned to the workspace id', async () => {
    const ten = await t.tenant();
    const me = `/api/v2/workspaces/${ten.slug}/projects/`;
    const first = await statementsOf(async () =>
      expect((await t.http.get(me).set('X-Api-Key', ten.owner.key)).status).toBe(200),
    );
    expect(first.filter((s) => /FROM workspaces WHERE slug/.test(s))).toHaveLength(1);
    const again = await statementsOf(async () =>
      expect((await t.http.get(me).set('X-Api-Key', ten.owner.key)).status).toBe(200),
    );
    expect(again.filter((s) => /FROM workspaces WHERE slug/.test(s))).toHaveLength(0);
    expect(again.filter((s) => /WITH cred AS/.test(s))).toHaveLength(1);
  });

  it('a slug taken again by a new workspace (the old one deleted) is learned anew; the old one is 404', async () => {
    const old = await t.tenant();
    const projects = `/api/v2/workspaces/${old.slug}/projects/`;
    expect((await t.http.get(projects).set('X-Api-Key', old.owner.key)).status).toBe(200);
    await t.ds.query(`UPDATE workspaces SET deleted_at = now() WHERE id = $1`, [old.workspaceId]);
    const again = await t.tenant(old.slug);
    expect(again.workspaceId).not.toBe(old.workspaceId);
    const project = await t.project(again.slug, again.owner.key);
    const list = await t.http.get(projects).set('X-Api-Key', again.owner.key);
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([project.id]);
    expectProblem(await t.http.get(projects).set('X-Api-Key', old.owner.key), 404, 'resource_not_found');
  });

  it('an unknown slug is 404 after the credential check, and is not remembered', async () => {
    const u = await t.user();
    const path = `/api/v2/workspaces/no-such-${Date.now()}/projects/`;
    expectProblem(await t.http.get(path).set('X-Api-Key', u.key), 404, 'resource_not_found');
    const again = await statementsOf(async () =>
      expectProblem(await t.http.get(path).set('X-Api-Key', u.key), 404, 'resource_not_found'),
    );
    expect(again.filter((s) => /FROM workspaces WHERE slug/.test(s))).toHaveLength(1);
    expectProblem(await t.http.get(path).set('X-Api-Key', 'wt_bogus'), 401, 'unauthorized');
  });
});
