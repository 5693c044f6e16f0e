import { auditEntries } from '../helpers/audit';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

describe('workspace and project features', () => {
  let t: TestApp;
  let ten: Tenant;
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
  });
  afterAll(() => t.close());

  const wsUrl = (slug = ten.slug) => `/api/v2/workspaces/${slug}/features/`;
  const prUrl = (projectId: string, slug = ten.slug) => `/api/v2/workspaces/${slug}/projects/${projectId}/features/`;
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });
  /** The workspace's entries of one event, through the audit-log API (owner's key), in commit order. */
  const audits = (tenant: Tenant, eventName: string) => auditEntries(t, tenant, { event_name: eventName });

  describe('workspace features', () => {
    it('GET returns every field of the reference with defaults', async () => {
      const own = await t.tenant();
      const res = await t.http.get(wsUrl(own.slug)).set(key(own.owner.key));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        is_work_item_types_enabled: false,
        work_item_type_default_level: 0,
        is_workitem_hierarchy_enabled: false,
        is_project_grouping_enabled: false,
        is_teams_enabled: false,
        is_wiki_enabled: false,
        is_initiative_enabled: false,
        is_customer_enabled: false,
        is_release_enabled: false,
        is_state_duration_enabled: false,
        is_pi_enabled: false,
        is_custom_properties_enabled: true,
        created_at: expect.any(String),
      });
      // Stable: the same object on a second read.
      expect((await t.http.get(wsUrl(own.slug)).set(key(own.owner.key))).body.id).toBe(res.body.id);
    });

    it('PATCH is partial, returns the full object and persists', async () => {
      const own = await t.tenant();
      const res = await t.http
        .patch(wsUrl(own.slug))
        .set(key(own.owner.key))
        .send({ is_wiki_enabled: true, work_item_type_default_level: 3 });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        is_wiki_enabled: true,
        work_item_type_default_level: 3,
        is_teams_enabled: false,
        is_custom_properties_enabled: true,
      });
      const again = await t.http.patch(wsUrl(own.slug)).set(key(own.owner.key)).send({ is_teams_enabled: true });
      expect(again.body).toMatchObject({
        is_wiki_enabled: true,
        is_teams_enabled: true,
        work_item_type_default_level: 3,
      });
      const get = await t.http.get(wsUrl(own.slug)).set(key(own.owner.key));
      expect(get.body).toEqual(again.body);
      const neg = await t.http
        .patch(wsUrl(own.slug))
        .set(key(own.owner.key))
        .send({ work_item_type_default_level: -2 });
      expect(neg.body.work_item_type_default_level).toBe(-2);
    });

    it('rejects a non-boolean flag and a non-integer level with 400 naming the field', async () => {
      for (const bad of ['true', 1, 0, null, {}, []]) {
        const res = await t.http.patch(wsUrl()).set(key()).send({ is_wiki_enabled: bad });
        expect(
          new Set(expectProblem(res, 400, 'validation_error').errors.map((e: { field: string }) => e.field)),
        ).toEqual(new Set(['is_wiki_enabled']));
      }
      for (const bad of [1.5, '2', true, null]) {
        const res = await t.http.patch(wsUrl()).set(key()).send({ work_item_type_default_level: bad });
        expect(expectProblem(res, 400, 'validation_error').errors[0].field).toBe('work_item_type_default_level');
      }
      expectProblem(
        await t.http
          .patch(wsUrl())
          .set(key())
          .send({ work_item_type_default_level: 2 ** 40 }),
        400,
        'validation_error',
      );
      const mixed = await t.http.patch(wsUrl()).set(key()).send({ is_teams_enabled: true, is_pi_enabled: 'yes' });
      expectProblem(mixed, 400, 'validation_error');
      // Nothing of a rejected request is applied.
      expect((await t.http.get(wsUrl()).set(key())).body.is_teams_enabled).toBe(false);
    });

    it('ignores unknown keys and read-only fields', async () => {
      const own = await t.tenant();
      const before = (await t.http.get(wsUrl(own.slug)).set(key(own.owner.key))).body;
      const res = await t.http.patch(wsUrl(own.slug)).set(key(own.owner.key)).send({
        is_work_item_hierarchy_enabled: true,
        id: '00000000-0000-4000-8000-000000000001',
        created_at: '2000-01-01T00:00:00Z',
        nonsense: 1,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(before);
      expect(await audits(own, 'workspace.features_updated')).toHaveLength(0);
    });

    it('PATCH is for owners and admins; reads for every workspace member', async () => {
      const admin = await t.member(ten.slug, 'admin');
      const member = await t.member(ten.slug, 'member');
      const guest = await t.member(ten.slug, 'guest');
      expect((await t.http.patch(wsUrl()).set(key(admin.key)).send({ is_release_enabled: true })).status).toBe(200);
      expectProblem(
        await t.http.patch(wsUrl()).set(key(member.key)).send({ is_release_enabled: false }),
        403,
        'forbidden',
      );
      expectProblem(
        await t.http.patch(wsUrl()).set(key(guest.key)).send({ is_release_enabled: false }),
        403,
        'forbidden',
      );
      expect((await t.http.get(wsUrl()).set(key(member.key))).body.is_release_enabled).toBe(true);
      expect((await t.http.get(wsUrl()).set(key(guest.key))).status).toBe(200);
    });

    it('enforces the workspaces.features scopes on OAuth tokens', async () => {
      const readTok = await t.token(ten.owner.email, ['workspaces.features:read']);
      const writeTok = await t.token(ten.owner.email, ['workspaces.features:write']);
      const otherTok = await t.token(ten.owner.email, ['projects.cycles:read']);
      const bearer = (tok: string) => ({ Authorization: `Bearer ${tok}` });
      expect((await t.http.get(wsUrl()).set(bearer(readTok))).status).toBe(200);
      expectProblem(await t.http.patch(wsUrl()).set(bearer(readTok)).send({ is_pi_enabled: true }), 403, 'forbidden');
      expect((await t.http.patch(wsUrl()).set(bearer(writeTok)).send({ is_pi_enabled: true })).status).toBe(200);
      expectProblem(await t.http.get(wsUrl()).set(bearer(otherTok)), 403, 'forbidden');
      expectProblem(await t.http.get(wsUrl()), 401, 'unauthorized');
    });

    it("another tenant's workspace is 404", async () => {
      const other = await t.tenant();
      expectProblem(await t.http.get(wsUrl(other.slug)).set(key()), 404, 'resource_not_found');
      expectProblem(
        await t.http.patch(wsUrl(other.slug)).set(key()).send({ is_pi_enabled: true }),
        404,
        'resource_not_found',
      );
      expect((await t.http.get(wsUrl(other.slug)).set(key(other.owner.key))).body.is_pi_enabled).toBe(false);
    });

    it('records every change in the audit trail with old and new values, in category settings', async () => {
      const own = await t.tenant();
      await t.http
        .patch(wsUrl(own.slug))
        .set(key(own.owner.key))
        .send({ is_wiki_enabled: true, is_teams_enabled: false, work_item_type_default_level: 1 });
      const rows = await audits(own, 'workspace.features_updated');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        category: 'settings',
        outcome: 'success',
        source: 'api',
        actor_type: 'api_token',
        actor_id: own.owner.id,
        target_type: 'workspace',
        target_id: own.workspaceId,
        // Only what changed: is_teams_enabled was already false.
        old_value: { is_wiki_enabled: false, work_item_type_default_level: 0 },
        new_value: { is_wiki_enabled: true, work_item_type_default_level: 1 },
      });
      // A PATCH that changes nothing writes no entry; no mode entry without a mode change.
      await t.http.patch(wsUrl(own.slug)).set(key(own.owner.key)).send({ is_wiki_enabled: true });
      expect(await audits(own, 'workspace.features_updated')).toHaveLength(1);
      expect(await audits(own, 'workspace.work_item_type_mode_changed')).toHaveLength(0);
      // A rejected PATCH writes nothing.
      await t.http.patch(wsUrl(own.slug)).set(key(own.owner.key)).send({ is_wiki_enabled: false, is_pi_enabled: 3 });
      expect(await audits(own, 'workspace.features_updated')).toHaveLength(1);
    });

    it('a work item type mode switch is recorded as its own settings event, both ways', async () => {
      const own = await t.tenant();
      const on = await t.http.patch(wsUrl(own.slug)).set(key(own.owner.key)).send({ is_work_item_types_enabled: true });
      expect(on.body.is_work_item_types_enabled).toBe(true);
      const off = await t.http
        .patch(wsUrl(own.slug))
        .set(key(own.owner.key))
        .send({ is_work_item_types_enabled: false });
      expect(off.body.is_work_item_types_enabled).toBe(false);
      const modes = await audits(own, 'workspace.work_item_type_mode_changed');
      expect(modes).toHaveLength(2);
      expect(modes[0]).toMatchObject({
        category: 'settings',
        outcome: 'success',
        source: 'api',
        actor_type: 'api_token',
        actor_id: own.owner.id,
        target_type: 'workspace',
        target_id: own.workspaceId,
        project_id: null,
        old_value: { mode: 'project', is_work_item_types_enabled: false },
        new_value: { mode: 'workspace', is_work_item_types_enabled: true },
      });
      expect(modes[1]).toMatchObject({
        category: 'settings',
        outcome: 'success',
        actor_id: own.owner.id,
        old_value: { mode: 'workspace', is_work_item_types_enabled: true },
        new_value: { mode: 'project', is_work_item_types_enabled: false },
      });
      expect(Number(modes[1].sequence_number)).toBeGreaterThan(Number(modes[0].sequence_number));
      const updates = await audits(own, 'workspace.features_updated');
      expect(updates.map((r) => r.new_value)).toEqual([
        { is_work_item_types_enabled: true },
        { is_work_item_types_enabled: false },
      ]);
      // The switch is what the feature repository reads as the mode.
      const rows = await t.ds.query(
        `SELECT is_work_item_types_enabled FROM workspace_features WHERE workspace_id = $1`,
        [own.workspaceId],
      );
      expect(rows[0].is_work_item_types_enabled).toBe(false);
    });
  });

  describe('project features', () => {
    let projectId: string;
    beforeAll(async () => {
      projectId = (await t.project(ten.slug, ten.owner.key)).id;
    });

    it('GET returns the flags with their defaults', async () => {
      const res = await t.http.get(prUrl(projectId)).set(key());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.any(String),
        project_id: projectId,
        is_workflow_enabled: false,
        is_cycles_enabled: true,
        is_modules_enabled: true,
        is_estimates_enabled: true,
        is_automated_cycle_enabled: false,
        is_epic_enabled: false,
        is_manually_start_end_cycles_enabled: false,
        is_milestone_enabled: false,
        is_parallel_cycles_enabled: false,
        is_project_updates_enabled: false,
        created_at: expect.any(String),
      });
    });

    it('PATCH is partial, validates booleans, ignores unknown keys, and is audited', async () => {
      const p = await t.project(ten.slug, ten.owner.key);
      const res = await t.http
        .patch(prUrl(p.id))
        .set(key())
        .send({ is_estimates_enabled: false, is_unknown_enabled: true });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        is_estimates_enabled: false,
        is_cycles_enabled: true,
        is_modules_enabled: true,
      });
      expect(res.body).not.toHaveProperty('is_unknown_enabled');
      const bad = await t.http.patch(prUrl(p.id)).set(key()).send({ is_cycles_enabled: 'false' });
      expect(expectProblem(bad, 400, 'validation_error').errors[0].field).toBe('is_cycles_enabled');
      expectProblem(
        await t.http.patch(prUrl(p.id)).set(key()).send({ is_modules_enabled: null }),
        400,
        'validation_error',
      );
      const rows = await auditEntries(t, ten, { event_name: 'project.features_updated', target_id: p.id });
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        category: 'settings',
        outcome: 'success',
        source: 'api',
        actor_type: 'api_token',
        workspace_id: ten.workspaceId,
        project_id: p.id,
        actor_id: ten.owner.id,
        target_type: 'project',
        target_id: p.id,
        old_value: { is_estimates_enabled: true },
        new_value: { is_estimates_enabled: false },
        metadata: { changed_fields: ['is_estimates_enabled'] },
      });
    });

    it('reads for project guests and up, PATCH for project admins', async () => {
      const contributor = await t.member(ten.slug, 'member');
      const guest = await t.member(ten.slug, 'guest');
      const padmin = await t.member(ten.slug, 'member');
      const outsider = await t.member(ten.slug, 'member');
      for (const [u, role] of [
        [contributor, 'contributor'],
        [guest, 'guest'],
        [padmin, 'admin'],
      ] as const) {
        const r = await t.http
          .post(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/members/`)
          .set(key())
          .send({ member_id: u.id, role });
        expect(r.status).toBe(201);
      }
      expect((await t.http.get(prUrl(projectId)).set(key(guest.key))).status).toBe(200);
      expectProblem(
        await t.http.patch(prUrl(projectId)).set(key(contributor.key)).send({ is_workflow_enabled: true }),
        403,
        'forbidden',
      );
      expectProblem(
        await t.http.patch(prUrl(projectId)).set(key(guest.key)).send({ is_workflow_enabled: true }),
        403,
        'forbidden',
      );
      expect(
        (await t.http.patch(prUrl(projectId)).set(key(padmin.key)).send({ is_workflow_enabled: true })).body
          .is_workflow_enabled,
      ).toBe(true);
      // A workspace member outside the project holds no project role.
      expectProblem(await t.http.get(prUrl(projectId)).set(key(outsider.key)), 403, 'forbidden');
    });

    it('enforces the projects.features scopes on OAuth tokens', async () => {
      const bearer = async (scopes: string[]) => ({
        Authorization: `Bearer ${await t.token(ten.owner.email, scopes)}`,
      });
      expect((await t.http.get(prUrl(projectId)).set(await bearer(['projects.features:read']))).status).toBe(200);
      expectProblem(
        await t.http
          .patch(prUrl(projectId))
          .set(await bearer(['projects.features:read']))
          .send({ is_epic_enabled: true }),
        403,
        'forbidden',
      );
      expect(
        (
          await t.http
            .patch(prUrl(projectId))
            .set(await bearer(['projects.features:write']))
            .send({ is_epic_enabled: true })
        ).status,
      ).toBe(200);
      expectProblem(
        await t.http.get(prUrl(projectId)).set(await bearer(['workspaces.features:read'])),
        403,
        'forbidden',
      );
    });

    it('a project of another workspace is 404, a malformed id 400', async () => {
      const other = await t.tenant();
      const op = await t.project(other.slug, other.owner.key);
      expectProblem(await t.http.get(prUrl(op.id)).set(key()), 404, 'resource_not_found');
      expectProblem(
        await t.http.patch(prUrl(op.id)).set(key()).send({ is_cycles_enabled: false }),
        404,
        'resource_not_found',
      );
      expectProblem(await t.http.get(prUrl(op.id, other.slug)).set(key()), 404, 'resource_not_found');
      // neither a UUID nor an identifier (a letter, then up to 11 letters or digits); an identifier-shaped 'nope' is 404
      expectProblem(await t.http.get(prUrl('no-pe')).set(key()), 400, 'validation_error');
      expectProblem(await t.http.get(prUrl('nope')).set(key()), 404, 'resource_not_found');
      expect((await t.http.get(prUrl(op.id, other.slug)).set(key(other.owner.key))).body.is_cycles_enabled).toBe(true);
    });
  });
});
