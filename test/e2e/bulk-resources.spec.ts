import { randomUUID } from 'node:crypto';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

/**
 * bulk-create / bulk-update / bulk-delete / upsert of the resources other than work items (issue 19, gap-reference
 * 9.6 and appendix): each row goes through the single operation's rules; the same checks for every resource.
 */
describe('bulk writes and upsert of states, labels, cycles, modules, estimates, points, comments', () => {
  let t: TestApp;
  let ten: Tenant;
  let other: Tenant;
  let pid: string;
  let project: string;
  let foreignProject: string;
  let workItem: string;
  let estimate: string;
  let foreignEstimate: string;
  let contributor: { id: string; key: string };
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });

  /** One resource: its collection URL, a valid create body, a body its create refuses, a PATCH body. */
  interface Resource {
    name: string;
    url: () => string;
    body: (n: string) => Record<string, unknown>;
    bad: Record<string, unknown>;
    patch: Record<string, unknown>;
    /** Who may not write it (the single operation's role rule), or null when a contributor may. */
    deniedToContributor: boolean;
    /** The field the PATCH sets and how it reads back. */
    readBack: (row: Record<string, any>) => unknown;
  }
  const named = (n: string) => ({ name: `${n}-${randomUUID().slice(0, 6)}` });
  const resources: Resource[] = [
    {
      name: 'states',
      url: () => `${project}states/`,
      body: (n) => ({ ...named(n), color: '#112233', group: 'started' }),
      bad: { name: '', color: '#112233' },
      patch: { description: 'patched' },
      deniedToContributor: true,
      readBack: (r) => r.description,
    },
    {
      name: 'labels',
      url: () => `${project}labels/`,
      body: named,
      bad: { name: '   ' },
      patch: { description: 'patched' },
      deniedToContributor: true,
      readBack: (r) => r.description,
    },
    {
      name: 'cycles',
      url: () => `${project}cycles/`,
      body: named,
      bad: { name: 'x', start_date: '2026-05-02T00:00:00Z', end_date: '2026-05-01T00:00:00Z' },
      patch: { description: 'patched' },
      deniedToContributor: false,
      readBack: (r) => r.description,
    },
    {
      name: 'modules',
      url: () => `${project}modules/`,
      body: named,
      bad: { name: '' },
      patch: { description: 'patched' },
      deniedToContributor: false,
      readBack: (r) => r.description,
    },
    {
      name: 'estimates',
      url: () => `${project}estimates/`,
      body: named,
      bad: { name: '' },
      patch: { description: 'patched' },
      deniedToContributor: true,
      readBack: (r) => r.description,
    },
    {
      name: 'estimate points',
      url: () => `${project}estimates/${estimate}/points/`,
      body: (n) => ({ value: `${n}-${randomUUID().slice(0, 6)}` }),
      bad: { value: '' },
      patch: { description: 'patched' },
      deniedToContributor: true,
      readBack: (r) => r.description,
    },
    {
      name: 'comments',
      url: () => `${project}work-items/${workItem}/comments/`,
      body: (n) => ({ comment_html: `<p>${n}</p>` }),
      bad: { comment_html: '<script></script>' },
      patch: { comment_html: '<p>patched</p>' },
      deniedToContributor: false,
      readBack: (r) => r.comment_html,
    },
  ];

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    other = await t.tenant();
    pid = (await t.project(ten.slug, ten.owner.key, { identifier: 'BRS' })).id;
    project = `/api/v2/workspaces/${ten.slug}/projects/${pid}/`;
    const op = (await t.project(other.slug, other.owner.key)).id;
    foreignProject = `/api/v2/workspaces/${other.slug}/projects/${op}/`;
    workItem = (await t.http.post(`${project}work-items/`).set(key()).send({ name: 'host' })).body.id;
    estimate = (await t.http.post(`${project}estimates/`).set(key()).send({ name: 'Points' })).body.id;
    foreignEstimate = (await t.http.post(`${foreignProject}estimates/`).set(key(other.owner.key)).send({ name: 'F' }))
      .body.id;
    contributor = await t.member(ten.slug, 'member');
    const m = await t.http
      .post(`${project}members/`)
      .set(key())
      .send({ member_id: contributor.id, role: 'contributor' });
    expect(m.status).toBe(201);
  });
  afterAll(() => t.close());

  const post = (url: string, body: unknown, k = ten.owner.key) =>
    t.http
      .post(url)
      .set(key(k))
      .send(body as object);
  const ids = async (r: Resource) => {
    const res = await t.http.get(`${r.url()}?per_page=100`).set(key());
    expect(res.status).toBe(200);
    return (res.body.data as Array<{ id: string }>).map((x) => x.id);
  };

  describe.each(resources.map((r) => [r.name, r] as const))('%s', (_name, r) => {
    it('bulk-create: valid rows created by index, a refused row failed with its problem, 200', async () => {
      const before = (await ids(r)).length;
      const res = await post(`${r.url()}bulk-create/`, { items: [r.body('a'), r.bad, r.body('b')] });
      expect(res.status).toBe(200);
      expect(res.body.succeeded).toBe(2);
      expect(res.body.failed).toBe(1);
      expect(res.body.results[0]).toEqual({ index: 0, result: 'created', id: expect.any(String) });
      expect(res.body.results[1]).toMatchObject({ index: 1, result: 'failed', code: 'validation_error' });
      expect(res.body.results[1].type).toMatch(/\/errors\/validation_error$/);
      expect(res.body.results[2]).toMatchObject({ index: 2, result: 'created' });
      const now = await ids(r);
      expect(now.length).toBe(before + 2);
      expect(now).toEqual(expect.arrayContaining([res.body.results[0].id, res.body.results[2].id]));
    });

    it('bulk-create all_or_none: one refused row writes nothing and answers 409 with every row', async () => {
      const before = await ids(r);
      const res = await post(`${r.url()}bulk-create/`, { items: [r.body('c'), r.bad], all_or_none: true });
      const problem = expectProblem(res, 409, 'conflict');
      expect(problem.results.map((x: { result: string }) => x.result)).toEqual(['failed', 'failed']);
      expect(problem.results[0].detail).toMatch(/Not written/);
      expect(problem.results[1].code).toBe('validation_error');
      expect((await ids(r)).sort()).toEqual(before.sort());
    });

    it('bulk-update: rows patched by id; unknown, foreign and missing ids fail their row only', async () => {
      const made = await post(`${r.url()}bulk-create/`, { items: [r.body('u1'), r.body('u2')] });
      const [a, b] = made.body.results.map((x: { id: string }) => x.id);
      const res = await post(`${r.url()}bulk-update/`, {
        items: [{ id: a, ...r.patch }, { id: randomUUID(), ...r.patch }, { ...r.patch }, { id: b, ...r.patch }],
      });
      expect(res.status).toBe(200);
      expect(res.body.results.map((x: { result: string }) => x.result)).toEqual([
        'updated',
        'failed',
        'failed',
        'updated',
      ]);
      expect(res.body.results[1].code).toBe('resource_not_found');
      expect(res.body.results[2].errors[0].field).toBe('id');
      const got = await t.http.get(`${r.url()}${a}/`).set(key());
      expect(r.readBack(got.body)).toBe(r.readBack({ ...got.body, ...r.patch }));
      // all_or_none: the valid row is rolled back with the bad one
      const c = (await post(`${r.url()}bulk-create/`, { items: [r.body('u3')] })).body.results[0].id;
      const before = (await t.http.get(`${r.url()}${c}/`).set(key())).body;
      const aon = await post(`${r.url()}bulk-update/`, {
        items: [
          { id: c, ...r.patch },
          { id: randomUUID(), ...r.patch },
        ],
        all_or_none: true,
      });
      expectProblem(aon, 409, 'conflict');
      expect((await t.http.get(`${r.url()}${c}/`).set(key())).body).toEqual(before);
    });

    it('bulk-delete: each id deleted as by DELETE; repeated, unknown and malformed ids', async () => {
      const made = await post(`${r.url()}bulk-create/`, { items: [r.body('d1'), r.body('d2')] });
      const [a, b] = made.body.results.map((x: { id: string }) => x.id);
      const res = await post(`${r.url()}bulk-delete/`, { ids: [a, a, randomUUID()] });
      expect(res.status).toBe(200);
      expect(res.body.results.map((x: { result: string }) => x.result)).toEqual(['deleted', 'failed', 'failed']);
      expect(res.body.results[1]).toMatchObject({ code: 'resource_not_found', id: a });
      expectProblem(await t.http.get(`${r.url()}${a}/`).set(key()), 404, 'resource_not_found');
      const aon = await post(`${r.url()}bulk-delete/`, { ids: [b, randomUUID()], all_or_none: true });
      expectProblem(aon, 409, 'conflict');
      expect((await t.http.get(`${r.url()}${b}/`).set(key())).status).toBe(200);
      expectProblem(await post(`${r.url()}bulk-delete/`, { ids: ['nope'] }), 400, 'validation_error');
      expectProblem(await post(`${r.url()}bulk-delete/`, { ids: [] }), 400, 'validation_error');
    });

    it('upsert: sending it twice creates once (201 then 200), the second body applied', async () => {
      const pair = { external_source: 'jira', external_id: `X-${randomUUID()}` };
      const first = await post(`${r.url()}upsert/`, { ...r.body('up'), ...pair });
      expect(first.status).toBe(201);
      const second = await post(`${r.url()}upsert/`, { ...r.body('up'), ...pair, ...r.patch });
      expect(second.status).toBe(200);
      expect(second.body.id).toBe(first.body.id);
      expect(r.readBack(second.body)).toBe(r.readBack({ ...second.body, ...r.patch }));
      const listed = await t.http.get(`${r.url()}?per_page=100`).set(key());
      const holders = listed.body.data.filter((x: { external_id: string }) => x.external_id === pair.external_id);
      expect(holders).toHaveLength(1);
      // without the pair: a plain create; a bad body: 400 like the single create
      expect((await post(`${r.url()}upsert/`, r.body('plain'))).status).toBe(201);
      expectProblem(await post(`${r.url()}upsert/`, r.bad), 400, 'validation_error');
      expectProblem(await post(`${r.url()}upsert/`, []), 400, 'validation_error');
    });

    it('the envelope: 1 to 50 rows, objects only', async () => {
      for (const items of [[], Array.from({ length: 51 }, (_, i) => r.body(`m${i}`)), [7], 'x']) {
        expectProblem(await post(`${r.url()}bulk-create/`, { items }), 400, 'validation_error');
      }
      expectProblem(await post(`${r.url()}bulk-update/`, { items: [{}], all_or_none: 'yes' }), 400, 'validation_error');
    });

    it("the single operation's role applies; another workspace's credentials are 404", async () => {
      const res = await post(`${r.url()}bulk-create/`, { items: [r.body('role')] }, contributor.key);
      if (r.deniedToContributor) {
        expectProblem(res, 403, 'forbidden');
        expectProblem(await post(`${r.url()}upsert/`, r.body('role'), contributor.key), 403, 'forbidden');
      } else {
        expect(res.status).toBe(200);
        expect(res.body.succeeded).toBe(1);
      }
      expectProblem(
        await post(`${r.url()}bulk-create/`, { items: [r.body('x')] }, other.owner.key),
        404,
        'resource_not_found',
      );
    });
  });

  it("another project's records named in a bulk body are 404 rows (tenant wall)", async () => {
    const theirs = await post(`${foreignProject}labels/`, { name: 'theirs' }, other.owner.key);
    const res = await post(`${project}labels/bulk-update/`, { items: [{ id: theirs.body.id, name: 'mine' }] });
    expect(res.body.results[0]).toMatchObject({ result: 'failed', code: 'resource_not_found' });
    const del = await post(`${project}labels/bulk-delete/`, { ids: [theirs.body.id] });
    expect(del.body.results[0]).toMatchObject({ result: 'failed', code: 'resource_not_found' });
    const still = await t.http.get(`${foreignProject}labels/${theirs.body.id}/`).set(key(other.owner.key));
    expect(still.body.name).toBe('theirs');
  });

  it('a foreign or unknown parent in the path is the request 404 (estimate, work item)', async () => {
    for (const [url, body] of [
      [`${project}estimates/${foreignEstimate}/points/bulk-create/`, { items: [{ value: '1' }] }],
      [`${project}work-items/${randomUUID()}/comments/bulk-create/`, { items: [{ comment_html: '<p>x</p>' }] }],
      [`${project}work-items/BRS-999/comments/upsert/`, { comment_html: '<p>x</p>' }],
    ] as const) {
      expectProblem(await post(url, body), 404, 'resource_not_found');
    }
    expectProblem(await post(`${project}estimates/nope/points/bulk-create/`, { items: [{}] }), 400, 'validation_error');
  });

  it('a name taken by another row of the same request is that row’s 409 (the single create’s rule, row by row)', async () => {
    const res = await post(`${project}labels/bulk-create/`, { items: [{ name: 'Twin' }, { name: ' Twin ' }] });
    expect(res.body.results[0].result).toBe('created');
    expect(res.body.results[1]).toMatchObject({ result: 'failed', code: 'conflict' });
  });

  it('an OAuth token needs the resource write scope', async () => {
    const read = await t.token(ten.owner.email, ['projects.labels:read']);
    const denied = await t.http
      .post(`${project}labels/bulk-create/`)
      .set('Authorization', `Bearer ${read}`)
      .send({ items: [{ name: 'scoped' }] });
    expectProblem(denied, 403, 'forbidden');
    const write = await t.token(ten.owner.email, ['projects.labels:write']);
    const ok = await t.http
      .post(`${project}labels/bulk-create/`)
      .set('Authorization', `Bearer ${write}`)
      .send({ items: [{ name: 'scoped' }] });
    expect(ok.status).toBe(200);
  });

  it('archived projects refuse bulk writes and upsert (409 project_archived), nothing written', async () => {
    const p = (await t.project(ten.slug, ten.owner.key)).id;
    const url = `/api/v2/workspaces/${ten.slug}/projects/${p}/`;
    expect((await t.http.post(`${url}archive/`).set(key())).status).toBe(204);
    expectProblem(await post(`${url}labels/bulk-create/`, { items: [{ name: 'a' }] }), 409, 'project_archived');
    expectProblem(await post(`${url}states/upsert/`, { name: 'a', color: '#000000' }), 409, 'project_archived');
  });
});
