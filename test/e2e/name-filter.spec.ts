import { createTestApp, Tenant, TestApp } from '../helpers/test-app';

/** `?name=` (gap-reference 9.5): exact, case-insensitive, on the lists that have names. */
describe('?name= filter', () => {
  let t: TestApp;
  let ten: Tenant;
  let base: string;
  const get = (path: string) => t.http.get(path).set({ 'X-Api-Key': ten.owner.key });
  const names = async (path: string) => (await get(path)).body.data.map((x: any) => x.name);

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    const p = await t.project(ten.slug, ten.owner.key, { name: 'Alpha Project', identifier: 'ALP' });
    await t.project(ten.slug, ten.owner.key, { name: 'Alpha Project Two', identifier: 'ALT' });
    base = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/`;
    for (const [path, body] of [
      ['labels/', { name: 'Bug' }],
      ['labels/', { name: 'Bugfix' }],
      ['cycles/', { name: 'Sprint 1' }],
      ['cycles/', { name: 'Sprint 10' }],
      ['modules/', { name: 'Core' }],
      ['modules/', { name: 'Core UI' }],
      ['estimates/', { name: 'Points' }],
    ] as const) {
      const r = await t.http.post(`${base}${path}`).set({ 'X-Api-Key': ten.owner.key }).send(body);
      expect(r.status).toBe(201);
    }
  });
  afterAll(() => t.close());

  it('matches the whole name, in any case, on projects, states, labels, cycles, modules and estimates', async () => {
    expect(await names(`/api/v2/workspaces/${ten.slug}/projects/?name=alpha%20project`)).toEqual(['Alpha Project']);
    expect(await names(`${base}states/?name=BACKLOG`)).toEqual(['Backlog']);
    expect(await names(`${base}labels/?name=bug`)).toEqual(['Bug']);
    expect(await names(`${base}cycles/?name=sprint%201`)).toEqual(['Sprint 1']);
    expect(await names(`${base}modules/?name=core`)).toEqual(['Core']);
    expect(await names(`${base}estimates/?name=POINTS`)).toEqual(['Points']);
  });

  it('no match is an empty page; search still matches substrings', async () => {
    const res = await get(`${base}labels/?name=bu`);
    expect(res.body).toMatchObject({ data: [], total_count: 0 });
    expect((await names(`${base}labels/?search=bu`)).sort()).toEqual(['Bug', 'Bugfix']);
  });

  it('work item types, properties, options and contexts declare it too', async () => {
    const doc = JSON.parse(JSON.stringify((await get('/api/v2/schema/')).body));
    const lists = Object.entries(doc.paths as Record<string, any>).filter(
      ([path, ops]) => /(work-item-types|work-item-properties|options|contexts)\/$/.test(path) && ops.get?.parameters,
    );
    expect(lists.length).toBeGreaterThan(3);
    for (const [, ops] of lists) expect(ops.get.parameters.map((x: any) => x.name)).toContain('name');
  });
});
