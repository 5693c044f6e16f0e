import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import { controllerRoutes } from '../helpers/routes';
import { createTestApp, TestApp } from '../helpers/test-app';

type Doc = { openapi: string; paths: Record<string, Record<string, { operationId?: string; security?: unknown[] }>> };

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
