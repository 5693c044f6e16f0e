import { AdminService } from '../../src/admin/admin.service';
import { createTestApp, TestApp } from '../helpers/test-app';

/** First-start bootstrap (main.ts, SEED_ON_EMPTY): an owner, a workspace and a key, once, whatever happens. */
describe('first-start bootstrap', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
  });
  const fresh = async () => {
    const t = await createTestApp();
    apps.push(t);
    return t;
  };
  const counts = async (t: TestApp) =>
    (
      await t.ds.query(
        `SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM workspaces)::int AS workspaces, (SELECT count(*) FROM api_keys)::int AS keys`,
      )
    )[0];

  it('instances starting together seed once: one gets the key, the others find it done; the key works', async () => {
    const t = await fresh();
    const admin = t.app.get(AdminService);
    const results = await Promise.all([admin.bootstrapIfEmpty(), admin.bootstrapIfEmpty(), admin.bootstrapIfEmpty()]);
    const seeded = results.filter((r) => r !== null);
    expect(seeded).toHaveLength(1);
    expect(await counts(t)).toEqual({ users: 1, workspaces: 1, keys: 1 });
    expect((await t.http.get('/api/v2/workspaces/default/projects/').set('X-Api-Key', seeded[0].api_key)).status).toBe(
      200,
    );
  });

  it('a bad BOOTSTRAP_WORKSPACE stops before writing anything; a start that stopped half-way is completed by the next', async () => {
    const t = await fresh();
    const admin = t.app.get(AdminService);
    process.env.BOOTSTRAP_WORKSPACE = 'Bad Slug!';
    try {
      await expect(admin.bootstrapIfEmpty()).rejects.toThrow(/BOOTSTRAP_WORKSPACE/);
    } finally {
      delete process.env.BOOTSTRAP_WORKSPACE;
    }
    expect(await counts(t)).toEqual({ users: 0, workspaces: 0, keys: 0 });
    // Only the bootstrap user made it (a start killed half-way): the next start completes the seed.
    await admin.createUser('admin@example.com', 'Admin');
    const seeded = await admin.bootstrapIfEmpty();
    expect(seeded).toMatchObject({
      email: 'admin@example.com',
      workspace: 'default',
      api_key: expect.stringMatching(/^wt_api_/),
    });
    expect(await counts(t)).toEqual({ users: 1, workspaces: 1, keys: 1 });
    // Seeded once (the user holds a key): nothing more.
    expect(await admin.bootstrapIfEmpty()).toBeNull();
  });

  it("a seed interrupted after the workspace (no owner, no key) is completed; an operator's own setup is left alone", async () => {
    const t = await fresh();
    const admin = t.app.get(AdminService);
    await admin.createUser('admin@example.com', 'Admin');
    await admin.createWorkspace('default', 'Default workspace');
    const seeded = await admin.bootstrapIfEmpty();
    expect(seeded).toMatchObject({ workspace: 'default', api_key: expect.stringMatching(/^wt_api_/) });
    expect(await counts(t)).toEqual({ users: 1, workspaces: 1, keys: 1 });
    expect(
      (await t.http.get('/api/v2/workspaces/default/members/').set('X-Api-Key', seeded!.api_key)).body.data,
    ).toEqual([expect.objectContaining({ role: 'owner' })]);
    const other = await fresh();
    await other.app.get(AdminService).createUser('ops@example.com', 'Ops');
    expect(await other.app.get(AdminService).bootstrapIfEmpty()).toBeNull();
    expect(await counts(other)).toEqual({ users: 1, workspaces: 0, keys: 0 });
  });
});
