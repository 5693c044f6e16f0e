import { createTestApp, TestApp } from '../helpers/test-app';
import { validateExchange } from '../helpers/openapi-validator';

/**
 * The response-validation layer itself (test/helpers/openapi-validator.ts): every response the suite receives
 * through `t.http` is checked against openapi.json; these cases show each check can fail.
 */
describe('OpenAPI response validation of the test suite', () => {
  let t: TestApp;
  const ws = '/api/v2/workspaces/acme';
  const item = `${ws}/projects/0b6d3f5e-3f43-4e52-9d1c-6a0f1c1e7a10/work-items/0b6d3f5e-3f43-4e52-9d1c-6a0f1c1e7a11/`;
  const json = { 'content-type': 'application/json; charset=utf-8' };
  const problemType = { 'content-type': 'application/problem+json; charset=utf-8' };
  const problem = {
    type: 'http://localhost:3000/errors/resource_not_found',
    title: 'Not found',
    status: 404,
    code: 'resource_not_found',
    detail: 'No such work item.',
  };
  /** A real work item read shape (created in beforeAll), varied below. */
  let workItem: Record<string, unknown>;

  beforeAll(async () => {
    t = await createTestApp();
    const ten = await t.tenant();
    const project = await t.project(ten.slug, ten.owner.key);
    const made = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${project.id}/work-items/`)
      .set('X-Api-Key', ten.owner.key)
      .send({ name: 'A' });
    workItem = made.body;
  });
  afterAll(() => t.close());

  it('accepts a response the document describes (null expansions included)', () => {
    const body = { ...workItem, type: null, parent: null, cycle: null, state: undefined };
    delete body.state;
    expect(() =>
      validateExchange('GET', `${item}?expand=type,parent,cycle`, { status: 200, headers: json, body }),
    ).not.toThrow();
    expect(() => validateExchange('GET', item, { status: 404, headers: problemType, body: problem })).not.toThrow();
  });

  it('fails on a missing required field, a key the document does not declare, and a wrong type', () => {
    const { name: _omitted, ...noName } = workItem;
    // A retrieve may be a ?fields= projection (only id required); a PATCH response is the whole shape.
    expect(() => validateExchange('GET', item, { status: 200, headers: json, body: noName })).not.toThrow();
    expect(() => validateExchange('PATCH', item, { status: 200, headers: json, body: noName })).toThrow(/name/);
    expect(() =>
      validateExchange('GET', item, { status: 200, headers: json, body: { ...workItem, secret: 1 } }),
    ).toThrow(/additional/);
    expect(() =>
      validateExchange('GET', item, { status: 200, headers: json, body: { ...workItem, sequence_id: '1' } }),
    ).toThrow(/body does not match work_items_get/);
  });

  it('fails on an undeclared status, a wrong content type and a success on an undocumented path', () => {
    expect(() => validateExchange('GET', item, { status: 418, headers: problemType, body: problem })).toThrow(
      /status not declared/,
    );
    expect(() => validateExchange('GET', item, { status: 404, headers: json, body: problem })).toThrow(/content type/);
    expect(() => validateExchange('GET', `${ws}/nothing-here/`, { status: 200, headers: json, body: {} })).toThrow(
      /does not have/,
    );
    expect(() =>
      validateExchange('GET', `${ws}/nothing-here/`, { status: 404, headers: problemType, body: { code: 1 } }),
    ).toThrow(/ProblemDto/);
  });

  it('fails when the server accepted a request body the document refuses', () => {
    const updated = { status: 200, headers: json, body: workItem };
    expect(() => validateExchange('PATCH', item, updated, { name: 'B' })).not.toThrow();
    expect(() => validateExchange('PATCH', item, updated, { name: 7 })).toThrow(/accepted a body/);
    expect(() => validateExchange('PATCH', item, updated, { labels: { a: 1 } })).toThrow(/accepted a body/);
  });

  it('runs on every request made through t.http', async () => {
    // A real exchange passes; the same response checked against a wrong status shows the hook's check is live.
    const res = await t.http.get('/api/v2/users/me/');
    expect(res.status).toBe(401);
    expect(() => validateExchange('GET', '/api/v2/users/me/', { ...res, status: 200 })).toThrow(/OpenAPI mismatch/);
  });
});
