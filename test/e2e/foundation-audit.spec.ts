import { AuditService } from '../../src/audit/audit.service';
import { AuditEntry, auditEntries } from '../helpers/audit';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

/**
 * Member and project changes of the foundation are recorded in the audit trail, in their transaction.
 * Entries are read through the audit-log API with the owner's key (test/helpers/audit.ts).
 */
describe('audit trail of member and project changes', () => {
  let t: TestApp;
  let ten: Tenant;
  let ws: string;
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    ws = `/api/v2/workspaces/${ten.slug}`;
  });
  afterAll(() => t.close());

  const k = () => ({ 'X-Api-Key': ten.owner.key });
  /** Every entry about one object, in commit order. */
  const entries = (targetId: string) => auditEntries(t, ten, { target_id: targetId });
  /** What the owner's API key writes: source api, actor the owner. */
  const byOwner = () => ({
    source: 'api',
    actor_type: 'api_token',
    actor_id: ten.owner.id,
    actor_email: ten.owner.email,
  });

  it('records member.added with source admin when the CLI/AdminService adds a member', async () => {
    const u = await t.member(ten.slug, 'member');
    const rows = (await auditEntries(t, ten, { event_name: 'member.added' })).filter(
      (r) => r.metadata.member_id === u.id,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      category: 'member',
      outcome: 'success',
      source: 'admin',
      actor_type: 'system',
      actor_id: null,
      target_type: 'workspace_member',
      workspace_id: ten.workspaceId,
      project_id: null,
      old_value: null,
      new_value: { role: 'member' },
    });
  });

  it('records member.role_updated with old and new role, and the capped project roles', async () => {
    const u = await t.member(ten.slug, 'member');
    const p = await t.project(ten.slug, ten.owner.key);
    await t.http.post(`${ws}/projects/${p.id}/members/`).set(k()).send({ member_id: u.id, role: 'contributor' });
    const row = (await t.http.get(`${ws}/members/?member_id=${u.id}`).set(k())).body.data[0];
    expect((await t.http.patch(`${ws}/members/${row.id}/`).set(k()).send({ role: 'guest' })).status).toBe(200);
    const [e] = (await entries(row.id)).filter((x) => x.event_name === 'member.role_updated');
    expect(e).toMatchObject({
      ...byOwner(),
      category: 'member',
      outcome: 'success',
      target_type: 'workspace_member',
      target_id: row.id,
      old_value: { role: 'member' },
      new_value: { role: 'guest' },
      metadata: { member_id: u.id, project_roles_capped_in: [p.id] },
    });
    // The lowered project membership has its own entry, after the workspace one, with both roles.
    const membership = (await t.http.get(`${ws}/projects/${p.id}/members/?member_id=${u.id}`).set(k())).body.data[0];
    expect(membership.role).toBe('commenter');
    const capped = await auditEntries(t, ten, { event_name: 'project_member.role_updated', target_id: membership.id });
    expect(capped).toHaveLength(1);
    expect(capped[0]).toMatchObject({
      ...byOwner(),
      category: 'member',
      outcome: 'success',
      target_type: 'project_member',
      project_id: p.id,
      old_value: { role: 'contributor' },
      new_value: { role: 'commenter' },
      metadata: { member_id: u.id, reason: 'workspace_demoted_to_guest' },
    });
    expect(capped[0].sequence_number).toBeGreaterThan(e.sequence_number);
  });

  it('a demotion to guest by the admin CLI path records the capped project roles too (source admin)', async () => {
    const u = await t.member(ten.slug, 'member');
    const p1 = await t.project(ten.slug, u.key); // u is its admin
    const p2 = await t.project(ten.slug, ten.owner.key);
    await t.http.post(`${ws}/projects/${p2.id}/members/`).set(k()).send({ member_id: u.id, role: 'guest' }); // not capped
    await t.admin.addMember(ten.slug, u.email, 'guest');
    const rows = (await auditEntries(t, ten, { event_name: 'project_member.role_updated' })).filter(
      (r) => r.metadata.member_id === u.id,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      source: 'admin',
      actor_type: 'system',
      actor_id: null,
      project_id: p1.id,
      old_value: { role: 'admin' },
      new_value: { role: 'commenter' },
      metadata: { reason: 'workspace_demoted_to_guest' },
    });
    const [ws1] = (await auditEntries(t, ten, { event_name: 'member.role_updated' })).filter(
      (r) => r.metadata.member_id === u.id,
    );
    expect(ws1).toMatchObject({
      source: 'admin',
      old_value: { role: 'member' },
      new_value: { role: 'guest' },
      metadata: { project_roles_capped_in: [p1.id] },
    });
  });

  it('a refused change leaves no entry (same transaction)', async () => {
    const ownerRow = (await t.http.get(`${ws}/members/?member_id=${ten.owner.id}`).set(k())).body.data[0];
    expect((await t.http.patch(`${ws}/members/${ownerRow.id}/`).set(k()).send({ role: 'member' })).status).toBe(409);
    expect((await entries(ownerRow.id)).filter((e) => e.event_name === 'member.role_updated')).toEqual([]);
  });

  it('records project_member.added, .role_updated and .removed', async () => {
    const u = await t.member(ten.slug, 'member');
    const p = await t.project(ten.slug, ten.owner.key);
    const url = `${ws}/projects/${p.id}/members/`;
    const id = (await t.http.post(url).set(k()).send({ member_id: u.id, role: 'commenter' })).body.id;
    await t.http.patch(`${url}${id}/`).set(k()).send({ role: 'contributor' });
    await t.http.patch(`${url}${id}/`).set(k()).send({ role: 'contributor' }); // no change, no entry
    await t.http.delete(`${url}${id}/`).set(k());
    const rows = await entries(id);
    expect(rows.map((r) => [r.event_name, r.old_value, r.new_value])).toEqual([
      ['project_member.added', null, { role: 'commenter' }],
      ['project_member.role_updated', { role: 'commenter' }, { role: 'contributor' }],
      ['project_member.removed', { role: 'contributor' }, null],
    ]);
    for (const r of rows) {
      expect(r).toMatchObject({
        ...byOwner(),
        category: 'member',
        outcome: 'success',
        project_id: p.id,
        target_type: 'project_member',
        metadata: { member_id: u.id },
      });
    }
  });

  it('records member.removed and one project_member.removed per project membership it takes along', async () => {
    const u = await t.member(ten.slug, 'member');
    const p1 = await t.project(ten.slug, u.key); // u is its admin
    const p2 = await t.project(ten.slug, ten.owner.key);
    const pm2 = (
      await t.http.post(`${ws}/projects/${p2.id}/members/`).set(k()).send({ member_id: u.id, role: 'contributor' })
    ).body.id;
    const pm1 = (await t.http.get(`${ws}/projects/${p1.id}/members/?member_id=${u.id}`).set(k())).body.data[0].id;
    const row = (await t.http.get(`${ws}/members/?member_id=${u.id}`).set(k())).body.data[0];
    expect(
      (await t.http.post(`${ws}/members/remove/`).set(k()).send({ email: u.email, remove_seat: false })).status,
    ).toBe(204);

    const [removed, ...more] = await auditEntries(t, ten, { event_name: 'member.removed', target_id: row.id });
    expect(more).toEqual([]);
    expect(removed).toMatchObject({
      ...byOwner(),
      category: 'member',
      outcome: 'success',
      target_type: 'workspace_member',
      target_display_name: 'Test User',
      project_id: null,
      old_value: { role: 'member' },
      new_value: null,
    });
    expect(removed.metadata.member_id).toBe(u.id);
    expect([...removed.metadata.project_memberships_removed_in].sort()).toEqual([p1.id, p2.id].sort());
    const cascade = (await auditEntries(t, ten, { event_name: 'project_member.removed' })).filter(
      (r) => r.metadata.member_id === u.id,
    );
    expect(cascade.map((r) => [r.target_id, r.project_id, r.old_value]).sort()).toEqual(
      [
        [pm1, p1.id, { role: 'admin' }],
        [pm2, p2.id, { role: 'contributor' }],
      ].sort(),
    );
    for (const r of cascade) {
      expect(r).toMatchObject({
        ...byOwner(),
        category: 'member',
        outcome: 'success',
        target_type: 'project_member',
        new_value: null,
        metadata: { reason: 'workspace_member_removed' },
      });
      expect(r.sequence_number).toBeGreaterThan(removed.sequence_number);
    }
  });

  it('a refused removal leaves no entry (last owner 409, hierarchy 403); the 403 is itself recorded', async () => {
    const solo = await t.tenant();
    const url = `/api/v2/workspaces/${solo.slug}/members/remove/`;
    expectProblem(
      await t.http.post(url).set('X-Api-Key', solo.owner.key).send({ email: solo.owner.email }),
      409,
      'conflict',
    );
    const admin = await t.member(solo.slug, 'admin');
    const admin2 = await t.member(solo.slug, 'admin');
    expectProblem(await t.http.post(url).set('X-Api-Key', admin.key).send({ email: admin2.email }), 403, 'forbidden');
    expect(await auditEntries(t, solo, { event_name: 'member.removed' })).toEqual([]);
    const [denied] = await auditEntries(t, solo, { event_name: 'permission.denied', actor_id: admin.id });
    expect(denied).toMatchObject({
      outcome: 'failure',
      reason: 'forbidden',
      target_id: 'POST /api/v2/workspaces/{slug}/members/remove/',
    });
  });

  it('records one project_member.added per implicit membership of a new project (creator, lead, default assignee)', async () => {
    const lead = await t.member(ten.slug, 'member');
    const assignee = await t.member(ten.slug, 'member');
    const p = await t.project(ten.slug, ten.owner.key, { project_lead_id: lead.id, default_assignee_id: assignee.id });
    const roster: Array<{ id: string; member_id: string; role: string }> = (
      await t.http.get(`${ws}/projects/${p.id}/members/`).set(k())
    ).body.data;
    expect(roster).toHaveLength(3);
    const added = (await auditEntries(t, ten, { event_name: 'project_member.added' })).filter(
      (r) => r.project_id === p.id,
    );
    expect(added.map((r) => [r.target_id, r.metadata.member_id, r.new_value.role]).sort()).toEqual(
      roster.map((r) => [r.id, r.member_id, r.role]).sort(),
    );
    expect(new Map(added.map((r) => [r.metadata.member_id, r.new_value.role]))).toEqual(
      new Map([
        [ten.owner.id, 'admin'],
        [lead.id, 'admin'],
        [assignee.id, 'contributor'],
      ]),
    );
    const [created] = await auditEntries(t, ten, { event_name: 'project.created', target_id: p.id });
    for (const r of added) {
      expect(r).toMatchObject({
        ...byOwner(),
        category: 'member',
        outcome: 'success',
        target_type: 'project_member',
        old_value: null,
        metadata: { reason: 'project_created' },
      });
      expect(r.sequence_number).toBeGreaterThan(created.sequence_number);
    }
  });

  it('records workspace.created (category instance, source admin) as the first entry of a new workspace', async () => {
    const fresh = await t.tenant();
    const [first, second] = await auditEntries(t, fresh);
    expect(first).toMatchObject({
      event_name: 'workspace.created',
      category: 'instance',
      outcome: 'success',
      source: 'admin',
      actor_type: 'system',
      actor_id: null,
      actor_display_name: 'admin',
      target_type: 'workspace',
      target_id: fresh.workspaceId,
      target_display_name: `Workspace ${fresh.slug}`,
      workspace_id: fresh.workspaceId,
      old_value: null,
      new_value: { slug: fresh.slug, name: `Workspace ${fresh.slug}` },
    });
    expect(second).toMatchObject({ event_name: 'member.added', new_value: { role: 'owner' } });
    // user.created lives in the instance trail (no workspace yet), never in a workspace trail.
    expect(await auditEntries(t, fresh, { event_name: 'user.created' })).toEqual([]);
    const [userCreated] = await t.ds.query(
      `SELECT * FROM audit_logs WHERE workspace_id IS NULL AND event_name = 'user.created' AND target_id = $1`,
      [fresh.owner.id],
    );
    expect(userCreated).toMatchObject({
      category: 'instance',
      source: 'admin',
      target_type: 'user',
      new_value: { id: fresh.owner.id, email: fresh.owner.email, display_name: 'Test User' },
    });
  });

  it('the type mode gate records its 409 with the public route, and still answers 409 when the audit write fails', async () => {
    const p = await t.project(ten.slug, ten.owner.key);
    expect((await t.http.patch(`${ws}/features/`).set(k()).send({ is_work_item_types_enabled: true })).status).toBe(
      200,
    );
    try {
      const url = `${ws}/projects/${p.id}/work-item-types/`;
      expectProblem(
        await t.http.post(url).set(k()).send({ name: 'Gated' }),
        409,
        'work_item_types_managed_at_workspace',
      );
      const [e] = (await auditEntries(t, ten, { event_name: 'work_item_types.surface_conflict' })).filter(
        (x) => x.project_id === p.id,
      );
      expect(e).toMatchObject({
        ...byOwner(),
        category: 'settings',
        outcome: 'failure',
        reason: 'work_item_types_managed_at_workspace',
        target_id: ten.workspaceId,
      });
      expect(e.metadata).toMatchObject({
        method: 'POST',
        route: 'POST /api/v2/workspaces/{slug}/projects/{project_id}/work-item-types/',
        path: url,
        request_id: expect.any(String),
        surface: 'project',
        mode: 'workspace',
      });

      const spy = jest.spyOn(t.app.get(AuditService), 'recordNow').mockRejectedValue(new Error('audit insert failed'));
      try {
        expectProblem(
          await t.http.patch(`${url}${p.id}/`).set(k()).send({ name: 'x' }),
          409,
          'work_item_types_managed_at_workspace',
        );
        expect(spy).toHaveBeenCalledTimes(1);
      } finally {
        spy.mockRestore();
      }
    } finally {
      await t.http.patch(`${ws}/features/`).set(k()).send({ is_work_item_types_enabled: false });
    }
  });

  it('records project.created, project.updated (changed fields only) and project.deleted', async () => {
    const p = await t.project(ten.slug, ten.owner.key, { name: 'Audited', identifier: 'AUD', description: 'a' });
    const url = `${ws}/projects/${p.id}/`;
    await t.http.patch(url).set(k()).send({ description: 'b', name: 'Audited' });
    await t.http.patch(url).set(k()).send({ description: 'b' }); // no change, no entry
    await t.http.delete(url).set(k());
    const rows: AuditEntry[] = await entries(p.id);
    expect(rows.map((r) => r.event_name)).toEqual(['project.created', 'project.updated', 'project.deleted']);
    for (const r of rows) {
      expect(r).toMatchObject({
        ...byOwner(),
        category: 'settings',
        outcome: 'success',
        target_type: 'project',
        target_id: p.id,
        project_id: p.id,
      });
    }
    expect(rows[0]).toMatchObject({ old_value: null, new_value: { name: 'Audited', identifier: 'AUD' } });
    expect(rows[1]).toMatchObject({
      old_value: { description: 'a' },
      new_value: { description: 'b' },
      metadata: { changed_fields: ['description'] },
    });
    expect(rows[2]).toMatchObject({
      target_display_name: 'Audited',
      old_value: { name: 'Audited', identifier: 'AUD' },
      new_value: null,
    });
  });
});
