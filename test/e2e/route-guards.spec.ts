import { INTERCEPTORS_METADATA } from '@nestjs/common/constants';
import { AuthCacheInvalidator, CHANGES_CREDENTIALS_META } from '../../src/common/auth/auth-cache';
import { registeredRoutes } from '../../src/common/http/route-registry';
import { createTestApp, TestApp } from '../helpers/test-app';
import { ControllerRoute, controllerRoutes } from '../helpers/routes';

/**
 * Walks every route of the application and fails on any route whose access rule is missing or does
 * not fit its path, so a new controller cannot ship without a declared scope and role.
 */
describe('route guards: every route declares its access rule', () => {
  let t: TestApp;
  let routes: ControllerRoute[];
  beforeAll(async () => {
    t = await createTestApp();
    routes = controllerRoutes(t.app);
  });
  afterAll(() => t.close());

  const label = (r: ControllerRoute) => `${r.method} ${r.path} (${r.controller}.${r.handler})`;

  it('finds the routes of the app (the walk itself works)', () => {
    const names = routes.map((r) => `${r.method} ${r.path}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'GET /api/v2/users/me',
        'GET /api/v2/workspaces/:slug/projects',
        'PATCH /api/v2/workspaces/:slug/projects/:project_id',
        'GET /api/v2/workspaces/:slug/members',
        'DELETE /api/v2/workspaces/:slug/projects/:project_id/members/:pk',
        'GET /api/v2/schema',
      ]),
    );
    expect(routes.length).toBeGreaterThan(10);
  });

  it('every served /api/v2 route belongs to a controller route that was walked', () => {
    const known = new Set(routes.map((r) => `${r.method} ${r.path}`));
    const served = registeredRoutes()
      .filter((r) => r.url.startsWith('/api/v2/') && !r.url.startsWith('/api/v2/docs'))
      .flatMap((r) => r.methods.filter((m) => m !== 'HEAD' && m !== 'OPTIONS').map((m) => `${m} ${r.url}`));
    expect(served.length).toBeGreaterThan(0);
    expect(served.filter((s) => !known.has(s))).toEqual([]);
  });

  it('no route lacks @Authenticated or @Public', () => {
    const bare = routes.filter((r) => !r.rule && !r.isPublic).map(label);
    expect(bare).toEqual([]);
  });

  it('public routes are only the probes, the schema, the error catalogue, /metrics (its own token) and the OAuth authorization server (its own client auth)', () => {
    const pub = routes
      .filter((r) => r.isPublic)
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    // (The walk shows paths as Nest declares them, without the trailing slash the public URLs carry.)
    expect(pub).toEqual(
      [
        'GET /.well-known/oauth-authorization-server',
        'GET /api/v2/schema',
        'GET /api/v1/schema',
        'GET /errors',
        'GET /errors/:code',
        'GET /auth/o/authorize-app',
        'GET /auth/o/authorize',
        'GET /auth/o/authorize/:uid',
        'GET /auth/o/interaction/:uid',
        'GET /healthz',
        'GET /metrics',
        'GET /readyz',
        'POST /auth/o/interaction/:uid/consent',
        'POST /auth/o/interaction/:uid/login',
        'POST /auth/o/introspect',
        'POST /auth/o/revoke',
        'POST /auth/o/token',
      ].sort(),
    );
  });

  it('every authenticated route names a scope', () => {
    const missing = routes.filter((r) => r.rule && !r.rule.scope).map(label);
    expect(missing).toEqual([]);
  });

  it('every /projects/:project_id/ route declares a project role', () => {
    const bad = routes.filter((r) => r.rule && r.path.includes('/:project_id') && !r.rule.project).map(label);
    expect(bad).toEqual([]);
  });

  it('every /workspaces/:slug/ route declares a workspace or project role', () => {
    const bad = routes
      .filter((r) => r.rule && r.path.includes('/workspaces/:slug') && !r.rule.workspace && !r.rule.project)
      .map(label);
    expect(bad).toEqual([]);
  });

  it('a project role appears only on routes that resolve a project, a workspace role only on workspace routes', () => {
    const projectWithoutId = routes.filter((r) => r.rule?.project && !r.path.includes('/:project_id')).map(label);
    const workspaceWithoutSlug = routes.filter((r) => r.rule?.workspace && !r.path.includes('/:slug')).map(label);
    expect(projectWithoutId).toEqual([]);
    expect(workspaceWithoutSlug).toEqual([]);
  });

  it('tenant routes name their parameters slug and project_id (the guard resolves only those)', () => {
    const bad = routes
      .filter((r) => r.path.includes('/workspaces/') && !r.path.includes('/workspaces/:slug'))
      .concat(routes.filter((r) => /\/projects\/:(?!project_id\b)/.test(r.path)))
      .map(label);
    expect(bad).toEqual([]);
  });

  it('write routes never declare a read scope, and read routes never a write scope', () => {
    const bad = routes
      .filter((r) => r.rule && r.rule.scope !== 'any-read')
      .filter((r) => (r.method === 'GET') !== r.rule!.scope.endsWith(':read') && r.rule!.scope !== 'read')
      .map((r) => `${label(r)} scope ${r.rule!.scope}`);
    expect(bad).toEqual([]);
  });

  it('a controller that writes through a service changing resolved credentials empties the auth cache itself', () => {
    const bad = routes
      .filter((r) => r.method !== 'GET' && changesCredentials(r.controllerClass))
      .filter((r) => !interceptors(r).includes(AuthCacheInvalidator))
      .map((r) => `${label(r)}: add @InvalidatesAuthCache() to ${r.controller}`);
    expect(bad).toEqual([]);
  });
});

/**
 * Whether the controller injects a service marked ChangesResolvedCredentials. Direct injection only: a service
 * that merely reads projects (a mapper resolving identifiers) must not make every write of its users empty the cache.
 */
function changesCredentials(cls: unknown): boolean {
  const params = (Reflect.getMetadata('design:paramtypes', cls as object) ?? []) as object[];
  return params.some((p) => p && Reflect.getMetadata(CHANGES_CREDENTIALS_META, p));
}

function interceptors(r: ControllerRoute): unknown[] {
  const handler = (r.controllerClass.prototype as Record<string, object>)[r.handler];
  return [
    ...((Reflect.getMetadata(INTERCEPTORS_METADATA, r.controllerClass) as unknown[]) ?? []),
    ...((Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[]) ?? []),
  ];
}
