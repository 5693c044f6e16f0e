import { randomUUID } from 'node:crypto';
import { auditEntries } from '../helpers/audit';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

/** bulk-create, bulk-update and upsert of projects (issue 19; the later edition lists no bulk-delete for them). */
describe('project bulk writes and upsert', () => {
  let t: TestApp;
  let ten: Tenant;
  let other: Tenant;
  let member: { id: string; key: string };
  let base: string;
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });
  const post = (path: string, body: unknown, k = ten.owner.key) =>
    t.http
      .post(`${base}${path}`)
      .set(key(k))
      .send(body as object);
  const uniq = () => randomUUID().slice(0, 8);

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    other = await t.tenant();
    member = await t.member(ten.slug, 'member');
    base = `/api/v2/workspaces/${ten.slug}/projects/`;
  });
  afterAll(() => t.close());

  it('bulk-create: each row is the single create (creator admin, states seeded, audited); a taken name fails its row', async () => {
    const name = `P-${uniq()}`;
    const res = await post('bulk-create/', { items: [{ name }, { name }, { name: `Q-${uniq()}`, identifier: 'BQ1' }] });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { result: string }) => r.result)).toEqual(['created', 'failed', 'created']);
    expect(res.body.results[1].code).toBe('conflict');
    const id = res.body.results[2].id;
    const states = await t.http.get(`${base}${id}/states/`).set(key());
    expect(states.body.data.length).toBeGreaterThan(0);
    expect((await t.http.get(`${base}BQ1/`).set(key())).body.id).toBe(id);
    const audit = await auditEntries(t, ten, { event_name: 'project.created' });
    expect(audit.map((a) => a.target_id)).toEqual(expect.arrayContaining([res.body.results[0].id, id]));
  });

  it('bulk-update: each row is the PATCH of the project it names, with its rules', async () => {
    const a = (await post('', { name: `A-${uniq()}` })).body.id;
    const mine = (await post('', { name: `M-${uniq()}` }, member.key)).body.id;
    const foreign = (await t.project(other.slug, other.owner.key)).id;
    const archived = (await post('', { name: `R-${uniq()}` })).body.id;
    expect((await t.http.post(`${base}${archived}/archive/`).set(key())).status).toBe(204);
    const res = await post(
      'bulk-update/',
      {
        items: [
          { id: mine, description: 'by member' },
          { id: a, description: 'x' },
          { id: foreign, description: 'x' },
        ],
      },
      member.key,
    );
    expect(res.body.results.map((r: { result: string }) => r.result)).toEqual(['updated', 'failed', 'failed']);
    // a workspace member outside project a is refused as on its PATCH route; another workspace's project is 404
    const single = await t.http.patch(`${base}${a}/`).set(key(member.key)).send({ description: 'x' });
    expect([res.body.results[1].code]).toEqual([single.body.code]);
    expect(res.body.results[2].code).toBe('resource_not_found');
    const arc = await post('bulk-update/', { items: [{ id: archived, description: 'x' }] });
    expect(arc.body.results[0].code).toBe('project_archived');
    const aon = await post('bulk-update/', {
      items: [
        { id: a, description: 'kept?' },
        { id: foreign, description: 'x' },
      ],
      all_or_none: true,
    });
    expectProblem(aon, 409, 'conflict');
    expect((await t.http.get(`${base}${a}/`).set(key())).body.description).not.toBe('kept?');
  });

  it('upsert: twice creates once; the pair is scoped by the workspace', async () => {
    const pair = { external_source: 'jira', external_id: `PRJ-${uniq()}` };
    const first = await post('upsert/', { name: `U-${uniq()}`, ...pair });
    expect(first.status).toBe(201);
    const second = await post('upsert/', { name: `U-${uniq()}`, description: 'again', ...pair });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ id: first.body.id, description: 'again' });
    const theirs = await t.http
      .post(`/api/v2/workspaces/${other.slug}/projects/upsert/`)
      .set(key(other.owner.key))
      .send({ name: `U-${uniq()}`, ...pair });
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(first.body.id);
  });

  it('no bulk-delete for projects (405); guests may not create; scopes', async () => {
    expect((await post('bulk-delete/', { ids: [randomUUID()] })).status).toBe(405);
    const guest = await t.member(ten.slug, 'guest');
    expectProblem(await post('bulk-create/', { items: [{ name: 'g' }] }, guest.key), 403, 'forbidden');
    const read = await t.token(ten.owner.email, ['projects:read']);
    const denied = await t.http.post(`${base}upsert/`).set('Authorization', `Bearer ${read}`).send({ name: 'n' });
    expectProblem(denied, 403, 'forbidden');
  });
});
