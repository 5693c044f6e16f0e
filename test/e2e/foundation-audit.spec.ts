import { AuditEntry, auditEntries } from '../helpers/audit';
import { createTestApp, Tenant, TestApp } from '../helpers/test-app';

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
  const byOwner = () => ({ source: 'api', actor_type: 'api_token', actor_id: ten.owner.id, actor_email: ten.owner.email });

  it('records member.added with source admin when the CLI/AdminService adds a member', async () => {
    const u = await t.member(ten.slug, 'member');
    const rows = (await auditEntries(t, ten, { event_name: 'member.added' })).filter((r) => r.metadata.member_id === u.id);
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
      expect(r).toMatchObject({ ...byOwner(), category: 'member', outcome: 'success', project_id: p.id, target_type: 'project_member', metadata: { member_id: u.id } });
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
      expect(r).toMatchObject({ ...byOwner(), category: 'settings', outcome: 'success', target_type: 'project', target_id: p.id, project_id: p.id });
    }
    expect(rows[0]).toMatchObject({ old_value: null, new_value: { name: 'Audited', identifier: 'AUD' } });
    expect(rows[1]).toMatchObject({ old_value: { description: 'a' }, new_value: { description: 'b' }, metadata: { changed_fields: ['description'] } });
    expect(rows[2]).toMatchObject({ target_display_name: 'Audited', old_value: { name: 'Audited', identifier: 'AUD' }, new_value: null });
  });
});
