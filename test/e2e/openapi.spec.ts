import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import { registeredRoutes } from '../../src/common/http/route-registry';
import { SCOPES, scopesSatisfying } from '../../src/common/auth/scopes';
import { ANY_READ_SCOPES } from '../../src/common/auth/authenticated.decorator';
import { BASE_URL, createTestApp, TestApp } from '../helpers/test-app';
import { ControllerRoute, controllerRoutes, openApiPath } from '../helpers/routes';

type Operation = {
  operationId?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{
    name: string;
    in: string;
    style?: string;
    explode?: boolean;
    schema?: { type?: string; format?: string; enum?: string[]; items?: { enum?: string[] } };
    $ref?: string;
  }>;
  responses: Record<string, { content?: Record<string, { schema?: any }> }>;
  'x-required-scope'?: string | null;
};

const METHODS = ['get', 'post', 'patch', 'delete', 'put'] as const;

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: any;
  let routes: ControllerRoute[];
  const ops: Array<{ path: string; method: string; op: Operation }> = [];

  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.http.get('/api/v2/schema/');
    expect(res.status).toBe(200);
    doc = res.body;
    routes = controllerRoutes(t.app).filter((r) => r.path.startsWith('/api/v2/'));
    for (const [path, item] of Object.entries<Record<string, Operation>>(doc.paths)) {
      for (const m of METHODS) if (item[m]) ops.push({ path, method: m.toUpperCase(), op: item[m] });
    }
  });
  afterAll(() => t.close());

  const apiOps = () => ops.filter((o) => o.op.operationId !== 'schema_get');
  const routeOf = (o: { path: string; method: string }) =>
    routes.find((r) => openApiPath(r.path) === o.path && r.method === o.method);

  it('is served without credentials as OpenAPI 3 and validates with @readme/openapi-parser', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    // validate() dereferences in place: give it a copy.
    const result = await validate(JSON.parse(JSON.stringify(doc)));
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.valid).toBe(true);
  });

  it('has exactly one server, equal to PUBLIC_BASE_URL', () => {
    expect(doc.servers).toEqual([{ url: BASE_URL }]);
  });

  it('every path ends with "/" and is under /api/v2/', () => {
    const bad = Object.keys(doc.paths).filter((p) => !p.startsWith('/api/v2/') || !p.endsWith('/'));
    expect(bad).toEqual([]);
  });

  it('declares the ApiKey header scheme and the OAuth2 scheme with every scope of the catalogue', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.ApiKey).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }));
    expect(schemes.oauth2.type).toBe('oauth2');
    const flow = schemes.oauth2.flows.authorizationCode;
    expect(Object.keys(flow.scopes).sort()).toEqual(Object.keys(SCOPES).sort());
    expect(flow.authorizationUrl).toBe(`${BASE_URL}/auth/o/authorize/`);
    expect(flow.tokenUrl).toBe(`${BASE_URL}/auth/o/token/`);
  });

  it('integer read fields are typed integer; PATCH bodies declare no defaults (an omitted field is unchanged)', () => {
    const schemas = doc.components.schemas;
    expect(schemas.WorkItemDto.properties.sequence_id.type).toBe('integer');
    const withDefault = Object.entries<any>(schemas)
      .filter(([name]) => name.startsWith('Update'))
      .flatMap(([name, s]) =>
        Object.entries<any>(s.properties ?? {})
          .filter(([, p]) => p.default !== undefined)
          .map(([k]) => `${name}.${k}`),
      );
    expect(withDefault).toEqual([]);
    expect(schemas.CreateEstimatePointDto.properties.key).toMatchObject({
      type: 'integer',
      minimum: 0,
      maximum: 1000000,
    });
    expect(schemas.UpdateWorkspaceFeaturesDto.properties.work_item_type_default_level).toMatchObject({
      type: 'integer',
      maximum: 2147483647,
    });
  });

  it('the fields the spec marks read-only carry readOnly; names and external ids declare their 255 limit', () => {
    const schemas = doc.components.schemas;
    const readOnly = {
      StateDto: ['is_triage'],
      CycleDto: ['owned_by_id'],
      ModuleDto: ['member_ids'],
      WorkItemTypeDto: ['is_default', 'is_epic', 'level', 'logo_props'],
      WorkItemPropertyDto: ['name'],
      PropertyOptionDto: ['sort_order'],
    };
    for (const [dto, fields] of Object.entries(readOnly)) {
      for (const f of fields) expect([dto, f, schemas[dto].properties[f].readOnly]).toEqual([dto, f, true]);
    }
    for (const dto of ['StateDto', 'CycleDto', 'ModuleDto', 'LabelDto', 'ProjectDto']) {
      expect([dto, schemas[dto].properties.name.maxLength]).toEqual([dto, 255]);
      expect([dto, schemas[dto].properties.external_id.maxLength]).toEqual([dto, 255]);
    }
  });

  it('every operation has a unique operationId and a tag', () => {
    const missing = ops.filter((o) => !o.op.operationId || !o.op.tags?.length).map((o) => `${o.method} ${o.path}`);
    expect(missing).toEqual([]);
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('every operation declares ApiKey and oauth2 security with the scope its guard enforces', () => {
    const bad: string[] = [];
    for (const o of apiOps()) {
      const r = routeOf(o);
      if (!r?.rule) {
        bad.push(`${o.method} ${o.path}: no route rule`);
        continue;
      }
      const scope = r.rule.scope === 'any-read' ? 'read' : r.rule.scope;
      const sec = o.op.security ?? [];
      const hasKey = sec.some((s) => Array.isArray(s.ApiKey) && s.ApiKey.length === 0);
      // Alternatives, one scope each: the route's scope first, then every other scope the guard accepts.
      const oauth = sec.filter((s) => s.oauth2).map((s) => s.oauth2);
      const accepted = r.rule.scope === 'any-read' ? ANY_READ_SCOPES : scopesSatisfying(r.rule.scope);
      if (
        !hasKey ||
        oauth.some((x) => x.length !== 1) ||
        JSON.stringify(oauth.map((x) => x[0]).sort()) !== JSON.stringify([...accepted].sort())
      ) {
        bad.push(`${o.method} ${o.path}: security ${JSON.stringify(sec)} vs scope ${scope}`);
      }
      if (r.rule.scope !== 'any-read' && oauth[0]?.[0] !== scope)
        bad.push(`${o.method} ${o.path}: the route's own scope is not listed first`);
      if (r.rule.scope.endsWith(':read') && !oauth.some((x) => x[0] === 'read'))
        bad.push(`${o.method} ${o.path}: global read not listed`);
      if (r.rule.scope.endsWith(':write') && !oauth.some((x) => x[0] === 'write'))
        bad.push(`${o.method} ${o.path}: global write not listed`);
      if (!(scope in SCOPES)) bad.push(`${o.method} ${o.path}: scope ${scope} is not in the catalogue`);
    }
    expect(bad).toEqual([]);
  });

  it('the schema operation itself is public (security: [])', () => {
    const schema = ops.find((o) => o.op.operationId === 'schema_get')!;
    expect(schema.path).toBe('/api/v2/schema/');
    expect(schema.op.security).toEqual([]);
  });

  it('every operation documents problem+json failures (401 and 429 at least on authenticated ones)', () => {
    const bad: string[] = [];
    for (const o of apiOps()) {
      const problems = Object.entries(o.op.responses).filter(
        ([status, r]) => Number(status) >= 400 && r.content?.['application/problem+json'],
      );
      const statuses = problems.map(([s]) => s);
      for (const need of ['401', '403', '429'])
        if (!statuses.includes(need)) bad.push(`${o.method} ${o.path}: no ${need} problem`);
      for (const [status, r] of problems) {
        if (!isProblemSchema(doc, r.content!['application/problem+json'].schema?.$ref))
          bad.push(`${o.method} ${o.path} ${status}: not a ProblemDto`);
      }
      if (o.path.includes('{') && !statuses.includes('404')) bad.push(`${o.method} ${o.path}: no 404 problem`);
      if (['POST', 'PATCH'].includes(o.method) && !statuses.includes('400'))
        bad.push(`${o.method} ${o.path}: no 400 problem`);
    }
    // Any operation can answer 400 (a NUL in a query parameter, `expand` where none is accepted), the public ones too.
    for (const o of ops)
      if (!o.op.responses['400']?.content?.['application/problem+json'])
        bad.push(`${o.method} ${o.path}: no 400 problem`);
    // Every operation can meet a database outage: 503 with Retry-After.
    for (const o of ops)
      if (!(o.op.responses['503'] as any)?.headers?.['Retry-After']) bad.push(`${o.method} ${o.path}: no 503 problem`);
    // A body can be too large (413) or not JSON (415) on every operation that takes one.
    for (const o of ops) {
      if (!(o.op as { requestBody?: unknown }).requestBody) continue;
      for (const need of ['413', '415'])
        if (!o.op.responses[need]?.content?.['application/problem+json'])
          bad.push(`${o.method} ${o.path}: no ${need} problem`);
    }
    for (const o of ops) {
      const r429 = o.op.responses['429'];
      if (
        r429 &&
        !['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'].every(
          (h) => (r429 as any).headers?.[h],
        )
      )
        bad.push(`${o.method} ${o.path}: 429 without its headers`);
    }
    expect(ops.find((o) => o.op.operationId === 'schema_get')!.op.responses['429']).toBeDefined();
    // gap-reference 3.1: work item DELETE lists 409 among its errors.
    expect(ops.find((o) => o.op.operationId === 'work_items_delete')!.op.responses['409']).toBeDefined();
    expect(bad).toEqual([]);
    const problem = doc.components.schemas.ProblemDto;
    expect(problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'code', 'detail']));
    expect(problem.properties.status.type).toBe('integer');
    expect(doc.components.schemas.SchemaFieldDto.properties.default.type).toBe('string');
  });

  it('every operation has a success response; list operations return the offset/cursor envelope', () => {
    const bad: string[] = [];
    const lists = apiOps().filter((o) => (o.op.parameters ?? []).some((p) => p.name === 'per_page'));
    expect(lists.map((o) => o.op.operationId)).toEqual(
      expect.arrayContaining(['projects_list', 'workspace_members_list', 'project_members_list']),
    );
    for (const o of apiOps()) {
      const ok = Object.keys(o.op.responses).filter((s) => /^2\d\d$/.test(s));
      if (!ok.length) bad.push(`${o.method} ${o.path}: no 2xx response`);
    }
    for (const o of lists) {
      const schema = o.op.responses['200']?.content?.['application/json']?.schema;
      const titles = (schema?.oneOf ?? []).map((s: { title: string }) => s.title).sort();
      if (titles.join() !== 'CursorPage,OffsetPage') {
        bad.push(`${o.method} ${o.path}: no list envelope`);
        continue;
      }
      const [cursor, offset] = [
        schema.oneOf.find((s: any) => s.title === 'CursorPage'),
        schema.oneOf.find((s: any) => s.title === 'OffsetPage'),
      ];
      if (
        !Object.keys(offset.properties).includes('total_count') ||
        Object.keys(cursor.properties).includes('total_count')
      )
        bad.push(`${o.method} ${o.path}: envelope fields`);
      for (const p of ['per_page', 'offset', 'count', 'paginate', 'cursor', 'order_by']) {
        if (!o.op.parameters!.some((x) => x.name === p && x.in === 'query'))
          bad.push(`${o.method} ${o.path}: no ${p} parameter`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('documents expand with its enum exactly where the route accepts it, and nowhere else', () => {
    const bad: string[] = [];
    for (const o of apiOps()) {
      const r = routeOf(o)!;
      const param = (o.op.parameters ?? []).find((p) => p.name === 'expand');
      if (r.expand) {
        // A comma-separated list: an array in form style, not exploded (`expand=state,labels`).
        const ok =
          param &&
          param.schema?.type === 'array' &&
          JSON.stringify((param.schema as any).items?.enum) === JSON.stringify([...r.expand]) &&
          param.style === 'form' &&
          param.explode === false;
        if (!ok) bad.push(`${o.method} ${o.path}: expand ${JSON.stringify(param)}`);
      } else if (param) bad.push(`${o.method} ${o.path}: documents expand but accepts none`);
    }
    expect(bad).toEqual([]);
    const members = ops.find((o) => o.op.operationId === 'workspace_members_list')!;
    expect((members.op.parameters!.find((p) => p.name === 'expand')!.schema as any).items.enum).toEqual(['member']);
  });

  it('documents every path parameter of every operation', () => {
    const bad: string[] = [];
    for (const o of ops) {
      for (const name of [...o.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
        const prm = (o.op.parameters ?? []).find((p) => p.name === name && p.in === 'path');
        if (!prm) bad.push(`${o.method} ${o.path}: ${name}`);
        // Typed: ids are UUIDs (400 otherwise), slugs and identifiers strings; project_id is either (a project's
        // UUID or its identifier, gap-reference 9.5).
        const uuid = name !== 'project_id' && (name === 'pk' || name.endsWith('_id'));
        const want = uuid ? { type: 'string', format: 'uuid' } : { type: 'string' };
        if (prm && ((prm.schema as any)?.type !== want.type || (prm.schema as any)?.format !== (want as any).format))
          bad.push(`${o.method} ${o.path}: ${name} schema ${JSON.stringify(prm.schema)}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('every served /api/v2 route appears in the document with its trailing slash, and nothing else does', () => {
    const served = registeredRoutes()
      .filter((r) => r.url.startsWith('/api/v2/') && !r.url.startsWith('/api/v2/docs'))
      .flatMap((r) => r.methods.filter((m) => m !== 'HEAD' && m !== 'OPTIONS').map((m) => `${m} ${openApiPath(r.url)}`))
      .sort();
    const documented = ops.map((o) => `${o.method} ${o.path}`).sort();
    expect(served.length).toBeGreaterThan(5);
    expect(documented).toEqual(served);
  });

  it('the committed openapi.json equals the document the code generates', () => {
    const file = resolve(__dirname, '../../openapi.json');
    let committed: unknown;
    try {
      committed = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      committed = null;
    }
    const hint =
      'openapi.json is out of date with the code. Regenerate it with `npm run openapi:write` and commit it, so reviews see the API change.';
    if (JSON.stringify(sortKeys(committed)) !== JSON.stringify(sortKeys(doc))) {
      const diff = diffPaths(committed, doc).slice(0, 20);
      throw new Error(`${hint}\nFirst differences:\n  ${diff.join('\n  ')}`);
    }
  });
});

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** JSON paths where two documents differ (for a readable failure). */
function diffPaths(a: unknown, b: unknown, at = '$'): string[] {
  if (JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b))) return [];
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) =>
      diffPaths((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`),
    );
  }
  if (a === undefined) return [`${at}: only in the generated document`];
  if (b === undefined) return [`${at}: only in openapi.json`];
  return [`${at}: differs`];
}

/**
 * A problem body is the ProblemDto, or a schema extending it (bulk conflicts add `results`): every ProblemDto member,
 * typed alike, and every required one still required.
 */
function isProblemSchema(doc: any, ref: string | undefined): boolean {
  if (ref === '#/components/schemas/ProblemDto') return true;
  if (!ref?.startsWith('#/components/schemas/')) return false;
  const base = doc.components.schemas.ProblemDto;
  const own = doc.components.schemas[ref.slice('#/components/schemas/'.length)];
  if (!own?.properties) return false;
  const sameMembers = Object.entries<any>(base.properties).every(
    ([k, v]) => JSON.stringify(own.properties[k]) === JSON.stringify(v),
  );
  return sameMembers && (base.required ?? []).every((k: string) => (own.required ?? []).includes(k));
}
