import { hashSecret } from '../../src/common/auth/credentials';
import { SCOPES } from '../../src/common/auth/scopes';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

type User = { id: string; email: string; key: string };

describe('authentication, scopes and roles', () => {
  let t: TestApp;
  let ten: Tenant;
  let projectId: string;
  let ws: string;
  let pj: string;
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    projectId = (await t.project(ten.slug, ten.owner.key)).id;
    ws = `/api/v2/workspaces/${ten.slug}`;
    pj = `${ws}/projects/${projectId}`;
  });
  afterAll(() => t.close());

  const k = (u: { key: string }) => ({ 'X-Api-Key': u.key });
  const bearer = (tok: string) => ({ Authorization: `Bearer ${tok}` });

  /** Adds `user` to the project through the API as the workspace owner; returns the membership id. */
  async function addToProject(projId: string, user: User, role: string): Promise<string> {
    const res = await t.http
      .post(`${ws}/projects/${projId}/members/`)
      .set(k(ten.owner))
      .send({ member_id: user.id, role });
    if (res.status !== 201) throw new Error(`add member failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id;
  }

  describe('401 unauthorized', () => {
    it('without credentials', async () => {
      expectProblem(await t.http.get('/api/v2/users/me/'), 401, 'unauthorized');
      const res = await t.http.get(`${ws}/projects/`);
      expectProblem(res, 401, 'unauthorized');
      // RFC 9110: a 401 names the scheme it wants.
      expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
    });

    it('with an unknown API key, an empty one or a wrong header scheme', async () => {
      expectProblem(await t.http.get('/api/v2/users/me/').set('X-Api-Key', 'wt_api_nope'), 401, 'unauthorized');
      expectProblem(await t.http.get('/api/v2/users/me/').set('X-Api-Key', ''), 401, 'unauthorized');
      expectProblem(
        await t.http.get('/api/v2/users/me/').set('Authorization', `Basic ${ten.owner.key}`),
        401,
        'unauthorized',
      );
      expectProblem(await t.http.get('/api/v2/users/me/').set('Authorization', ten.owner.key), 401, 'unauthorized');
    });

    it('with a revoked API key (revoked through AdminService)', async () => {
      const u = await t.user();
      const created = await t.admin.createApiKey(u.email);
      expect((await t.http.get('/api/v2/users/me/').set('X-Api-Key', created.key)).status).toBe(200);
      await t.admin.revokeApiKey(created.id);
      expectProblem(await t.http.get('/api/v2/users/me/').set('X-Api-Key', created.key), 401, 'unauthorized');
      // The user's other key keeps working.
      expect((await t.http.get('/api/v2/users/me/').set(k(u))).status).toBe(200);
    });

    it('with an unknown or expired bearer token', async () => {
      expectProblem(await t.http.get('/api/v2/users/me/').set(bearer('wt_oat_nope')), 401, 'unauthorized');
      const tok = await t.token(ten.owner.email, ['read']);
      expect((await t.http.get('/api/v2/users/me/').set(bearer(tok))).status).toBe(200);
      await t.ds.query(`UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [
        hashSecret(tok),
      ]);
      await t.authChanged();
      expectProblem(await t.http.get('/api/v2/users/me/').set(bearer(tok)), 401, 'unauthorized');
    });

    it('with a revoked bearer token or one of a deactivated user', async () => {
      const tok = await t.token(ten.owner.email, ['read']);
      await t.ds.query(`UPDATE oauth_tokens SET revoked_at = now() WHERE token_hash = $1`, [hashSecret(tok)]);
      await t.authChanged();
      expectProblem(await t.http.get('/api/v2/users/me/').set(bearer(tok)), 401, 'unauthorized');
      const u = await t.user();
      await t.ds.query(`UPDATE users SET is_active = false WHERE id = $1`, [u.id]);
      await t.authChanged();
      expectProblem(await t.http.get('/api/v2/users/me/').set(k(u)), 401, 'unauthorized');
    });

    it('comes before the path checks: no credentials and a malformed project id is still 401', async () => {
      expectProblem(await t.http.get(`${ws}/projects/not-a-uuid/`), 401, 'unauthorized');
      expectProblem(await t.http.get(`/api/v2/workspaces/no-such-ws/projects/`), 401, 'unauthorized');
    });
  });

  describe('GET /api/v2/users/me/', () => {
    it('returns exactly the principal for an API key, scopes []', async () => {
      const res = await t.http.get('/api/v2/users/me/').set(k(ten.owner));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: ten.owner.id,
        email: ten.owner.email,
        display_name: 'Test User',
        principal_kind: 'api_key',
        scopes: [],
      });
      for (const gone of ['first_name', 'last_name', 'avatar', 'avatar_url']) expect(res.body).not.toHaveProperty(gone);
    });

    it('returns the granted scopes for an OAuth token', async () => {
      const tok = await t.token(ten.owner.email, ['projects:read', 'projects.members:read']);
      const res = await t.http.get('/api/v2/users/me/').set(bearer(tok));
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['display_name', 'email', 'id', 'principal_kind', 'scopes']);
      expect(res.body).toMatchObject({ id: ten.owner.id, principal_kind: 'oauth' });
      expect(res.body.scopes.sort()).toEqual(['projects.members:read', 'projects:read']);
    });

    it('accepts any read scope (global or fine-grained) and rejects a write-only token with 403', async () => {
      for (const scopes of [['read'], ['projects.states:read'], ['write', 'workspaces.members:read']]) {
        const tok = await t.token(ten.owner.email, scopes);
        expect((await t.http.get('/api/v2/users/me/').set(bearer(tok))).status).toBe(200);
      }
      for (const scopes of [['write'], ['projects:write', 'projects.members:write']]) {
        const tok = await t.token(ten.owner.email, scopes);
        expectProblem(await t.http.get('/api/v2/users/me/').set(bearer(tok)), 403, 'forbidden');
      }
    });

    it('documents exactly the scopes the guard accepts: one oauth2 alternative per read scope', async () => {
      const op = (await t.http.get('/api/v2/schema/')).body.paths['/api/v2/users/me/'].get;
      const security = op.security as Array<Record<string, string[]>>;
      expect(security).toContainEqual({ ApiKey: [] });
      const documented = security.filter((s) => s.oauth2).map((s) => s.oauth2);
      // Each alternative names one scope; together they are the global read and every *:read scope.
      expect(documented.every((s) => s.length === 1)).toBe(true);
      const scopes = documented.map((s) => s[0]).sort();
      expect(scopes).toEqual(
        Object.keys(SCOPES)
          .filter((s) => s === 'read' || s.endsWith(':read'))
          .sort(),
      );
      expect(op['x-required-scope']).toMatch(/any read scope/);
      // Each documented alternative is accepted on its own; no write scope is documented.
      for (const scope of scopes) {
        const tok = await t.token(ten.owner.email, [scope]);
        expect((await t.http.get('/api/v2/users/me/').set(bearer(tok))).status).toBe(200);
      }
      expect(scopes.some((s) => s.endsWith('write'))).toBe(false);
    });

    it('works for a user who belongs to no workspace', async () => {
      const u = await t.user();
      expect((await t.http.get('/api/v2/users/me/').set(k(u))).body.id).toBe(u.id);
    });
  });

  describe('OAuth scope ceiling', () => {
    it('a fine-grained scope passes; a missing one is 403 forbidden', async () => {
      const tok = await t.token(ten.owner.email, ['projects:read']);
      expect((await t.http.get(`${ws}/projects/`).set(bearer(tok))).status).toBe(200);
      expect((await t.http.get(`${pj}/`).set(bearer(tok))).status).toBe(200);
      const denied = expectProblem(
        await t.http.post(`${ws}/projects/`).set(bearer(tok)).send({ name: 'Scoped out' }),
        403,
        'forbidden',
      );
      expect(denied.detail).toContain('projects:write');
      expectProblem(await t.http.get(`${ws}/members/`).set(bearer(tok)), 403, 'forbidden');
      const other = await t.token(ten.owner.email, ['projects.states:read']);
      expectProblem(await t.http.get(`${ws}/projects/`).set(bearer(other)), 403, 'forbidden');
    });

    it('global read satisfies every GET and no write', async () => {
      const tok = await t.token(ten.owner.email, ['read']);
      for (const url of [`${ws}/projects/`, `${pj}/`, `${ws}/members/`, `${pj}/members/`]) {
        expect((await t.http.get(url).set(bearer(tok))).status).toBe(200);
      }
      expectProblem(
        await t.http.post(`${ws}/projects/`).set(bearer(tok)).send({ name: 'Read only' }),
        403,
        'forbidden',
      );
      expectProblem(await t.http.patch(`${pj}/`).set(bearer(tok)).send({ description: 'x' }), 403, 'forbidden');
      expectProblem(await t.http.delete(`${pj}/`).set(bearer(tok)), 403, 'forbidden');
    });

    it('global write satisfies writes (and not reads)', async () => {
      const tok = await t.token(ten.owner.email, ['write']);
      const created = await t.http.post(`${ws}/projects/`).set(bearer(tok)).send({ name: 'Written with write' });
      expect(created.status).toBe(201);
      expect(
        (await t.http.patch(`${ws}/projects/${created.body.id}/`).set(bearer(tok)).send({ description: 'ok' })).status,
      ).toBe(200);
      expectProblem(await t.http.get(`${ws}/projects/`).set(bearer(tok)), 403, 'forbidden');
      expect((await t.http.delete(`${ws}/projects/${created.body.id}/`).set(bearer(tok))).status).toBe(204);
    });

    it('workspaces.members:read also grants the project roster, not project member writes', async () => {
      const tok = await t.token(ten.owner.email, ['workspaces.members:read']);
      expect((await t.http.get(`${ws}/members/`).set(bearer(tok))).status).toBe(200);
      expect((await t.http.get(`${pj}/members/`).set(bearer(tok))).status).toBe(200);
      const u = await t.member(ten.slug, 'member');
      expectProblem(
        await t.http.post(`${pj}/members/`).set(bearer(tok)).send({ member_id: u.id, role: 'contributor' }),
        403,
        'forbidden',
      );
      const narrow = await t.token(ten.owner.email, ['projects.members:read']);
      expect((await t.http.get(`${pj}/members/`).set(bearer(narrow))).status).toBe(200);
      expectProblem(await t.http.get(`${ws}/members/`).set(bearer(narrow)), 403, 'forbidden');
    });

    it('scopes are a ceiling, not a grant: the role still applies to OAuth tokens', async () => {
      const guest = await t.member(ten.slug, 'guest');
      const tok = await t.token(guest.email, ['write', 'read']);
      expectProblem(
        await t.http.post(`${ws}/projects/`).set(bearer(tok)).send({ name: 'Guest project' }),
        403,
        'forbidden',
      );
    });

    it('the tenant wall comes before the scope check: a foreign workspace is 404 even for a token lacking the scope', async () => {
      const other = await t.tenant();
      const tok = await t.token(ten.owner.email, ['projects.states:read']);
      expectProblem(
        await t.http.get(`/api/v2/workspaces/${other.slug}/projects/`).set(bearer(tok)),
        404,
        'resource_not_found',
      );
    });
  });

  describe('workspace roles', () => {
    let guest: User;
    let member: User;
    let admin: User;
    let outsider: User;
    beforeAll(async () => {
      guest = await t.member(ten.slug, 'guest');
      member = await t.member(ten.slug, 'member');
      admin = await t.member(ten.slug, 'admin');
      outsider = await t.user();
    });

    it('non-members of the workspace get 404 on every workspace route, whatever they try', async () => {
      expectProblem(await t.http.get(`${ws}/projects/`).set(k(outsider)), 404, 'resource_not_found');
      expectProblem(await t.http.get(`${ws}/members/`).set(k(outsider)), 404, 'resource_not_found');
      expectProblem(
        await t.http.post(`${ws}/projects/`).set(k(outsider)).send({ name: 'x' }),
        404,
        'resource_not_found',
      );
      expectProblem(await t.http.get(`${pj}/`).set(k(outsider)), 404, 'resource_not_found');
      expectProblem(
        await t.http.get(`/api/v2/workspaces/does-not-exist/projects/`).set(k(outsider)),
        404,
        'resource_not_found',
      );
    });

    it('a removed (inactive or deleted) member is an outsider again', async () => {
      const gone = await t.member(ten.slug, 'member');
      expect((await t.http.get(`${ws}/projects/`).set(k(gone))).status).toBe(200);
      await t.ds.query(`UPDATE workspace_members SET is_active = false WHERE member_id = $1`, [gone.id]);
      await t.authChanged();
      expectProblem(await t.http.get(`${ws}/projects/`).set(k(gone)), 404, 'resource_not_found');
    });

    it('guest: lists projects, cannot read the workspace roster or create projects (403, never 404)', async () => {
      expect((await t.http.get(`${ws}/projects/`).set(k(guest))).status).toBe(200);
      expectProblem(await t.http.get(`${ws}/members/`).set(k(guest)), 403, 'forbidden');
      expectProblem(await t.http.post(`${ws}/projects/`).set(k(guest)).send({ name: 'Guest made' }), 403, 'forbidden');
    });

    it('member: reads the roster and creates projects, cannot change roles', async () => {
      expect((await t.http.get(`${ws}/members/`).set(k(member))).status).toBe(200);
      const p = await t.http.post(`${ws}/projects/`).set(k(member)).send({ name: 'Member made' });
      expect(p.status).toBe(201);
      const guestRow = await t.http.get(`${ws}/members/?member_id=${guest.id}`).set(k(member));
      expectProblem(
        await t.http.patch(`${ws}/members/${guestRow.body.data[0].id}/`).set(k(member)).send({ role: 'member' }),
        403,
        'forbidden',
      );
    });

    it('admin and owner change roles', async () => {
      const target = await t.member(ten.slug, 'guest');
      const row = (await t.http.get(`${ws}/members/?member_id=${target.id}`).set(k(admin))).body.data[0];
      const a = await t.http.patch(`${ws}/members/${row.id}/`).set(k(admin)).send({ role: 'member' });
      expect(a.status).toBe(200);
      expect(a.body).toEqual({ id: row.id, member_id: target.id, role: 'member' });
      const o = await t.http.patch(`${ws}/members/${row.id}/`).set(k(ten.owner)).send({ role: 'admin' });
      expect(o.body.role).toBe('admin');
    });

    it('member projects list shows only their projects; workspace admins and owners see all', async () => {
      const hidden = await t.project(ten.slug, ten.owner.key, { name: 'Hidden from members' });
      const ids = async (u: User) =>
        ((await t.http.get(`${ws}/projects/?per_page=200`).set(k(u))).body.data as Array<{ id: string }>).map(
          (p) => p.id,
        );
      expect(await ids(member)).not.toContain(hidden.id);
      expect(await ids(admin)).toContain(hidden.id);
      expect(await ids(ten.owner)).toContain(hidden.id);
    });
  });

  describe('project roles', () => {
    let p: { id: string };
    let purl: string;
    const users: Record<string, User> = {};
    beforeAll(async () => {
      p = await t.project(ten.slug, ten.owner.key, { name: 'Role matrix' });
      purl = `${ws}/projects/${p.id}`;
      for (const role of ['admin', 'contributor', 'commenter']) {
        users[role] = await t.member(ten.slug, 'member');
        await addToProject(p.id, users[role], role);
      }
      users.guest = await t.member(ten.slug, 'guest');
      await addToProject(p.id, users.guest, 'guest');
      users.none = await t.member(ten.slug, 'member');
      users.wsAdmin = await t.member(ten.slug, 'admin');
    });

    it('every project role reads the project and its roster', async () => {
      for (const role of ['admin', 'contributor', 'commenter', 'guest']) {
        expect((await t.http.get(`${purl}/`).set(k(users[role]))).status).toBe(200);
        expect((await t.http.get(`${purl}/members/`).set(k(users[role]))).status).toBe(200);
      }
    });

    it('a workspace member outside the project gets 403 (roles never cause 404)', async () => {
      expectProblem(await t.http.get(`${purl}/`).set(k(users.none)), 403, 'forbidden');
      expectProblem(await t.http.get(`${purl}/members/`).set(k(users.none)), 403, 'forbidden');
      expectProblem(await t.http.patch(`${purl}/`).set(k(users.none)).send({ description: 'x' }), 403, 'forbidden');
    });

    it('only project admins update or delete the project and manage members', async () => {
      for (const role of ['contributor', 'commenter', 'guest']) {
        const u = users[role];
        expectProblem(await t.http.patch(`${purl}/`).set(k(u)).send({ description: 'x' }), 403, 'forbidden');
        expectProblem(await t.http.delete(`${purl}/`).set(k(u)), 403, 'forbidden');
        expectProblem(
          await t.http.post(`${purl}/members/`).set(k(u)).send({ member_id: users.none.id, role: 'guest' }),
          403,
          'forbidden',
        );
      }
      expect(
        (await t.http.patch(`${purl}/`).set(k(users.admin)).send({ description: 'by project admin' })).status,
      ).toBe(200);
    });

    it('workspace owners and admins act as project admins without being listed', async () => {
      const roster = (await t.http.get(`${purl}/members/?per_page=200`).set(k(users.wsAdmin))).body.data as Array<{
        member_id: string;
      }>;
      expect(roster.map((r) => r.member_id)).not.toContain(users.wsAdmin.id);
      expect(
        (await t.http.patch(`${purl}/`).set(k(users.wsAdmin)).send({ description: 'by workspace admin' })).status,
      ).toBe(200);
      expect((await t.http.get(`${purl}/`).set(k(ten.owner))).body.description).toBe('by workspace admin');
    });

    it('a project id of another workspace is 404, also for the owner of that other workspace', async () => {
      const other = await t.tenant();
      const foreign = await t.project(other.slug, other.owner.key);
      expectProblem(await t.http.get(`${ws}/projects/${foreign.id}/`).set(k(ten.owner)), 404, 'resource_not_found');
      expectProblem(
        await t.http.get(`/api/v2/workspaces/${other.slug}/projects/${p.id}/`).set(k(other.owner)),
        404,
        'resource_not_found',
      );
    });
  });

  describe('workspace member PATCH hierarchy', () => {
    async function rowOf(u: { id: string }): Promise<string> {
      const res = await t.http.get(`${ws}/members/?member_id=${u.id}`).set(k(ten.owner));
      return res.body.data[0].id;
    }

    it('an admin cannot change another admin, an owner, or grant admin or owner', async () => {
      const admin = await t.member(ten.slug, 'admin');
      const admin2 = await t.member(ten.slug, 'admin');
      const member = await t.member(ten.slug, 'member');
      expectProblem(
        await t.http
          .patch(`${ws}/members/${await rowOf(admin2)}/`)
          .set(k(admin))
          .send({ role: 'member' }),
        403,
        'forbidden',
      );
      expectProblem(
        await t.http
          .patch(`${ws}/members/${await rowOf(ten.owner)}/`)
          .set(k(admin))
          .send({ role: 'member' }),
        403,
        'forbidden',
      );
      expectProblem(
        await t.http
          .patch(`${ws}/members/${await rowOf(member)}/`)
          .set(k(admin))
          .send({ role: 'admin' }),
        403,
        'forbidden',
      );
      expectProblem(
        await t.http
          .patch(`${ws}/members/${await rowOf(member)}/`)
          .set(k(admin))
          .send({ role: 'owner' }),
        403,
        'forbidden',
      );
      expectProblem(
        await t.http
          .patch(`${ws}/members/${await rowOf(admin)}/`)
          .set(k(admin))
          .send({ role: 'owner' }),
        403,
        'forbidden',
      );
      const ok = await t.http
        .patch(`${ws}/members/${await rowOf(member)}/`)
        .set(k(admin))
        .send({ role: 'guest' });
      expect(ok.status).toBe(200);
      expect(ok.body.role).toBe('guest');
    });

    it('the last owner cannot be demoted (409); with a second owner it can', async () => {
      const ownerRow = await rowOf(ten.owner);
      const res = expectProblem(
        await t.http.patch(`${ws}/members/${ownerRow}/`).set(k(ten.owner)).send({ role: 'admin' }),
        409,
        'conflict',
      );
      expect(res.detail).toMatch(/last owner/i);
      const second = await t.member(ten.slug, 'member');
      expect(
        (
          await t.http
            .patch(`${ws}/members/${await rowOf(second)}/`)
            .set(k(ten.owner))
            .send({ role: 'owner' })
        ).status,
      ).toBe(200);
      const demoted = await t.http
        .patch(`${ws}/members/${await rowOf(second)}/`)
        .set(k(ten.owner))
        .send({ role: 'member' });
      expect(demoted.status).toBe(200);
      expect(demoted.body.role).toBe('member');
    });

    it('validates the role and the path id', async () => {
      const m = await t.member(ten.slug, 'member');
      const bad = expectProblem(
        await t.http
          .patch(`${ws}/members/${await rowOf(m)}/`)
          .set(k(ten.owner))
          .send({ role: 'superuser' }),
        400,
        'validation_error',
      );
      expect(bad.errors[0].field).toBe('role');
      const badPk = expectProblem(
        await t.http.patch(`${ws}/members/nope/`).set(k(ten.owner)).send({ role: 'member' }),
        400,
        'validation_error',
      );
      expect(badPk.errors[0].field).toBe('pk');
      expectProblem(
        await t.http
          .patch(`${ws}/members/00000000-0000-4000-8000-000000000000/`)
          .set(k(ten.owner))
          .send({ role: 'member' }),
        404,
        'resource_not_found',
      );
    });

    it('a membership of another workspace is 404', async () => {
      const other = await t.tenant();
      const foreignRow = (await t.http.get(`/api/v2/workspaces/${other.slug}/members/`).set(k(other.owner))).body
        .data[0].id;
      expectProblem(
        await t.http.patch(`${ws}/members/${foreignRow}/`).set(k(ten.owner)).send({ role: 'member' }),
        404,
        'resource_not_found',
      );
      expectProblem(await t.http.get(`${ws}/members/${foreignRow}/`).set(k(ten.owner)), 404, 'resource_not_found');
    });

    it('demotion to guest caps the project roles at commenter', async () => {
      const u = await t.member(ten.slug, 'member');
      const p1 = await t.project(ten.slug, ten.owner.key);
      const p2 = await t.project(ten.slug, ten.owner.key);
      const m1 = await addToProject(p1.id, u, 'contributor');
      const m2 = await addToProject(p2.id, u, 'guest');
      expect(
        (
          await t.http
            .patch(`${ws}/members/${await rowOf(u)}/`)
            .set(k(ten.owner))
            .send({ role: 'guest' })
        ).status,
      ).toBe(200);
      expect((await t.http.get(`${ws}/projects/${p1.id}/members/${m1}/`).set(k(ten.owner))).body.role).toBe(
        'commenter',
      );
      expect((await t.http.get(`${ws}/projects/${p2.id}/members/${m2}/`).set(k(ten.owner))).body.role).toBe('guest');
      // Now a contributor role is refused for this guest.
      const refused = expectProblem(
        await t.http.patch(`${ws}/projects/${p1.id}/members/${m1}/`).set(k(ten.owner)).send({ role: 'contributor' }),
        400,
        'validation_error',
      );
      expect(refused.errors[0].field).toBe('role');
    });
  });

  describe('project members', () => {
    let p: { id: string };
    let url: string;
    beforeAll(async () => {
      p = await t.project(ten.slug, ten.owner.key, { name: 'Roster rules' });
      url = `${ws}/projects/${p.id}/members/`;
    });

    it('POST adds a workspace member and returns {id, member_id, role}; GET reads it, with expand=member', async () => {
      const u = await t.member(ten.slug, 'member');
      const res = await t.http.post(url).set(k(ten.owner)).send({ member_id: u.id, role: 'contributor' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.any(String), member_id: u.id, role: 'contributor' });
      const got = await t.http.get(`${url}${res.body.id}/?expand=member`).set(k(ten.owner));
      expect(got.body).toEqual({
        ...res.body,
        member: { id: u.id, display_name: 'Test User', avatar_url: null, email: u.email },
      });
      const list = await t.http.get(`${url}?member_id=${u.id}`).set(k(ten.owner));
      expect(list.body.data).toEqual([res.body]);
    });

    it('member_id must be an active member of this workspace: 400 naming member_id', async () => {
      const outsider = await t.user();
      const other = await t.tenant();
      for (const id of [outsider.id, other.owner.id, '00000000-0000-4000-8000-000000000000']) {
        const res = expectProblem(
          await t.http.post(url).set(k(ten.owner)).send({ member_id: id, role: 'guest' }),
          400,
          'validation_error',
        );
        expect(res.errors.map((e: { field: string }) => e.field)).toEqual(['member_id']);
      }
      const malformed = expectProblem(
        await t.http.post(url).set(k(ten.owner)).send({ member_id: 'nope', role: 'guest' }),
        400,
        'validation_error',
      );
      expect(malformed.errors[0].field).toBe('member_id');
      const badRole = expectProblem(
        await t.http.post(url).set(k(ten.owner)).send({ member_id: outsider.id, role: 'owner' }),
        400,
        'validation_error',
      );
      expect(badRole.errors[0].field).toBe('role');
    });

    it('a duplicate membership is 409', async () => {
      const u = await t.member(ten.slug, 'member');
      expect((await t.http.post(url).set(k(ten.owner)).send({ member_id: u.id, role: 'commenter' })).status).toBe(201);
      expectProblem(await t.http.post(url).set(k(ten.owner)).send({ member_id: u.id, role: 'guest' }), 409, 'conflict');
    });

    it('a workspace guest can only be a project guest or commenter (400 naming role)', async () => {
      const g = await t.member(ten.slug, 'guest');
      for (const role of ['admin', 'contributor']) {
        const res = expectProblem(
          await t.http.post(url).set(k(ten.owner)).send({ member_id: g.id, role }),
          400,
          'validation_error',
        );
        expect(res.errors[0].field).toBe('role');
      }
      expect((await t.http.post(url).set(k(ten.owner)).send({ member_id: g.id, role: 'commenter' })).status).toBe(201);
    });

    it('PATCH changes the role; the last project admin cannot be demoted or removed (409)', async () => {
      // Created by a workspace member, its only listed admin (a workspace owner's membership is always admin).
      const maker = await t.member(ten.slug, 'member');
      const q = await t.project(ten.slug, maker.key, { name: 'Last admin' });
      const qurl = `${ws}/projects/${q.id}/members/`;
      const roster = (await t.http.get(qurl).set(k(ten.owner))).body.data as Array<{
        id: string;
        member_id: string;
        role: string;
      }>;
      const creator = roster.find((r) => r.member_id === maker.id)!;
      expect(creator.role).toBe('admin');
      expectProblem(
        await t.http.patch(`${qurl}${creator.id}/`).set(k(ten.owner)).send({ role: 'contributor' }),
        409,
        'conflict',
      );
      expectProblem(await t.http.delete(`${qurl}${creator.id}/`).set(k(ten.owner)), 409, 'conflict');
      const u = await t.member(ten.slug, 'member');
      const added = await addToProject(q.id, u, 'contributor');
      const promoted = await t.http.patch(`${qurl}${added}/`).set(k(ten.owner)).send({ role: 'admin' });
      expect(promoted.body).toEqual({ id: added, member_id: u.id, role: 'admin' });
      expect((await t.http.patch(`${qurl}${creator.id}/`).set(k(ten.owner)).send({ role: 'contributor' })).status).toBe(
        200,
      );
      expectProblem(await t.http.delete(`${qurl}${added}/`).set(k(ten.owner)), 409, 'conflict');
    });

    it('DELETE is 204 and soft; a repeat is 404; the user loses access', async () => {
      const u = await t.member(ten.slug, 'member');
      const id = await addToProject(p.id, u, 'contributor');
      expect((await t.http.get(`${ws}/projects/${p.id}/`).set(k(u))).status).toBe(200);
      const del = await t.http.delete(`${url}${id}/`).set(k(ten.owner));
      expect(del.status).toBe(204);
      expect(del.text).toBe('');
      expectProblem(await t.http.delete(`${url}${id}/`).set(k(ten.owner)), 404, 'resource_not_found');
      expectProblem(await t.http.get(`${url}${id}/`).set(k(ten.owner)), 404, 'resource_not_found');
      expectProblem(
        await t.http.patch(`${url}${id}/`).set(k(ten.owner)).send({ role: 'guest' }),
        404,
        'resource_not_found',
      );
      expectProblem(await t.http.get(`${ws}/projects/${p.id}/`).set(k(u)), 403, 'forbidden');
      const rows = await t.ds.query(`SELECT deleted_at FROM project_members WHERE id = $1`, [id]);
      expect(rows[0].deleted_at).not.toBeNull();
      // Re-adding after removal works (the uniqueness covers live rows only).
      expect((await t.http.post(url).set(k(ten.owner)).send({ member_id: u.id, role: 'guest' })).status).toBe(201);
    });

    it('a membership id of another project is 404', async () => {
      const q = await t.project(ten.slug, ten.owner.key);
      const foreign = (await t.http.get(`${ws}/projects/${q.id}/members/`).set(k(ten.owner))).body.data[0].id;
      expectProblem(await t.http.get(`${url}${foreign}/`).set(k(ten.owner)), 404, 'resource_not_found');
      expectProblem(await t.http.delete(`${url}${foreign}/`).set(k(ten.owner)), 404, 'resource_not_found');
    });
  });
});
