import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createTestApp, errorFields, expectProblem, Tenant, TestApp } from '../helpers/test-app';

/** `?fields=` on every list and retrieve (gap-reference 4 and 9), shaped by src/common/fields once for all routes. */
describe('?fields=', () => {
  let t: TestApp;
  let ten: Tenant;
  let projectId: string;
  let itemId: string;
  let identifier: string;
  const key = () => ({ 'X-Api-Key': ten.owner.key });
  const items = () => `/api/v2/workspaces/${ten.slug}/projects/${projectId}/work-items/`;
  const get = (url: string) => t.http.get(url).set(key());

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    const project = await t.project(ten.slug, ten.owner.key);
    projectId = project.id;
    for (const name of ['One', 'Two', 'Three']) {
      const res = await t.http.post(items()).set(key()).send({ name, priority: 'high' });
      expect(res.status).toBe(201);
      itemId = res.body.id;
      identifier = res.body.identifier;
    }
  });
  afterAll(() => t.close());

  it('a list returns only the fields asked for, id always; unrequested keys are omitted, not nulled', async () => {
    const res = await get(`${items()}?fields=name,priority`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(3);
    for (const row of res.body.data) expect(Object.keys(row).sort()).toEqual(['id', 'name', 'priority']);
    expect(res.body.total_count).toBe(3);
    const idOnly = await get(`${items()}?fields=id`);
    for (const row of idOnly.body.data) expect(Object.keys(row)).toEqual(['id']);
    // The arrays a projection leaves out are not read, and the ones it names still are.
    const arrays = await get(`${items()}?fields=label_ids,assignee_ids`);
    for (const row of arrays.body.data) expect(row).toEqual({ id: row.id, label_ids: [], assignee_ids: [] });
  });

  it('all returns every field; no fields, an empty value and all give the same shape', async () => {
    const full = (await get(items())).body.data;
    expect((await get(`${items()}?fields=all`)).body.data).toEqual(full);
    expect((await get(`${items()}?fields=`)).body.data).toEqual(full);
    expect((await get(`${items()}?fields=name,all`)).body.data).toEqual(full);
  });

  it('works with cursor pages and with expand, a separate namespace', async () => {
    const first = await get(`${items()}?paginate=cursor&per_page=2&fields=name&expand=state,labels`);
    expect(first.body.data).toHaveLength(2);
    for (const row of first.body.data) {
      expect(Object.keys(row).sort()).toEqual(['id', 'labels', 'name', 'state']);
      expect(row.state).toEqual(expect.objectContaining({ id: expect.any(String), group: expect.any(String) }));
    }
    const next = await get(`${items()}?paginate=cursor&per_page=2&fields=name&cursor=${first.body.next_cursor}`);
    expect(next.body.data).toHaveLength(1);
    expect(Object.keys(next.body.data[0]).sort()).toEqual(['id', 'name']);
  });

  it('unknown names are 400 naming them; a relation name is 400 saying to use expand', async () => {
    const unknown = expectProblem(await get(`${items()}?fields=name,bogus,nope`), 400, 'validation_error');
    expect(errorFields(unknown)).toEqual(['fields']);
    expect(unknown.errors[0].message).toMatch(/bogus, nope/);
    const relation = expectProblem(await get(`${items()}?fields=id,state,labels`), 400, 'validation_error');
    expect(errorFields(relation)).toEqual(['fields', 'fields']);
    expect(relation.errors[0].message).toMatch(/expand=state/);
    expect(relation.errors[1].message).toMatch(/expand=labels/);
    // A field of another resource is unknown here.
    expectProblem(await get(`${items()}?fields=color`), 400, 'validation_error');
    expectProblem(
      await get(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/states/?fields=priority`),
      400,
      'validation_error',
    );
  });

  it('a retrieve (by id and by identifier) returns only the fields asked for', async () => {
    const byId = await get(`${items()}${itemId}/?fields=name,custom_fields`);
    expect(byId.body).toEqual({ id: itemId, name: 'Three', custom_fields: {} });
    const byKey = await get(`/api/v2/workspaces/${ten.slug}/work-items/${identifier}/?fields=identifier&expand=state`);
    expect(Object.keys(byKey.body).sort()).toEqual(['id', 'identifier', 'state']);
    expectProblem(await get(`${items()}${itemId}/?fields=parent`), 400, 'validation_error');
  });

  it('every list and retrieve of the document declares fields; each list answers fields=id with ids only', async () => {
    const doc = JSON.parse(readFileSync(resolve(__dirname, '../../openapi.json'), 'utf8')) as {
      paths: Record<string, { get?: { operationId: string; parameters?: Array<{ name: string }> } }>;
    };
    const gets = Object.entries(doc.paths).filter(([, item]) => item.get);
    const without = gets
      .filter(([, item]) => !item.get!.parameters?.some((p) => p.name === 'fields'))
      .map(([, item]) => item.get!.operationId);
    // The document itself, the type schema (a form description) and the relation and dependency lists (one object
    // of id arrays keyed by direction, as Plane's v2 reads them) are not resources.
    expect(without.sort()).toEqual([
      'project_work_item_types_schema',
      'schema_get',
      'work_item_dependencies_list',
      'work_item_relations_list',
    ]);
    const lists = gets.filter(
      ([path, item]) => item.get!.operationId.endsWith('_list') && !/\{(?!slug|project_id)/.test(path),
    );
    expect(lists.length).toBeGreaterThan(10);
    for (const [path] of lists) {
      const url = path.replace('{slug}', ten.slug).replace('{project_id}', projectId);
      const res = await get(`${url}?fields=id`);
      expect(res.status).toBe(200);
      for (const row of res.body.data) expect(Object.keys(row)).toEqual(['id']);
    }
  });

  it('writes return the full shape and ignore fields, like any parameter they do not declare', async () => {
    const res = await t.http.post(`${items()}?fields=bogus`).set(key()).send({ name: 'Four' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(expect.objectContaining({ name: 'Four', identifier: expect.any(String) }));
  });
});
