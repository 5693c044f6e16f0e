import { formHint, NameOrIdPair } from '../../src/common/resolve/name-or-id';
import { WORK_ITEM_PAIRS } from '../../src/work-items/relation-fields';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

/**
 * The two forms of a relation mixed up, for every name-or-id pair of the API: an id sent in the name field
 * (`state: "<uuid>"`) or a name in the id field (`state_id: "Todo"`) is a 400 naming the field and saying which
 * field takes what, not "does not match a state of this project".
 */
describe('name-or-id pairs: the two forms mixed up', () => {
  let t: TestApp;
  let ten: Tenant;
  let base: string;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    const project = await t.project(ten.slug, ten.owner.key, { identifier: 'MIX' });
    base = `/api/v2/workspaces/${ten.slug}/projects/${project.id}`;
    const post = async (path: string, body?: object) => {
      const res = await t.http.post(`${base}${path}`).set('X-Api-Key', ten.owner.key).send(body);
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const states = (await t.http.get(`${base}/states/`).set('X-Api-Key', ten.owner.key)).body.data;
    ids.state = states.find((s: { name: string }) => s.name === 'Todo').id;
    ids.type = (await post('/work-item-types/enable/')).id;
    ids.parent = (await post('/work-items/', { name: 'Parent' })).id;
    ids.assignees = ten.owner.id;
    ids.labels = (await post('/labels/', { name: 'Bug' })).id;
    const estimate = await post('/estimates/', { name: 'Sizes', is_active: true });
    ids.estimate = (await post(`/estimates/${estimate.id}/points/`, { value: 'L' })).id;
  });
  afterAll(() => t?.close());

  const create = (body: object) =>
    t.http
      .post(`${base}/work-items/`)
      .set('X-Api-Key', ten.owner.key)
      .send({ name: 'Mixed up', ...body });

  const pairs = Object.entries(WORK_ITEM_PAIRS) as Array<[string, NameOrIdPair]>;
  const names: Record<string, string> = {
    state: 'Todo',
    type: 'Task',
    parent: 'MIX-1',
    assignees: 'someone@example.com',
    labels: 'Bug',
    estimate: 'L',
  };

  it.each(pairs)('%s: an id in the name field says which field takes an id', async (key, pair) => {
    const value = pair.many ? [ids[key]] : ids[key];
    const body = expectProblem(await create({ [pair.nameField]: value }), 400, 'validation_error');
    expect(body.errors).toEqual([{ field: pair.nameField, message: `"${ids[key]}" is an id: ${formHint(pair)}` }]);
    expect(formHint(pair)).toMatch(new RegExp(`^${pair.nameField} takes .+, ${pair.idField} takes (an id|ids)\\.$`));
  });

  it.each(pairs)('%s: a name in the id field says which field takes a name', async (key, pair) => {
    const value = pair.many ? [names[key], ids[key]] : names[key];
    const body = expectProblem(await create({ [pair.idField]: value }), 400, 'validation_error');
    expect(body.errors).toEqual([
      { field: pair.idField, message: `"${names[key]}" is not an id (UUID): ${formHint(pair)}` },
    ]);
  });

  it('several names in a to-many id field are named together; the same mix-up on PATCH reads the same', async () => {
    const body = expectProblem(await create({ label_ids: ['Bug', 'Feature'] }), 400, 'validation_error');
    expect(body.errors[0].message).toBe(`"Bug", "Feature" are not ids (UUID): ${formHint(WORK_ITEM_PAIRS.labels)}`);
    const item = (await create({})).body;
    const patched = await t.http
      .patch(`${base}/work-items/${item.id}/`)
      .set('X-Api-Key', ten.owner.key)
      .send({ state: ids.state });
    expect(expectProblem(patched, 400, 'validation_error').errors).toEqual([
      { field: 'state', message: `"${ids.state}" is an id: state takes a state name, state_id takes an id.` },
    ]);
  });

  it('every name-or-id pair of the request bodies in the OpenAPI document is one of these (none forgotten)', async () => {
    const doc = (await t.http.get('/api/v2/schema/')).body;
    const known = new Set(pairs.map(([, p]) => `${p.nameField}/${p.idField}`));
    const found = new Set<string>();
    const bodies = new Set<string>();
    for (const item of Object.values<Record<string, any>>(doc.paths))
      for (const op of Object.values<any>(item)) {
        const ref = op.requestBody?.content?.['application/json']?.schema?.$ref;
        if (ref) bodies.add(String(ref).split('/').pop()!);
      }
    expect(bodies.size).toBeGreaterThan(20);
    for (const name of bodies) {
      const props = Object.keys(doc.components.schemas[name].properties ?? {});
      for (const p of props) {
        const idForms = [`${p}_id`, `${p.replace(/s$/, '')}_ids`, `${p}_point_id`];
        for (const id of idForms) if (props.includes(id)) found.add(`${p}/${id}`);
      }
    }
    expect(found.size).toBeGreaterThanOrEqual(known.size);
    expect([...found].filter((f) => !known.has(f))).toEqual([]);
  });
});
