import { ExecutionContext } from '@nestjs/common';
import { TypeModeGuard } from '../../src/work-item-types/type-surface';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';
import { audits, ok, typeApi } from '../helpers/type-fixtures';

type Call = { label: string; method: 'post' | 'patch' | 'del'; url: string; body?: unknown };

/**
 * The work item type mode gates every write of both surfaces, once, centrally; reads never 409.
 */
describe('work item type mode gating', () => {
  let t: TestApp;
  let ten: Tenant;
  let api: ReturnType<typeof typeApi>;
  let projectId: string;
  let pr: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    api = typeApi(t, ten);
    projectId = (await t.project(ten.slug, ten.owner.key)).id;
    pr = api.pr(projectId);
    // Project-level catalogue, built in project mode.
    ids.pTask = ok(await api.post(`${pr}/work-item-types/enable/`)).id;
    ids.pType = ok(await api.post(`${pr}/work-item-types/`, { name: 'Bug' }), 201).id;
    const pp = ok(
      await api.post(`${pr}/work-item-properties/`, {
        display_name: 'Sev',
        property_type: 'OPTION',
        options: [{ name: 'a' }],
      }),
      201,
    );
    ids.pProp = pp.id;
    ids.pOpt = pp.options[0].id;
    ok(await api.post(`${pr}/work-item-types/${ids.pType}/properties/`, { properties: [ids.pProp] }), 201);
    // Workspace-level catalogue, built in workspace mode.
    await api.mode(true);
    ids.wDefault = ok(await api.post(`${api.ws}/work-item-types/`, { name: 'Incident' }), 201).id;
    ids.wType = ok(await api.post(`${api.ws}/work-item-types/`, { name: 'Request' }), 201).id;
    const wp = ok(
      await api.post(`${api.ws}/work-item-properties/`, {
        display_name: 'Impact',
        property_type: 'OPTION',
        options: [{ name: 'b' }],
      }),
      201,
    );
    ids.wProp = wp.id;
    ids.wOpt = wp.options[0].id;
    ids.wCtx = ok(await api.get(`${api.ws}/work-item-properties/${wp.id}/contexts/`)).data[0].id;
    ok(await api.post(`${api.ws}/work-item-types/${ids.wType}/properties/`, { properties: [ids.wProp] }), 201);
    await api.mode(false);
  });
  afterAll(() => t.close());

  const projectWrites = (): Call[] => [
    { label: 'create type', method: 'post', url: `${pr}/work-item-types/`, body: { name: 'Blocked' } },
    { label: 'enable', method: 'post', url: `${pr}/work-item-types/enable/` },
    { label: 'update type', method: 'patch', url: `${pr}/work-item-types/${ids.pType}/`, body: { name: 'Blocked' } },
    { label: 'delete type', method: 'del', url: `${pr}/work-item-types/${ids.pType}/` },
    { label: 'mark default', method: 'post', url: `${pr}/work-item-types/${ids.pType}/mark-default/` },
    {
      label: 'attach properties',
      method: 'post',
      url: `${pr}/work-item-types/${ids.pType}/properties/`,
      body: { properties: [ids.pProp] },
    },
    { label: 'detach property', method: 'del', url: `${pr}/work-item-types/${ids.pType}/properties/${ids.pProp}/` },
    {
      label: 'create property',
      method: 'post',
      url: `${pr}/work-item-properties/`,
      body: { display_name: 'Blocked', property_type: 'TEXT' },
    },
    {
      label: 'update property',
      method: 'patch',
      url: `${pr}/work-item-properties/${ids.pProp}/`,
      body: { display_name: 'Blocked' },
    },
    { label: 'delete property', method: 'del', url: `${pr}/work-item-properties/${ids.pProp}/` },
    {
      label: 'create option',
      method: 'post',
      url: `${pr}/work-item-properties/${ids.pProp}/options/`,
      body: { name: 'Blocked' },
    },
    {
      label: 'update option',
      method: 'patch',
      url: `${pr}/work-item-properties/${ids.pProp}/options/${ids.pOpt}/`,
      body: { name: 'Blocked' },
    },
    { label: 'delete option', method: 'del', url: `${pr}/work-item-properties/${ids.pProp}/options/${ids.pOpt}/` },
  ];
  const workspaceWrites = (): Call[] => [
    {
      label: 'import (project path)',
      method: 'post',
      url: `${pr}/work-item-types/import/`,
      body: { work_item_types: [ids.wType] },
    },
    { label: 'create type', method: 'post', url: `${api.ws}/work-item-types/`, body: { name: 'Blocked' } },
    {
      label: 'update type',
      method: 'patch',
      url: `${api.ws}/work-item-types/${ids.wType}/`,
      body: { name: 'Blocked' },
    },
    { label: 'delete type', method: 'del', url: `${api.ws}/work-item-types/${ids.wType}/` },
    { label: 'mark default', method: 'post', url: `${api.ws}/work-item-types/${ids.wType}/mark-default/` },
    {
      label: 'attach properties',
      method: 'post',
      url: `${api.ws}/work-item-types/${ids.wType}/properties/`,
      body: { properties: [ids.wProp] },
    },
    { label: 'detach property', method: 'del', url: `${api.ws}/work-item-types/${ids.wType}/properties/${ids.wProp}/` },
    {
      label: 'create property',
      method: 'post',
      url: `${api.ws}/work-item-properties/`,
      body: { display_name: 'Blocked', property_type: 'TEXT' },
    },
    {
      label: 'update property',
      method: 'patch',
      url: `${api.ws}/work-item-properties/${ids.wProp}/`,
      body: { display_name: 'Blocked' },
    },
    { label: 'delete property', method: 'del', url: `${api.ws}/work-item-properties/${ids.wProp}/` },
    {
      label: 'create option',
      method: 'post',
      url: `${api.ws}/work-item-properties/${ids.wProp}/options/`,
      body: { name: 'Blocked' },
    },
    {
      label: 'update option',
      method: 'patch',
      url: `${api.ws}/work-item-properties/${ids.wProp}/options/${ids.wOpt}/`,
      body: { name: 'Blocked' },
    },
    { label: 'delete option', method: 'del', url: `${api.ws}/work-item-properties/${ids.wProp}/options/${ids.wOpt}/` },
    {
      label: 'create context',
      method: 'post',
      url: `${api.ws}/work-item-properties/${ids.wProp}/contexts/`,
      body: { name: 'Blocked', project_ids: [projectId], issue_type_ids: [ids.wType] },
    },
    {
      label: 'update context',
      method: 'patch',
      url: `${api.ws}/work-item-properties/${ids.wProp}/contexts/${ids.wCtx}/`,
      body: { name: 'Blocked' },
    },
    {
      label: 'delete context',
      method: 'del',
      url: `${api.ws}/work-item-properties/${ids.wProp}/contexts/${ids.wCtx}/`,
    },
  ];
  const send = (c: Call) =>
    c.method === 'post' ? api.post(c.url, c.body) : c.method === 'patch' ? api.patch(c.url, c.body) : api.del(c.url);

  const reads = (): string[] => [
    `${pr}/work-item-types/`,
    `${pr}/work-item-types/${ids.pType}/`,
    `${pr}/work-item-types/${ids.pType}/schema/`,
    `${pr}/work-item-types/${ids.pType}/properties/`,
    `${pr}/work-item-types/${ids.pType}/properties/${ids.pProp}/`,
    `${pr}/work-item-properties/`,
    `${pr}/work-item-properties/${ids.pProp}/`,
    `${pr}/work-item-properties/${ids.pProp}/options/`,
    `${pr}/work-item-properties/${ids.pProp}/options/${ids.pOpt}/`,
    `${api.ws}/work-item-types/`,
    `${api.ws}/work-item-types/${ids.wType}/`,
    `${api.ws}/work-item-types/${ids.wType}/properties/`,
    `${api.ws}/work-item-types/${ids.wType}/properties/${ids.wProp}/`,
    `${api.ws}/work-item-properties/`,
    `${api.ws}/work-item-properties/${ids.wProp}/`,
    `${api.ws}/work-item-properties/${ids.wProp}/options/`,
    `${api.ws}/work-item-properties/${ids.wProp}/options/${ids.wOpt}/`,
    `${api.ws}/work-item-properties/${ids.wProp}/contexts/`,
    `${api.ws}/work-item-properties/${ids.wProp}/contexts/${ids.wCtx}/`,
  ];

  it('workspace mode: every project-surface write is 409 work_item_types_managed_at_workspace, audited, nothing changed', async () => {
    await api.mode(true);
    // The repeat at the end must fall in the aggregation window of the first call's entry (windows are aligned to the
    // clock, AUDIT_FAILURE_WINDOW_SECONDS long): start with at least a third of the current window (at most 20 s) left.
    const windowMs = Number(process.env.AUDIT_FAILURE_WINDOW_SECONDS ?? 60) * 1000;
    const margin = Math.min(20_000, windowMs / 3);
    while (windowMs - (Date.now() % windowMs) < margin) await new Promise((r) => setTimeout(r, 100));
    const before = (await audits(t, ten, 'work_item_types.surface_conflict')).length;
    const calls = projectWrites();
    for (const c of calls) {
      const body = expectProblem(await send(c), 409, 'work_item_types_managed_at_workspace');
      expect({ label: c.label, detail: body.detail }).toEqual({
        label: c.label,
        detail: expect.stringContaining('workspace level'),
      });
    }
    const entries = (await audits(t, ten, 'work_item_types.surface_conflict')).slice(before);
    expect(entries).toHaveLength(calls.length);
    for (const e of entries) {
      expect(e).toMatchObject({
        category: 'settings',
        outcome: 'failure',
        reason: 'work_item_types_managed_at_workspace',
        actor_id: ten.owner.id,
        project_id: projectId,
        target_type: 'workspace',
        target_id: ten.workspaceId,
      });
      expect(e.metadata).toMatchObject({
        surface: 'project',
        mode: 'workspace',
        method: expect.stringMatching(/^(POST|PATCH|DELETE)$/),
        route: expect.stringContaining('/work-item-'),
      });
    }
    // A repeat of the same refused operation is aggregated into the existing entry (flood protection).
    expectProblem(await send(calls[0]), 409, 'work_item_types_managed_at_workspace');
    expect((await audits(t, ten, 'work_item_types.surface_conflict')).slice(before)).toHaveLength(calls.length);
    expect(ok(await api.get(`${pr}/work-item-types/${ids.pType}/`)).name).toBe('Bug');
    expect(ok(await api.get(`${pr}/work-item-properties/${ids.pProp}/`)).display_name).toBe('Sev');
    expect(ok(await api.get(`${pr}/work-item-types/`)).data.some((x: { name: string }) => x.name === 'Blocked')).toBe(
      false,
    );
  });

  it('project mode: every workspace-surface write, and import, is 409 work_item_types_managed_at_project, audited, nothing changed', async () => {
    await api.mode(false);
    const before = (await audits(t, ten, 'work_item_types.surface_conflict')).length;
    const calls = workspaceWrites();
    for (const c of calls) {
      const body = expectProblem(await send(c), 409, 'work_item_types_managed_at_project');
      expect({ label: c.label, detail: body.detail }).toEqual({
        label: c.label,
        detail: expect.stringContaining('per project'),
      });
    }
    const entries = (await audits(t, ten, 'work_item_types.surface_conflict')).slice(before);
    expect(entries).toHaveLength(calls.length);
    expect(new Set(entries.map((e) => e.reason))).toEqual(new Set(['work_item_types_managed_at_project']));
    expect(entries[0]).toMatchObject({ outcome: 'failure', project_id: projectId });
    expect(entries[0].metadata).toMatchObject({ surface: 'workspace', mode: 'project', method: 'POST' });
    expect(entries[1]).toMatchObject({ project_id: null });
    expect(ok(await api.get(`${api.ws}/work-item-types/${ids.wType}/`)).name).toBe('Request');
    expect(ok(await api.get(`${pr}/work-item-types/`)).data.some((x: { id: string }) => x.id === ids.wType)).toBe(
      false,
    );
    expect(ok(await api.get(`${api.ws}/work-item-properties/${ids.wProp}/contexts/${ids.wCtx}/`)).name).toBe('Default');
  });

  it('the same writes pass the gate in the right mode', async () => {
    await api.mode(false);
    ok(await api.patch(`${pr}/work-item-types/${ids.pType}/`, { description: 'project mode write' }));
    await api.mode(true);
    ok(await api.patch(`${api.ws}/work-item-types/${ids.wType}/`, { description: 'workspace mode write' }));
    ok(await api.post(`${pr}/work-item-types/import/`, { work_item_types: [ids.wType] }));
    expect(ok(await api.get(`${pr}/work-item-types/`)).data.some((x: { id: string }) => x.id === ids.wType)).toBe(true);
  });

  it('reads on both surfaces work in either mode and never 409', async () => {
    for (const mode of [true, false]) {
      await api.mode(mode);
      for (const url of reads()) {
        const res = await api.get(url);
        expect({ url, mode, status: res.status }).toEqual({ url, mode, status: 200 });
      }
    }
  });

  it('the gate runs after authentication, tenancy and role checks and before body validation', async () => {
    await api.mode(true);
    // Invalid body on the wrong surface: still the mode 409 (the gate comes first).
    expectProblem(await api.post(`${pr}/work-item-types/`, { name: 12 }), 409, 'work_item_types_managed_at_workspace');
    expectProblem(await api.post(`${pr}/work-item-properties/`, {}), 409, 'work_item_types_managed_at_workspace');
    // Unknown project: 404; no credentials: 401; insufficient role: 403 — not 409.
    expectProblem(
      await api.post(`${api.ws}/projects/00000000-0000-4000-8000-000000000000/work-item-types/`, { name: 'x' }),
      404,
      'resource_not_found',
    );
    expectProblem(await t.http.post(`${pr}/work-item-types/`).send({ name: 'x' }), 401, 'unauthorized');
    const contributor = await api.projectMember(projectId, 'contributor');
    expectProblem(
      await t.http.post(`${pr}/work-item-types/`).set('X-Api-Key', contributor.key).send({ name: 'x' }),
      403,
      'forbidden',
    );
    const member = await t.member(ten.slug, 'member');
    await api.mode(false);
    expectProblem(
      await t.http.post(`${api.ws}/work-item-types/`).set('X-Api-Key', member.key).send({ name: 'x' }),
      403,
      'forbidden',
    );
  });

  it('the guard refuses a write route that does not declare its surface', async () => {
    const guard = t.app.get(TypeModeGuard);
    const req = { method: 'POST', url: '/x', routeOptions: { url: '/x' }, ctx: { workspace: { id: ten.workspaceId } } };
    const fake = {
      switchToHttp: () => ({ getRequest: () => req }),
      getHandler: () => function undeclared() {},
    } as unknown as ExecutionContext;
    await expect(guard.canActivate(fake)).rejects.toThrow(/lacks @TypeSurface/);
    req.method = 'GET';
    await expect(guard.canActivate(fake)).resolves.toBe(true);
  });

  it('the OpenAPI document gives every gated write its 409 code and mode, and no read a mode 409', async () => {
    const doc = ok(await t.http.get('/api/v2/schema/'));
    const gated: string[] = [];
    const bad: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      if (!/\/work-item-(types|properties)\//.test(path)) continue;
      for (const [method, op] of Object.entries<any>(item)) {
        const r409 = op.responses?.['409']?.description ?? '';
        if (method === 'get') {
          if (/managed_at/.test(r409)) bad.push(`GET ${path}`);
          continue;
        }
        const mode = op['x-work-item-type-mode'];
        const code =
          mode === 'workspace' ? 'work_item_types_managed_at_project' : 'work_item_types_managed_at_workspace';
        if (!mode || !r409.includes(code)) bad.push(`${method.toUpperCase()} ${path}`);
        gated.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(bad).toEqual([]);
    expect(gated).toHaveLength(29);
  });
});
