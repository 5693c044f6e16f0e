import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';
import { audits, ok, typeApi } from '../helpers/type-fixtures';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('work item types', () => {
  let t: TestApp;
  let ten: Tenant;
  let api: ReturnType<typeof typeApi>;
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    api = typeApi(t, ten);
  });
  afterAll(() => t.close());

  describe('project surface (project mode)', () => {
    let projectId: string;
    let base: string;
    beforeAll(async () => {
      projectId = (await t.project(ten.slug, ten.owner.key)).id;
      base = `${api.pr(projectId)}/work-item-types`;
    });

    it('lists nothing before enable; enable seeds Task (default) and an epic type, idempotently', async () => {
      const empty = ok(await api.get(`${base}/`));
      expect(empty).toMatchObject({ data: [], total_count: 0, pagination: { style: 'offset' } });

      const first = ok(await api.post(`${base}/enable/`));
      expect(first).toEqual({
        id: expect.any(String),
        name: 'Task',
        description: 'Default work item type with the option to add new properties',
        is_active: true,
        is_default: true,
        is_epic: false,
        level: 0,
        logo_props: expect.objectContaining({ in_use: 'icon' }),
        created_at: expect.any(String),
      });
      expect(first).not.toHaveProperty('external_id');
      const again = ok(await api.post(`${base}/enable/`).send({ anything: 'ignored' }));
      expect(again.id).toBe(first.id);

      const list = ok(await api.get(`${base}/`));
      expect(list.total_count).toBe(2);
      const epic = list.data.find((x: { is_epic: boolean }) => x.is_epic);
      expect(epic).toMatchObject({ name: 'Epic', is_default: false, is_epic: true });
      expect(list.data.filter((x: { is_default: boolean }) => x.is_default)).toHaveLength(1);
      const created = await audits(t, ten, 'work_item_type.created');
      expect(
        created
          .filter((a) => a.project_id === projectId)
          .map((a) => a.target_display_name)
          .sort(),
      ).toEqual(['Epic', 'Task']);

      // A work item of the project now takes the default type; ?expand=type shows it (gap-reference 4), on the
      // item and on the list, beside the other expansions of the same statement.
      const item = ok(await api.post(`${api.pr(projectId)}/work-items/?expand=type,state`, { name: 'typed' }), 201);
      const shape = { id: first.id, name: 'Task', logo_props: first.logo_props, is_epic: false };
      expect(item.type).toEqual(shape);
      expect(item.state).toEqual(expect.objectContaining({ id: item.state_id, group: expect.any(String) }));
      const listed = ok(await api.get(`${api.pr(projectId)}/work-items/?expand=type,parent,labels`));
      expect(listed.data.find((x: { id: string }) => x.id === item.id)).toMatchObject({
        type: shape,
        parent: null,
        labels: [],
      });
    });

    it('creates a type: read-only fields ignored, external fields write-only, audited', async () => {
      const res = await api.post(`${base}/`, {
        name: 'Bug',
        description: 'Something broke',
        is_active: true,
        is_default: true,
        is_epic: true,
        level: 7,
        logo_props: { x: 1 },
        external_id: 'B-1',
        external_source: 'jira',
      });
      const body = ok(res, 201);
      expect(body).toMatchObject({
        name: 'Bug',
        description: 'Something broke',
        is_active: true,
        is_default: false,
        is_epic: false,
        level: 0,
      });
      expect(body.logo_props).not.toEqual({ x: 1 });
      expect(body).not.toHaveProperty('external_id');
      expect(body).not.toHaveProperty('external_source');
      const [entry] = (await audits(t, ten, 'work_item_type.created')).filter((a) => a.target_id === body.id);
      expect(entry).toMatchObject({
        category: 'settings',
        outcome: 'success',
        target_type: 'work_item_type',
        project_id: projectId,
        actor_id: ten.owner.id,
      });
      expect(entry.new_value).toMatchObject({ name: 'Bug', external_id: 'B-1' });
    });

    it('rejects invalid bodies with 400 naming the field', async () => {
      expect(expectProblem(await api.post(`${base}/`, {}), 400, 'validation_error').errors[0].field).toBe('name');
      expect(
        expectProblem(await api.post(`${base}/`, { name: 'x'.repeat(256) }), 400, 'validation_error').errors[0].field,
      ).toBe('name');
      expect(expectProblem(await api.post(`${base}/`, { name: '   ' }), 400, 'validation_error').errors[0].field).toBe(
        'name',
      );
      expect(
        expectProblem(await api.post(`${base}/`, { name: 'Ok', is_active: 'yes' }), 400, 'validation_error').errors[0]
          .field,
      ).toBe('is_active');
      expect(
        expectProblem(await api.post(`${base}/`, { name: 'Ok', external_id: 'e'.repeat(256) }), 400, 'validation_error')
          .errors[0].field,
      ).toBe('external_id');
    });

    it('names are unique case-insensitively in the project (409); the external pair too', async () => {
      ok(await api.post(`${base}/`, { name: 'Story', external_id: 'S-1', external_source: 'jira' }), 201);
      expectProblem(await api.post(`${base}/`, { name: 'STORY' }), 409, 'conflict');
      expectProblem(
        await api.post(`${base}/`, { name: 'Other story', external_id: 'S-1', external_source: 'jira' }),
        409,
        'conflict',
      );
      ok(await api.post(`${base}/`, { name: 'Third story', external_id: 'S-1', external_source: 'linear' }), 201);
      // Another project may reuse the name.
      const other = (await t.project(ten.slug, ten.owner.key)).id;
      ok(await api.post(`${api.pr(other)}/work-item-types/`, { name: 'Story' }), 201);
    });

    it('create on a project never enabled enables it first (exactly one default)', async () => {
      const p = (await t.project(ten.slug, ten.owner.key)).id;
      const created = ok(await api.post(`${api.pr(p)}/work-item-types/`, { name: 'Feature' }), 201);
      expect(created.is_default).toBe(false);
      const list = ok(await api.get(`${api.pr(p)}/work-item-types/?order_by=name`));
      expect(list.data.map((x: { name: string }) => x.name)).toEqual(['Epic', 'Feature', 'Task']);
      expect(
        list.data.filter((x: { is_default: boolean }) => x.is_default).map((x: { name: string }) => x.name),
      ).toEqual(['Task']);
    });

    it("gets a type; another project's type is 404; a malformed id is 400", async () => {
      const created = ok(await api.post(`${base}/`, { name: 'Chore' }), 201);
      expect(ok(await api.get(`${base}/${created.id}/`))).toEqual(created);
      const other = (await t.project(ten.slug, ten.owner.key)).id;
      const foreign = ok(await api.post(`${api.pr(other)}/work-item-types/`, { name: 'Foreign' }), 201);
      expectProblem(await api.get(`${base}/${foreign.id}/`), 404, 'resource_not_found');
      expectProblem(await api.get(`${base}/${UNKNOWN}/`), 404, 'resource_not_found');
      expect(expectProblem(await api.get(`${base}/nope/`), 400, 'validation_error').errors[0].field).toBe('pk');
      expectProblem(await api.patch(`${base}/${foreign.id}/`, { name: 'x' }), 404, 'resource_not_found');
      expectProblem(await api.del(`${base}/${foreign.id}/`), 404, 'resource_not_found');
    });

    it('PATCH is partial; the default cannot be deactivated (400); rename collision is 409; audited with old and new', async () => {
      const created = ok(await api.post(`${base}/`, { name: 'Spike', description: 'keep' }), 201);
      const res = ok(await api.patch(`${base}/${created.id}/`, { name: 'Research spike', is_default: true, level: 3 }));
      expect(res).toMatchObject({ name: 'Research spike', description: 'keep', is_default: false, level: 0 });
      const cleared = ok(await api.patch(`${base}/${created.id}/`, { description: null }));
      expect(cleared.description).toBe('');
      const [entry] = (await audits(t, ten, 'work_item_type.updated')).filter((a) => a.target_id === created.id);
      expect(entry.old_value).toEqual({ name: 'Spike' });
      expect(entry.new_value).toEqual({ name: 'Research spike' });

      const task = ok(await api.get(`${base}/`)).data.find((x: { is_default: boolean }) => x.is_default);
      const body = expectProblem(await api.patch(`${base}/${task.id}/`, { is_active: false }), 400, 'validation_error');
      expect(body.errors[0]).toEqual({
        field: 'is_active',
        message: 'The default work item type cannot be deactivated.',
      });
      expectProblem(await api.patch(`${base}/${created.id}/`, { name: 'task' }), 409, 'conflict');
      expectProblem(await api.patch(`${base}/${created.id}/`, { name: null }), 400, 'validation_error');
      const off = ok(await api.patch(`${base}/${created.id}/`, { is_active: false }));
      expect(off.is_active).toBe(false);
    });

    it('mark-default moves the default in one operation; epic and inactive types are refused', async () => {
      const p = (await t.project(ten.slug, ten.owner.key)).id;
      const b = `${api.pr(p)}/work-item-types`;
      const task = ok(await api.post(`${b}/enable/`));
      const bug = ok(await api.post(`${b}/`, { name: 'Bug' }), 201);
      const promoted = ok(await api.post(`${b}/${bug.id}/mark-default/`));
      expect(promoted).toMatchObject({ id: bug.id, is_default: true });
      expect(ok(await api.get(`${b}/${task.id}/`)).is_default).toBe(false);
      const defaults = ok(await api.get(`${b}/`)).data.filter((x: { is_default: boolean }) => x.is_default);
      expect(defaults.map((x: { id: string }) => x.id)).toEqual([bug.id]);
      // Repeat is a no-op returning the type.
      expect(ok(await api.post(`${b}/${bug.id}/mark-default/`)).is_default).toBe(true);
      const epic = ok(await api.get(`${b}/`)).data.find((x: { is_epic: boolean }) => x.is_epic);
      expectProblem(await api.post(`${b}/${epic.id}/mark-default/`), 400, 'validation_error');
      const idle = ok(await api.post(`${b}/`, { name: 'Idle', is_active: false }), 201);
      expectProblem(await api.post(`${b}/${idle.id}/mark-default/`), 400, 'validation_error');
      expectProblem(await api.post(`${b}/${UNKNOWN}/mark-default/`), 404, 'resource_not_found');
      const [entry] = (await audits(t, ten, 'work_item_type.updated')).filter((a) => a.target_id === bug.id);
      expect(entry.metadata).toMatchObject({ action: 'mark_default', previous_default_id: task.id });
    });

    it('DELETE: the default is 409; another type is 204, soft, audited, and a repeat is 404', async () => {
      const p = (await t.project(ten.slug, ten.owner.key)).id;
      const b = `${api.pr(p)}/work-item-types`;
      const task = ok(await api.post(`${b}/enable/`));
      expectProblem(await api.del(`${b}/${task.id}/`), 409, 'conflict');
      const tmp = ok(await api.post(`${b}/`, { name: 'Temp' }), 201);
      const res = await api.del(`${b}/${tmp.id}/`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expectProblem(await api.del(`${b}/${tmp.id}/`), 404, 'resource_not_found');
      expectProblem(await api.get(`${b}/${tmp.id}/`), 404, 'resource_not_found');
      const rows = await t.ds.query(`SELECT deleted_at FROM work_item_types WHERE id = $1`, [tmp.id]);
      expect(rows[0].deleted_at).not.toBeNull();
      expect((await audits(t, ten, 'work_item_type.deleted')).some((a) => a.target_id === tmp.id)).toBe(true);
      // The name is free again.
      ok(await api.post(`${b}/`, { name: 'Temp' }), 201);
    });

    it('lists with the shared list behaviour: order_by, cursor, no filters, expand rejected', async () => {
      const byName = ok(await api.get(`${base}/?order_by=-name&per_page=2`));
      expect(byName.data).toHaveLength(2);
      expect(byName.next).toBe(2);
      const names = byName.data.map((x: { name: string }) => x.name);
      expect([...names].sort().reverse()).toEqual(names);
      const cur = ok(await api.get(`${base}/?paginate=cursor&per_page=1`));
      expect(cur.pagination.style).toBe('cursor');
      const next = ok(await api.get(`${base}/?paginate=cursor&per_page=1&cursor=${cur.next_cursor}`));
      expect(next.data[0].id).not.toBe(cur.data[0].id);
      expectProblem(await api.get(`${base}/?paginate=cursor&order_by=name`), 400, 'ordering_not_cursor_eligible');
      expect(expectProblem(await api.get(`${base}/?expand=properties`), 400, 'validation_error').errors[0].field).toBe(
        'expand',
      );
    });

    it('permissions: reads need project guest+, writes project admin; scopes cap OAuth tokens; foreign tenants 404', async () => {
      const guest = await api.projectMember(projectId, 'guest');
      const contributor = await api.projectMember(projectId, 'contributor');
      expect((await t.http.get(`${base}/`).set('X-Api-Key', guest.key)).status).toBe(200);
      expectProblem(
        await t.http.post(`${base}/`).set('X-Api-Key', contributor.key).send({ name: 'No' }),
        403,
        'forbidden',
      );
      expectProblem(await t.http.post(`${base}/enable/`).set('X-Api-Key', contributor.key), 403, 'forbidden');
      const outsider = await t.member(ten.slug, 'member');
      expectProblem(await t.http.get(`${base}/`).set('X-Api-Key', outsider.key), 403, 'forbidden');

      const readOnly = await t.token(ten.owner.email, ['projects.work_item_types:read']);
      expect((await t.http.get(`${base}/`).set('Authorization', `Bearer ${readOnly}`)).status).toBe(200);
      expectProblem(
        await t.http.post(`${base}/`).set('Authorization', `Bearer ${readOnly}`).send({ name: 'No' }),
        403,
        'forbidden',
      );
      const propsScope = await t.token(ten.owner.email, ['projects.work_item_properties:write']);
      expectProblem(
        await t.http.post(`${base}/`).set('Authorization', `Bearer ${propsScope}`).send({ name: 'No' }),
        403,
        'forbidden',
      );
      const writer = await t.token(ten.owner.email, ['projects.work_item_types:write']);
      ok(await t.http.post(`${base}/`).set('Authorization', `Bearer ${writer}`).send({ name: 'Via OAuth' }), 201);

      const other = await t.tenant();
      expectProblem(
        await t.http
          .get(`/api/v2/workspaces/${other.slug}/projects/${projectId}/work-item-types/`)
          .set('X-Api-Key', ten.owner.key),
        404,
        'resource_not_found',
      );
    });
  });

  describe('workspace surface (workspace mode)', () => {
    let own: Tenant;
    let w: ReturnType<typeof typeApi>;
    let base: string;
    beforeAll(async () => {
      own = await t.tenant();
      w = typeApi(t, own);
      await w.mode(true);
      base = `${w.ws}/work-item-types`;
    });

    it('the first workspace type becomes the default; later ones do not; names unique (409)', async () => {
      const first = ok(await w.post(`${base}/`, { name: 'Incident', description: 'Ops', is_active: false }), 201);
      expect(first).toMatchObject({ name: 'Incident', is_default: true, is_active: true, is_epic: false });
      const second = ok(await w.post(`${base}/`, { name: 'Request' }), 201);
      expect(second.is_default).toBe(false);
      expectProblem(await w.post(`${base}/`, { name: 'request' }), 409, 'conflict');
      const list = ok(await w.get(`${base}/`));
      expect(list.data.map((x: { name: string }) => x.name)).toEqual(['Incident', 'Request']);
      const [entry] = (await audits(t, own, 'work_item_type.created')).filter((a) => a.target_id === second.id);
      expect(entry).toMatchObject({ project_id: null, category: 'settings' });
      expect(entry.metadata.surface).toBe('workspace');
    });

    it('get / PATCH / mark-default / DELETE with their rules', async () => {
      const list = ok(await w.get(`${base}/`)).data;
      const incident = list.find((x: { name: string }) => x.name === 'Incident');
      const request = list.find((x: { name: string }) => x.name === 'Request');
      expect(ok(await w.get(`${base}/${request.id}/`)).name).toBe('Request');

      const patched = ok(
        await w.patch(`${base}/${request.id}/`, {
          name: 'Service request',
          is_default: true,
          is_epic: true,
          level: 4,
          logo_props: { a: 1 },
          external_id: 'X',
        }),
      );
      expect(patched).toMatchObject({ name: 'Service request', is_default: false, is_epic: false, level: 0 });
      expect(patched).not.toHaveProperty('external_id');
      expectProblem(await w.patch(`${base}/${request.id}/`, { name: 'INCIDENT' }), 409, 'conflict');
      expectProblem(await w.patch(`${base}/${incident.id}/`, { is_active: false }), 400, 'validation_error');
      const off = ok(await w.patch(`${base}/${request.id}/`, { is_active: false }));
      expect(off.is_active).toBe(false);
      // Inactive types are still listed.
      expect(ok(await w.get(`${base}/`)).data.some((x: { id: string }) => x.id === request.id)).toBe(true);
      expectProblem(await w.post(`${base}/${request.id}/mark-default/`), 400, 'validation_error');
      ok(await w.patch(`${base}/${request.id}/`, { is_active: true }));
      expect(ok(await w.post(`${base}/${request.id}/mark-default/`)).is_default).toBe(true);
      expect(ok(await w.get(`${base}/${incident.id}/`)).is_default).toBe(false);

      expectProblem(await w.del(`${base}/${request.id}/`), 409, 'conflict');
      expect((await w.del(`${base}/${incident.id}/`)).status).toBe(204);
      expectProblem(await w.del(`${base}/${incident.id}/`), 404, 'resource_not_found');
    });

    it("DELETE of a workspace type used by a work item is 409 conflict; detach deletes the property's values on work items of that type only", async () => {
      const p = (await t.project(own.slug, own.owner.key)).id;
      const used = ok(await w.post(`${base}/`, { name: 'Used here' }), 201).id;
      const sibling = ok(await w.post(`${base}/`, { name: 'Sibling' }), 201).id;
      ok(await w.post(`${w.pr(p)}/work-item-types/import/`, { work_item_types: [used, sibling] }));
      const prop = ok(
        await w.post(`${w.ws}/work-item-properties/`, { display_name: 'Code', property_type: 'TEXT' }),
        201,
      );
      for (const ty of [used, sibling]) ok(await w.post(`${base}/${ty}/properties/`, { properties: [prop.id] }), 201);
      const onUsed = ok(
        await w.post(`${w.pr(p)}/work-items/`, { name: 'a', type_id: used, custom_fields: { code: 'A-1' } }),
        201,
      );
      const onSibling = ok(
        await w.post(`${w.pr(p)}/work-items/`, { name: 'b', type_id: sibling, custom_fields: { code: 'B-1' } }),
        201,
      );

      expectProblem(await w.del(`${base}/${used}/`), 409, 'conflict');
      expect(ok(await w.get(`${base}/${used}/`)).id).toBe(used);

      expect((await w.del(`${base}/${used}/properties/${prop.id}/`)).status).toBe(204);
      const values = async (id: string) =>
        (await t.ds.query(`SELECT custom_values FROM work_items WHERE id = $1`, [id]))[0].custom_values;
      expect(await values(onUsed.id)).toEqual({});
      expect(await values(onSibling.id)).toEqual({ [prop.id]: 'B-1' });
      expect(ok(await w.get(`${w.pr(p)}/work-items/${onSibling.id}/`)).custom_fields.code.value).toBe('B-1');
      expectProblem(await w.del(`${base}/${used}/properties/${prop.id}/`), 404, 'resource_not_found');
      // Re-attaching does not bring the value back.
      ok(await w.post(`${base}/${used}/properties/`, { properties: [prop.id] }), 201);
      expect(ok(await w.get(`${w.pr(p)}/work-items/${onUsed.id}/`)).custom_fields).toEqual({});
    });

    it('a project-level type id is 404 on the workspace surface; a workspace type id is 404 on a project it was not imported into', async () => {
      await w.mode(false);
      const p = (await t.project(own.slug, own.owner.key)).id;
      const task = ok(await w.post(`${w.pr(p)}/work-item-types/enable/`));
      await w.mode(true);
      expectProblem(await w.get(`${base}/${task.id}/`), 404, 'resource_not_found');
      expectProblem(await w.patch(`${base}/${task.id}/`, { name: 'x' }), 404, 'resource_not_found');
      const wsType = ok(await w.get(`${base}/`)).data[0];
      expectProblem(await w.get(`${w.pr(p)}/work-item-types/${wsType.id}/`), 404, 'resource_not_found');
    });

    it('permissions: workspace members read, only admins and owners write', async () => {
      const member = await t.member(own.slug, 'member');
      const admin = await t.member(own.slug, 'admin');
      const guest = await t.member(own.slug, 'guest');
      expect((await t.http.get(`${base}/`).set('X-Api-Key', member.key)).status).toBe(200);
      expectProblem(await t.http.get(`${base}/`).set('X-Api-Key', guest.key), 403, 'forbidden');
      expectProblem(
        await t.http.post(`${base}/`).set('X-Api-Key', member.key).send({ name: 'Nope' }),
        403,
        'forbidden',
      );
      ok(await t.http.post(`${base}/`).set('X-Api-Key', admin.key).send({ name: 'By admin' }), 201);
      const projScope = await t.token(own.owner.email, ['projects.work_item_types:write']);
      expectProblem(
        await t.http.post(`${base}/`).set('Authorization', `Bearer ${projScope}`).send({ name: 'Nope' }),
        403,
        'forbidden',
      );
    });
  });

  describe('import into a project (workspace mode)', () => {
    let own: Tenant;
    let w: ReturnType<typeof typeApi>;
    let projectId: string;
    let typeA: string;
    let typeB: string;
    beforeAll(async () => {
      own = await t.tenant();
      w = typeApi(t, own);
      projectId = (await t.project(own.slug, own.owner.key)).id;
      await w.mode(true);
      typeA = ok(await w.post(`${w.ws}/work-item-types/`, { name: 'Alpha' }), 201).id;
      typeB = ok(await w.post(`${w.ws}/work-item-types/`, { name: 'Beta' }), 201).id;
    });

    it('refuses unknown, project-level and malformed ids with 400 and imports nothing', async () => {
      const url = `${w.pr(projectId)}/work-item-types/import/`;
      expect(
        expectProblem(await w.post(url, { work_item_types: [typeA, UNKNOWN] }), 400, 'validation_error').errors[0]
          .field,
      ).toBe('work_item_types');
      expectProblem(await w.post(url, { work_item_types: ['nope'] }), 400, 'validation_error');
      expectProblem(await w.post(url, { work_item_types: [] }), 400, 'validation_error');
      expectProblem(await w.post(url, {}), 400, 'validation_error');
      await w.mode(false);
      const other = (await t.project(own.slug, own.owner.key)).id;
      const projectType = ok(await w.post(`${w.pr(other)}/work-item-types/enable/`)).id;
      await w.mode(true);
      expectProblem(await w.post(url, { work_item_types: [projectType] }), 400, 'validation_error');
      expect(ok(await w.get(`${w.pr(projectId)}/work-item-types/`)).data).toEqual([]);
    });

    it('imports with 200 and an empty body; idempotent; the project lists and gets them', async () => {
      const url = `${w.pr(projectId)}/work-item-types/import/`;
      const res = await w.post(url, { work_item_types: [typeA] });
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expect((await w.post(url, { work_item_types: [typeA, typeB, typeA] })).status).toBe(200);
      const list = ok(await w.get(`${w.pr(projectId)}/work-item-types/`));
      expect(list.data.map((x: { id: string }) => x.id).sort()).toEqual([typeA, typeB].sort());
      expect(ok(await w.get(`${w.pr(projectId)}/work-item-types/${typeB}/`)).name).toBe('Beta');
      const rows = await t.ds.query(`SELECT count(*)::int AS c FROM project_work_item_types WHERE project_id = $1`, [
        projectId,
      ]);
      expect(rows[0].c).toBe(2);
      // Reads keep working after switching back to project mode; writes to the imported type from the project surface are 404.
      await w.mode(false);
      expect(ok(await w.get(`${w.pr(projectId)}/work-item-types/`)).data).toHaveLength(2);
      expectProblem(
        await w.patch(`${w.pr(projectId)}/work-item-types/${typeA}/`, { name: 'x' }),
        404,
        'resource_not_found',
      );
      await w.mode(true);
    });
  });

  describe('exactly one default per project', () => {
    it('a project roster reports as is_default only the type work item creation picks without a type, in the current mode', async () => {
      const own = await t.tenant();
      const w = typeApi(t, own);
      const p = (await t.project(own.slug, own.owner.key)).id;
      const roster = `${w.pr(p)}/work-item-types`;
      const defaults = async () =>
        ok(await w.get(`${roster}/`))
          .data.filter((x: { is_default: boolean }) => x.is_default)
          .map((x: { id: string }) => x.id);
      const createdType = async () => ok(await w.post(`${w.pr(p)}/work-items/`, { name: 'probe' }), 201).type_id;

      const task = ok(await w.post(`${roster}/enable/`));
      expect(await defaults()).toEqual([task.id]);
      expect(await createdType()).toBe(task.id);

      await w.mode(true);
      const wsDefault = ok(await w.post(`${w.ws}/work-item-types/`, { name: 'Incident' }), 201);
      expect(wsDefault.is_default).toBe(true);
      // Workspace mode, workspace default not imported: creation leaves work items untyped, no default listed.
      expect(await createdType()).toBeNull();
      expect(await defaults()).toEqual([]);
      expect(ok(await w.get(`${roster}/${task.id}/`)).is_default).toBe(false);

      ok(await w.post(`${roster}/import/`, { work_item_types: [wsDefault.id] }));
      expect(
        ok(await w.get(`${roster}/`))
          .data.map((x: { id: string }) => x.id)
          .sort(),
      ).toEqual(expect.arrayContaining([task.id, wsDefault.id]));
      expect(await defaults()).toEqual([wsDefault.id]);
      expect(ok(await w.get(`${roster}/${wsDefault.id}/`)).is_default).toBe(true);
      expect(ok(await w.get(`${roster}/${task.id}/`)).is_default).toBe(false);
      expect(await createdType()).toBe(wsDefault.id);
      // The workspace surface still shows the workspace default as such.
      expect(ok(await w.get(`${w.ws}/work-item-types/${wsDefault.id}/`)).is_default).toBe(true);

      await w.mode(false);
      expect(await defaults()).toEqual([task.id]);
      expect(ok(await w.get(`${roster}/${wsDefault.id}/`)).is_default).toBe(false);
      expect(await createdType()).toBe(task.id);
    });
  });

  describe('type properties (attach / detach)', () => {
    let projectId: string;
    let pr: string;
    let typeId: string;
    let props: Array<Record<string, any>>;
    beforeAll(async () => {
      projectId = (await t.project(ten.slug, ten.owner.key)).id;
      pr = api.pr(projectId);
      typeId = ok(await api.post(`${pr}/work-item-types/`, { name: 'Attachable' }), 201).id;
      props = [];
      for (const body of [
        { display_name: 'First', property_type: 'TEXT' },
        { display_name: 'Second', property_type: 'OPTION', options: [{ name: 'x' }, { name: 'y' }] },
        { display_name: 'Third', property_type: 'BOOLEAN', is_active: false },
      ])
        props.push(ok(await api.post(`${pr}/work-item-properties/`, body), 201));
    });

    it('attaches existing properties (201, ids only); re-attaching is harmless and creates no duplicate', async () => {
      const url = `${pr}/work-item-types/${typeId}/properties/`;
      const res = ok(await api.post(url, { properties: [props[1].id, props[0].id] }), 201);
      expect(res).toEqual({ properties: [props[1].id, props[0].id] });
      expect(ok(await api.post(url, { properties: [props[0].id, props[2].id, props[0].id] }), 201)).toEqual({
        properties: [props[0].id, props[2].id],
      });
      const list = ok(await api.get(url));
      expect(list.data.map((p: { id: string }) => p.id)).toEqual([props[1].id, props[0].id, props[2].id]);
      expect(list.total_count).toBe(3);
      // Rows are full property objects, options inline, inactive ones included.
      expect(list.data[0]).toMatchObject({
        name: 'second',
        property_type: 'OPTION',
        options: [{ name: 'x' }, { name: 'y' }],
      });
      expect(list.data[2].is_active).toBe(false);
      const rows = await t.ds.query(`SELECT count(*)::int AS c FROM work_item_type_properties WHERE type_id = $1`, [
        typeId,
      ]);
      expect(rows[0].c).toBe(3);
      expect((await audits(t, ten, 'work_item_type.properties_attached')).some((a) => a.target_id === typeId)).toBe(
        true,
      );
    });

    it('refuses an empty list, a definition, foreign or workspace-level ids with 400, attaching nothing', async () => {
      const other = (await t.project(ten.slug, ten.owner.key)).id;
      const fresh = ok(await api.post(`${pr}/work-item-types/`, { name: 'Fresh' }), 201).id;
      const url = `${pr}/work-item-types/${fresh}/properties/`;
      const foreign = ok(
        await api.post(`${api.pr(other)}/work-item-properties/`, { display_name: 'Elsewhere', property_type: 'TEXT' }),
        201,
      );
      const bad = async (body: unknown) =>
        expect(expectProblem(await api.post(url, body), 400, 'validation_error').errors[0].field).toBe('properties');
      await bad({ properties: [] });
      await bad({});
      await bad({ properties: [{ display_name: 'Inline', property_type: 'TEXT' }] });
      await bad({ properties: ['nope'] });
      await bad({ properties: [props[0].id, foreign.id] });
      await bad({ properties: [UNKNOWN] });
      await api.mode(true);
      const wsProp = ok(
        await api.post(`${api.ws}/work-item-properties/`, { display_name: 'Workspace prop', property_type: 'TEXT' }),
        201,
      );
      const wsType = ok(await api.post(`${api.ws}/work-item-types/`, { name: 'WsType' }), 201);
      expect(
        expectProblem(
          await api.post(`${api.ws}/work-item-types/${wsType.id}/properties/`, { properties: [props[0].id] }),
          400,
          'validation_error',
        ).errors[0].field,
      ).toBe('properties');
      ok(await api.post(`${api.ws}/work-item-types/${wsType.id}/properties/`, { properties: [wsProp.id] }), 201);
      await api.mode(false);
      await bad({ properties: [wsProp.id] });
      expect(ok(await api.get(url)).data).toEqual([]);
      expectProblem(
        await api.post(`${pr}/work-item-types/${UNKNOWN}/properties/`, { properties: [props[0].id] }),
        404,
        'resource_not_found',
      );
    });

    it('gets an attached property by property id (404 when not attached); detach is 204, the definition survives, a repeat is 404', async () => {
      const url = `${pr}/work-item-types/${typeId}/properties`;
      expect(ok(await api.get(`${url}/${props[1].id}/?expand=x`))).toEqual(
        ok(await api.get(`${pr}/work-item-properties/${props[1].id}/`)),
      );
      const loose = ok(
        await api.post(`${pr}/work-item-properties/`, { display_name: 'Loose', property_type: 'TEXT' }),
        201,
      );
      expectProblem(await api.get(`${url}/${loose.id}/`), 404, 'resource_not_found');
      const res = await api.del(`${url}/${props[0].id}/`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expectProblem(await api.del(`${url}/${props[0].id}/`), 404, 'resource_not_found');
      expectProblem(await api.get(`${url}/${props[0].id}/`), 404, 'resource_not_found');
      expect(ok(await api.get(`${pr}/work-item-properties/${props[0].id}/`)).name).toBe('first');
      expect((await audits(t, ten, 'work_item_type.property_detached')).some((a) => a.target_id === typeId)).toBe(true);
    });

    it('lists in attachment order by default (bare cursor 400); permissions follow the types scope', async () => {
      const url = `${pr}/work-item-types/${typeId}/properties/`;
      expectProblem(await api.get(`${url}?paginate=cursor`), 400, 'ordering_not_cursor_eligible');
      expect(ok(await api.get(`${url}?paginate=cursor&order_by=created_at`)).pagination.style).toBe('cursor');
      const propsScope = await t.token(ten.owner.email, ['projects.work_item_properties:write']);
      expectProblem(
        await t.http
          .post(url)
          .set('Authorization', `Bearer ${propsScope}`)
          .send({ properties: [props[0].id] }),
        403,
        'forbidden',
      );
      const typesScope = await t.token(ten.owner.email, ['projects.work_item_types:write']);
      ok(
        await t.http
          .post(url)
          .set('Authorization', `Bearer ${typesScope}`)
          .send({ properties: [props[0].id] }),
        201,
      );
      const contributor = await api.projectMember(projectId, 'contributor');
      expectProblem(
        await t.http
          .delete(`${pr}/work-item-types/${typeId}/properties/${props[0].id}/`)
          .set('X-Api-Key', contributor.key),
        403,
        'forbidden',
      );
    });
  });
});
