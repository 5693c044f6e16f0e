import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import { validateExchange } from '../helpers/openapi-validator';
import { controllerRoutes } from '../helpers/routes';
import { createTestApp, TestApp } from '../helpers/test-app';

type Operation = { operationId?: string; security?: unknown[]; responses: Record<string, { content?: unknown }> };
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>> };

/** v1's own OpenAPI document: served at /api/v1/schema/, committed as openapi-v1.json, and offered in Swagger UI. */
describe('v1 OpenAPI document', () => {
  let t: TestApp;
  let doc: Doc;
  beforeAll(async () => {
    t = await createTestApp();
    doc = (await t.http.get('/api/v1/schema/')).body;
  });
  afterAll(() => t.close());

  it('is served without credentials and validates with @readme/openapi-parser', async () => {
    expect(doc.openapi).toMatch(/^3\.1/);
    const result = await validate(JSON.parse(JSON.stringify(doc)));
    if (!result.valid) throw new Error(compileErrors(result));
  });

  it('lists every served /api/v1 route with its trailing slash, and nothing of v2', () => {
    const served = controllerRoutes(t.app)
      .filter((r) => r.path.startsWith('/api/v1/'))
      .map((r) => `${r.method} ${r.path.replace(/:([a-z_]+)/g, '{$1}')}/`)
      .sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(documented).toEqual(served);
    expect(Object.keys(doc.paths).every((p) => p.startsWith('/api/v1/') && p.endsWith('/'))).toBe(true);
  });

  it('the committed openapi-v1.json equals the document the code generates', () => {
    const committed = JSON.parse(readFileSync(resolve(__dirname, '../../openapi-v1.json'), 'utf8'));
    const hint = 'openapi-v1.json is out of date: regenerate it with `npm run openapi:write` and commit it.';
    expect({ hint, doc: committed }).toEqual({ hint, doc });
  });

  it('failures are declared as v1 error bodies, never problem+json', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toContain('application/problem+json');
    expect(text).toContain('#/components/schemas/V1Error');
  });

  it('every operation declares its success response: a v1 body schema, or 204 without one', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const ok = Object.entries(op.responses).filter(([status]) => status.startsWith('2'));
        const valid = ok.length === 1 && (ok[0][0] === '204' ? !ok[0][1].content : !!ok[0][1].content);
        if (!valid) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('v1 responses are validated against it: an undeclared key, a missing one or an undeclared status fails', () => {
    const url = '/api/v1/users/me/';
    const me = { id: '6d2f2d8e-3f43-4a4a-9a52-6f1f0e7b8a11', first_name: 'A', last_name: 'B', email: 'a@b.c' };
    const user = { ...me, avatar: '', avatar_url: null, display_name: 'ab' };
    const json = { 'content-type': 'application/json' };
    expect(() => validateExchange('GET', url, { status: 200, headers: json, body: user })).not.toThrow();
    expect(() => validateExchange('GET', url, { status: 200, headers: json, body: { ...user, scopes: [] } })).toThrow(
      /OpenAPI mismatch/,
    );
    expect(() => validateExchange('GET', url, { status: 200, headers: json, body: me })).toThrow(/OpenAPI mismatch/);
    expect(() => validateExchange('GET', url, { status: 201, headers: json, body: user })).toThrow(/not declared/);
    const problem = { 'content-type': 'application/problem+json' };
    expect(() => validateExchange('GET', url, { status: 404, headers: problem, body: { error: 'x' } })).toThrow(
      /content type/,
    );
  });

  it('Swagger UI at /api/v1/docs/ shows v1 with a picker for v2; v2 links to it', async () => {
    const page = await t.http.get('/api/v1/docs/');
    expect(page.status).toBe(200);
    const init = await t.http.get('/api/v1/docs/swagger-ui-init.js');
    expect(init.text).toContain('"url": "/api/v1/docs/openapi.json"');
    expect(init.text).toContain('"url": "/api/v2/docs/openapi.json"');
    expect(init.text).toContain('"urls.primaryName": "v1"');
    const json = await t.http.get('/api/v1/docs/openapi.json');
    expect(json.body).toEqual(doc);
    const v2 = (await t.http.get('/api/v2/schema/')).body as { info: { description: string } };
    expect(v2.info.description).toContain('/api/v1/docs/');
  });
});
