import { createTestApp, expectProblem, Tenant, TestApp, errorFieldSet } from '../helpers/test-app';
import { audits, ok, typeApi } from '../helpers/type-fixtures';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('property contexts (workspace surface)', () => {
  let t: TestApp;
  let ten: Tenant;
  let w: ReturnType<typeof typeApi>;
  let p1: string;
  let p2: string;
  let t1: string;
  let t2: string;
  let projectTypeId: string;
  let projectPropId: string;
  let foreignProject: string;

  const prop = async (body: Record<string, unknown>) => ok(await w.post(`${w.ws}/work-item-properties/`, body), 201);
  const ctxUrl = (propertyId: string) => `${w.ws}/work-item-properties/${propertyId}/contexts`;
  const schemaOf = async (projectId: string, typeId: string) =>
    ok(await w.get(`${w.pr(projectId)}/work-item-types/${typeId}/schema/`));

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    w = typeApi(t, ten);
    p1 = (await t.project(ten.slug, ten.owner.key)).id;
    p2 = (await t.project(ten.slug, ten.owner.key)).id;
    projectTypeId = ok(await w.post(`${w.pr(p1)}/work-item-types/enable/`)).id;
    projectPropId = ok(
      await w.post(`${w.pr(p1)}/work-item-properties/`, { display_name: 'Local', property_type: 'TEXT' }),
      201,
    ).id;
    const other = await t.tenant();
    foreignProject = (await t.project(other.slug, other.owner.key)).id;
    await w.mode(true);
    t1 = ok(await w.post(`${w.ws}/work-item-types/`, { name: 'Bug' }), 201).id;
    t2 = ok(await w.post(`${w.ws}/work-item-types/`, { name: 'Feature' }), 201).id;
    for (const p of [p1, p2]) ok(await w.post(`${w.pr(p)}/work-item-types/import/`, { work_item_types: [t1, t2] }));
  });
  afterAll(() => t.close());

  describe('validation of the context table', () => {
    let pid: string;
    let low: string;
    let high: string;
    beforeAll(async () => {
      const p = await prop({
        display_name: 'Risk',
        property_type: 'OPTION',
        options: [{ name: 'Low' }, { name: 'High' }],
      });
      pid = p.id;
      [low, high] = p.options.map((o: { id: string }) => o.id);
    });

    it('each axis must be pinned: by its flag or a non-empty list', async () => {
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, { name: 'A', applies_to_all_work_item_types: true }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['project_ids']);
      expect(
        errorFieldSet(
          expectProblem(await w.post(`${ctxUrl(pid)}/`, { name: 'A', project_ids: [p1] }), 400, 'validation_error'),
        ),
      ).toEqual(['issue_type_ids']);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, { name: 'A', project_ids: [], issue_type_ids: [] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['issue_type_ids', 'project_ids']);
      expect(
        errorFieldSet(expectProblem(await w.post(`${ctxUrl(pid)}/`, { name: 'A' }), 400, 'validation_error')),
      ).toEqual(['issue_type_ids', 'project_ids']);
    });

    it('a list sent with its wildcard flag true is 400', async () => {
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, {
              name: 'A',
              project_ids: [p1],
              applies_to_all_work_item_types: true,
              issue_type_ids: [t1],
            }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['issue_type_ids']);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, {
              name: 'A',
              applies_to_all_projects: true,
              project_ids: [p1],
              issue_type_ids: [t1],
            }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['project_ids']);
    });

    it('ids must belong to the workspace (projects; workspace-level types); duplicates are rejected', async () => {
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, { name: 'A', project_ids: [foreignProject], issue_type_ids: [t1] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['project_ids']);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, { name: 'A', project_ids: [UNKNOWN], issue_type_ids: [t1] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['project_ids']);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, { name: 'A', project_ids: [p1], issue_type_ids: [projectTypeId] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['issue_type_ids']);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, { name: 'A', project_ids: [p1, p1], issue_type_ids: [t1] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['project_ids']);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, { name: 'A', project_ids: [p1], issue_type_ids: [t1, t1.toUpperCase()] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['issue_type_ids']);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, { name: 'A', project_ids: ['nope'], issue_type_ids: [t1] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['project_ids']);
    });

    it("names are unique among the property's contexts (case-insensitive); the default name is taken by the seeded context", async () => {
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, { project_ids: [p1], issue_type_ids: [t1] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['name']);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, { name: 'default', project_ids: [p1], issue_type_ids: [t1] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['name']);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, { name: 'n'.repeat(256), project_ids: [p1], issue_type_ids: [t1] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['name']);
    });

    it('only one context per property may apply to all projects', async () => {
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, { name: 'All again', applies_to_all_projects: true, issue_type_ids: [t1] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['applies_to_all_projects']);
    });

    it('external_id and external_source come together, and the pair is unique within the property', async () => {
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, { name: 'E', project_ids: [p2], issue_type_ids: [t2], external_id: 'x' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['external_source']);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, {
              name: 'E',
              project_ids: [p2],
              issue_type_ids: [t2],
              external_source: 'jira',
            }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['external_id']);
      const c = ok(
        await w.post(`${ctxUrl(pid)}/`, {
          name: 'E1',
          project_ids: [p2],
          issue_type_ids: [t2],
          external_id: 'x',
          external_source: 'jira',
        }),
        201,
      );
      expect(c).toMatchObject({ external_id: 'x', external_source: 'jira' });
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, {
              name: 'E2',
              project_ids: [p1],
              issue_type_ids: [t2],
              external_id: 'x',
              external_source: 'jira',
            }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['external_id']);
      expect(
        errorFieldSet(
          expectProblem(await w.patch(`${ctxUrl(pid)}/${c.id}/`, { external_source: null }), 400, 'validation_error'),
        ),
      ).toEqual(['external_source']);
      expect((await w.del(`${ctxUrl(pid)}/${c.id}/`)).status).toBe(204);
    });

    it('two contexts of the same tier sharing a project (and a listed type) are rejected; strictly more specific ones may overlap', async () => {
      const a = ok(await w.post(`${ctxUrl(pid)}/`, { name: 'Tier1 A', project_ids: [p1], issue_type_ids: [t1] }), 201);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, { name: 'Tier1 B', project_ids: [p1, p2], issue_type_ids: [t1] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['project_ids']);
      const b = ok(
        await w.post(`${ctxUrl(pid)}/`, { name: 'Tier1 B', project_ids: [p1, p2], issue_type_ids: [t2] }),
        201,
      );
      const c = ok(
        await w.post(`${ctxUrl(pid)}/`, { name: 'Tier2 C', project_ids: [p1], applies_to_all_work_item_types: true }),
        201,
      );
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, {
              name: 'Tier2 D',
              project_ids: [p2, p1],
              applies_to_all_work_item_types: true,
            }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['project_ids']);
      // PATCH into an overlap is refused too.
      expect(
        errorFieldSet(
          expectProblem(
            await w.patch(`${ctxUrl(pid)}/${b.id}/`, { issue_type_ids: [t2, t1] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['project_ids']);
      for (const x of [a, b, c]) expect((await w.del(`${ctxUrl(pid)}/${x.id}/`)).status).toBe(204);
    });

    it('options entries: {id} of this property or {name}; anything else, duplicates and two defaults are 400', async () => {
      const body = (options: unknown) => ({ name: 'Opts', project_ids: [p2], issue_type_ids: [t1], options });
      expect(
        errorFieldSet(
          expectProblem(await w.post(`${ctxUrl(pid)}/`, body([{ description: 'neither' }])), 400, 'validation_error'),
        ),
      ).toEqual(['options.0']);
      expect(
        errorFieldSet(expectProblem(await w.post(`${ctxUrl(pid)}/`, body([{ id: UNKNOWN }])), 400, 'validation_error')),
      ).toEqual(['options.0.id']);
      expect(
        errorFieldSet(
          expectProblem(await w.post(`${ctxUrl(pid)}/`, body([{ id: low }, { id: low }])), 400, 'validation_error'),
        ),
      ).toEqual(['options.1.id']);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, body([{ name: 'New' }, { name: 'new' }])),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['options.1.name']);
      expect(
        errorFieldSet(
          expectProblem(await w.post(`${ctxUrl(pid)}/`, body([{ id: low }, { name: 'LOW' }])), 400, 'validation_error'),
        ),
      ).toEqual(['options.1.name']);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(
              `${ctxUrl(pid)}/`,
              body([
                { id: low, is_default: true },
                { name: 'X', is_default: true },
              ]),
            ),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['options']);
      expect(
        errorFieldSet(
          expectProblem(await w.post(`${ctxUrl(pid)}/`, body([{ name: 'n'.repeat(256) }])), 400, 'validation_error'),
        ),
      ).toEqual(['options.0.name']);
      const other = await prop({ display_name: 'Other risk', property_type: 'OPTION', options: [{ name: 'Z' }] });
      expect(
        errorFieldSet(
          expectProblem(await w.post(`${ctxUrl(pid)}/`, body([{ id: other.options[0].id }])), 400, 'validation_error'),
        ),
      ).toEqual(['options.0.id']);
      const text = await prop({ display_name: 'Free text', property_type: 'TEXT' });
      expect(
        errorFieldSet(
          expectProblem(await w.post(`${ctxUrl(text.id)}/`, body([{ name: 'a' }])), 400, 'validation_error'),
        ),
      ).toEqual(['options']);
    });

    it('a project-level property id is 404; a context of another property is 404', async () => {
      expectProblem(await w.get(`${ctxUrl(projectPropId)}/`), 404, 'resource_not_found');
      expectProblem(
        await w.post(`${ctxUrl(projectPropId)}/`, {
          name: 'x',
          applies_to_all_work_item_types: true,
          project_ids: [p1],
        }),
        404,
        'resource_not_found',
      );
      const [seeded] = ok(await w.get(`${ctxUrl(pid)}/`)).data;
      const other = await prop({ display_name: 'Another', property_type: 'TEXT' });
      expectProblem(await w.get(`${ctxUrl(other.id)}/${seeded.id}/`), 404, 'resource_not_found');
      expectProblem(await w.get(`${ctxUrl(pid)}/?expand=options`), 400, 'validation_error');
    });

    it('nothing was created by the refused requests', async () => {
      const list = ok(await w.get(`${ctxUrl(pid)}/`));
      expect(list.data.map((c: { name: string }) => c.name)).toEqual(['Default']);
      expect(
        ok(await w.get(`${w.ws}/work-item-properties/${pid}/options/`)).data.map((o: { id: string }) => o.id),
      ).toEqual([low, high]);
    });
  });

  describe('create, read, PATCH (set replacement) and DELETE', () => {
    let pid: string;
    let low: string;
    let high: string;
    beforeAll(async () => {
      const p = await prop({
        display_name: 'Severity',
        property_type: 'OPTION',
        is_required: false,
        options: [{ name: 'Low', is_default: true }, { name: 'High' }],
        settings: { a: 1 },
      });
      pid = p.id;
      [low, high] = p.options.map((o: { id: string }) => o.id);
    });

    it("creates with echoed ids, options in entry order and the property's values where omitted; audited", async () => {
      const c = ok(
        await w.post(`${ctxUrl(pid)}/`, {
          name: 'Bugs in P1',
          project_ids: [p1],
          issue_type_ids: [t1],
          is_required: true,
          options: [{ id: high }, { name: 'Critical', description: 'fire', is_default: true }, { id: low }],
        }),
        201,
      );
      expect(c).toEqual({
        id: expect.any(String),
        name: 'Bugs in P1',
        is_required: true,
        is_multi: false,
        is_default: false,
        default_value: [],
        settings: { a: 1 },
        sort_order: expect.any(Number),
        applies_to_all_projects: false,
        applies_to_all_work_item_types: false,
        project_ids: [p1],
        issue_type_ids: [t1],
        options: [
          { id: high, name: 'High', is_default: false, sort_order: 1 },
          { id: expect.any(String), name: 'Critical', is_default: true, sort_order: 2 },
          { id: low, name: 'Low', is_default: false, sort_order: 3 },
        ],
        external_id: null,
        external_source: null,
        created_at: expect.any(String),
      });
      // The new option is an option of the property (appended), not a default at property level.
      const opts = ok(await w.get(`${w.ws}/work-item-properties/${pid}/options/`)).data;
      expect(opts.map((o: { name: string; is_default: boolean }) => [o.name, o.is_default])).toEqual([
        ['Low', true],
        ['High', false],
        ['Critical', false],
      ]);
      const seeded = ok(await w.get(`${ctxUrl(pid)}/`)).data[0];
      expect(c.sort_order).toBeGreaterThan(seeded.sort_order);
      expect(ok(await w.get(`${ctxUrl(pid)}/${c.id}/`))).toEqual(c);
      const [entry] = (await audits(t, ten, 'work_item_property_context.created')).filter((a) => a.target_id === c.id);
      expect(entry.new_value).toMatchObject({ name: 'Bugs in P1', project_ids: [p1] });
      // default_value of an OPTION context must name options it offers.
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(pid)}/`, {
              name: 'Bad default',
              project_ids: [p2],
              issue_type_ids: [t1],
              options: [{ id: low }],
              default_value: [high],
            }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['default_value']);
    });

    it('lists in sort_order by default; bare cursor is 400; created_at / id cursors work', async () => {
      const list = ok(await w.get(`${ctxUrl(pid)}/`));
      expect(list.data.map((c: { name: string }) => c.name)).toEqual(['Default', 'Bugs in P1']);
      expectProblem(await w.get(`${ctxUrl(pid)}/?paginate=cursor`), 400, 'ordering_not_cursor_eligible');
      const cur = ok(await w.get(`${ctxUrl(pid)}/?paginate=cursor&order_by=-created_at&per_page=1`));
      expect(cur.data[0].name).toBe('Bugs in P1');
      expect(cur.has_more).toBe(true);
      expect(ok(await w.get(`${ctxUrl(pid)}/?order_by=-sort_order`)).data[0].name).toBe('Bugs in P1');
    });

    it('PATCH replaces project_ids, issue_type_ids and options as sets; wildcards switch with their lists', async () => {
      const c = ok(await w.get(`${ctxUrl(pid)}/`)).data.find((x: { name: string }) => x.name === 'Bugs in P1');
      const critical = c.options.find((o: { name: string }) => o.name === 'Critical');
      const a = ok(await w.patch(`${ctxUrl(pid)}/${c.id}/`, { project_ids: [p2, p1] }));
      expect(a.project_ids.sort()).toEqual([p1, p2].sort());
      expect(a.issue_type_ids).toEqual([t1]);
      expect(a.options).toHaveLength(3);
      // Turning the type wildcard on clears the list; off again needs ids in the same request.
      const b = ok(await w.patch(`${ctxUrl(pid)}/${c.id}/`, { applies_to_all_work_item_types: true }));
      expect(b).toMatchObject({ applies_to_all_work_item_types: true, issue_type_ids: [] });
      expect(
        errorFieldSet(
          expectProblem(
            await w.patch(`${ctxUrl(pid)}/${c.id}/`, { applies_to_all_work_item_types: false }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['issue_type_ids']);
      expect(
        errorFieldSet(
          expectProblem(await w.patch(`${ctxUrl(pid)}/${c.id}/`, { issue_type_ids: [t2] }), 400, 'validation_error'),
        ),
      ).toEqual(['issue_type_ids']);
      const d = ok(
        await w.patch(`${ctxUrl(pid)}/${c.id}/`, {
          applies_to_all_work_item_types: false,
          issue_type_ids: [t2],
          name: 'Features',
        }),
      );
      expect(d).toMatchObject({ name: 'Features', applies_to_all_work_item_types: false, issue_type_ids: [t2] });
      expect(
        errorFieldSet(
          expectProblem(await w.patch(`${ctxUrl(pid)}/${c.id}/`, { name: 'DEFAULT' }), 400, 'validation_error'),
        ),
      ).toEqual(['name']);
      expect(
        errorFieldSet(
          expectProblem(await w.patch(`${ctxUrl(pid)}/${c.id}/`, { project_ids: [] }), 400, 'validation_error'),
        ),
      ).toEqual(['project_ids']);

      // Options: the list replaces the set. Critical (offered only here) is deleted; Low stays (offered by Default).
      const e = ok(
        await w.patch(`${ctxUrl(pid)}/${c.id}/`, { options: [{ id: high, name: 'ignored', is_default: true }] }),
      );
      expect(e.options).toEqual([{ id: high, name: 'High', is_default: true, sort_order: 1 }]);
      expectProblem(
        await w.get(`${w.ws}/work-item-properties/${pid}/options/${critical.id}/`),
        404,
        'resource_not_found',
      );
      expect(ok(await w.get(`${w.ws}/work-item-properties/${pid}/options/${low}/`)).name).toBe('Low');
      const [entry] = (await audits(t, ten, 'work_item_property_context.updated'))
        .filter((x) => x.target_id === c.id)
        .slice(-1);
      expect(entry.metadata.options_deleted).toEqual([critical.id]);
      expect(entry.old_value.options).toHaveLength(3);
      expect(entry.new_value.options).toEqual([high]);
      // Omitted fields stay; null options clears the set.
      const f = ok(await w.patch(`${ctxUrl(pid)}/${c.id}/`, { is_multi: true }));
      expect(f).toMatchObject({
        is_multi: true,
        name: 'Features',
        options: [{ id: high, name: 'High', is_default: true, sort_order: 1 }],
      });
      expect(ok(await w.patch(`${ctxUrl(pid)}/${c.id}/`, { options: null })).options).toEqual([]);
    });

    it('DELETE: 204, its exclusive options go, a repeat is 404; deleting the seeded context frees the all-projects slot', async () => {
      const c = ok(
        await w.post(`${ctxUrl(pid)}/`, {
          name: 'Temp',
          project_ids: [p2],
          issue_type_ids: [t1],
          options: [{ name: 'Only here' }, { id: low }],
        }),
        201,
      );
      const only = c.options[0].id;
      const res = await w.del(`${ctxUrl(pid)}/${c.id}/`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expectProblem(await w.del(`${ctxUrl(pid)}/${c.id}/`), 404, 'resource_not_found');
      expectProblem(await w.get(`${w.ws}/work-item-properties/${pid}/options/${only}/`), 404, 'resource_not_found');
      expect(ok(await w.get(`${w.ws}/work-item-properties/${pid}/options/${low}/`)).id).toBe(low);

      const [seeded] = ok(await w.get(`${ctxUrl(pid)}/`)).data;
      expect((await w.del(`${ctxUrl(pid)}/${seeded.id}/`)).status).toBe(204);
      const again = ok(
        await w.post(`${ctxUrl(pid)}/`, {
          name: 'Everywhere',
          applies_to_all_projects: true,
          applies_to_all_work_item_types: true,
        }),
        201,
      );
      expect(again).toMatchObject({ applies_to_all_projects: true, is_default: false });
      expect((await audits(t, ten, 'work_item_property_context.deleted')).some((a) => a.target_id === seeded.id)).toBe(
        true,
      );
    });

    it('permissions: members read, admins write', async () => {
      const member = await t.member(ten.slug, 'member');
      expect((await t.http.get(`${ctxUrl(pid)}/`).set('X-Api-Key', member.key)).status).toBe(200);
      expectProblem(
        await t.http
          .post(`${ctxUrl(pid)}/`)
          .set('X-Api-Key', member.key)
          .send({ name: 'x' }),
        403,
        'forbidden',
      );
      const tok = await t.token(ten.owner.email, ['workspaces.work_item_properties:read']);
      expectProblem(
        await t.http
          .post(`${ctxUrl(pid)}/`)
          .set('Authorization', `Bearer ${tok}`)
          .send({ name: 'x' }),
        403,
        'forbidden',
      );
    });
  });

  describe('definition rules shared with the property', () => {
    it("a FORMULA property's context cannot be required (400 naming is_required), on create and on PATCH", async () => {
      const p = await prop({ display_name: 'Computed', property_type: 'FORMULA', settings: { expression: '1 + 1' } });
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${ctxUrl(p.id)}/`, {
              name: 'P1 required',
              project_ids: [p1],
              applies_to_all_work_item_types: true,
              is_required: true,
            }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['is_required']);
      const [seeded] = ok(await w.get(`${ctxUrl(p.id)}/`)).data;
      expect(
        errorFieldSet(
          expectProblem(await w.patch(`${ctxUrl(p.id)}/${seeded.id}/`, { is_required: true }), 400, 'validation_error'),
        ),
      ).toEqual(['is_required']);
      expect(ok(await w.get(`${ctxUrl(p.id)}/${seeded.id}/`)).is_required).toBe(false);
      expect(ok(await w.get(`${ctxUrl(p.id)}/`)).data).toHaveLength(1);
      // Not required stays writable; so does an unrelated PATCH.
      ok(
        await w.post(`${ctxUrl(p.id)}/`, {
          name: 'P1 optional',
          project_ids: [p1],
          applies_to_all_work_item_types: true,
          is_required: false,
        }),
        201,
      );
      ok(await w.patch(`${ctxUrl(p.id)}/${seeded.id}/`, { settings: { expression: '2' } }));
    });

    it('a property-level default_value mirrored into the seeded context must be offered there (400 naming default_value)', async () => {
      const p = await prop({
        display_name: 'Mirrored',
        property_type: 'OPTION',
        options: [{ name: 'Kept' }, { name: 'Narrow only' }],
      });
      const [kept, narrowOnly] = p.options.map((o: { id: string }) => o.id);
      ok(
        await w.post(`${ctxUrl(p.id)}/`, {
          name: 'P1 narrow',
          project_ids: [p1],
          issue_type_ids: [t1],
          options: [{ id: kept }, { id: narrowOnly }],
        }),
        201,
      );
      const [seeded] = ok(await w.get(`${ctxUrl(p.id)}/`)).data;
      ok(await w.patch(`${ctxUrl(p.id)}/${seeded.id}/`, { options: [{ id: kept }] }));
      // narrowOnly is still an option of the property (the narrow context offers it) but not of the seeded context.
      const bad = expectProblem(
        await w.patch(`${w.ws}/work-item-properties/${p.id}/`, { default_value: [narrowOnly] }),
        400,
        'validation_error',
      );
      expect(errorFieldSet(bad)).toEqual(['default_value']);
      expect(ok(await w.get(`${w.ws}/work-item-properties/${p.id}/`)).default_value).toEqual([]);
      expect(ok(await w.get(`${ctxUrl(p.id)}/${seeded.id}/`)).default_value).toEqual([]);
      const good = ok(await w.patch(`${w.ws}/work-item-properties/${p.id}/`, { default_value: [kept] }));
      expect(good.default_value).toEqual([kept]);
      expect(ok(await w.get(`${ctxUrl(p.id)}/${seeded.id}/`)).default_value).toEqual([kept]);
    });
  });

  describe('precedence: the most specific matching context wins whole', () => {
    it('tier 1 (listed project and type) > tier 2 (listed project, all types) > tier 4 (all and all); nothing merged', async () => {
      const p = await prop({
        display_name: 'Level',
        property_type: 'OPTION',
        options: [{ name: 'A' }, { name: 'B' }, { name: 'C' }],
      });
      for (const ty of [t1, t2])
        ok(await w.post(`${w.ws}/work-item-types/${ty}/properties/`, { properties: [p.id] }), 201);
      const [a, b, c] = p.options.map((o: { id: string }) => o.id);
      ok(
        await w.post(`${ctxUrl(p.id)}/`, {
          name: 'P1 all types',
          project_ids: [p1],
          applies_to_all_work_item_types: true,
          is_required: true,
          options: [{ id: b }],
          settings: { tier: 2 },
        }),
        201,
      );
      ok(
        await w.post(`${ctxUrl(p.id)}/`, {
          name: 'P1 bugs',
          project_ids: [p1],
          issue_type_ids: [t1],
          is_multi: true,
          options: [{ id: c }, { id: b }],
        }),
        201,
      );
      // Narrowing the seeded context's options keeps b and c: other contexts still offer them.
      const [seeded] = ok(await w.get(`${ctxUrl(p.id)}/`)).data;
      ok(await w.patch(`${ctxUrl(p.id)}/${seeded.id}/`, { options: [{ id: a }] }));
      expect(ok(await w.get(`${w.ws}/work-item-properties/${p.id}/options/`)).data).toHaveLength(3);

      const tier1 = (await schemaOf(p1, t1)).custom_fields.level;
      expect(tier1).toMatchObject({ required: false, is_multi: true });
      expect(tier1.options.map((o: { id: string }) => o.id)).toEqual([c, b]);
      const tier2 = (await schemaOf(p1, t2)).custom_fields.level;
      expect(tier2).toMatchObject({ required: true, is_multi: false });
      expect(tier2.options.map((o: { id: string }) => o.id)).toEqual([b]);
      const tier4 = (await schemaOf(p2, t1)).custom_fields.level;
      expect(tier4).toMatchObject({ required: false, is_multi: false });
      expect(tier4.options.map((o: { id: string }) => o.id)).toEqual([a]);
    });

    it('tier 3 (all projects, listed types) applies where nothing more specific matches, loses to tier 2 and 1; no match hides the property', async () => {
      const p = await prop({ display_name: 'Scope', property_type: 'TEXT' });
      for (const ty of [t1, t2])
        ok(await w.post(`${w.ws}/work-item-types/${ty}/properties/`, { properties: [p.id] }), 201);
      const [seeded] = ok(await w.get(`${ctxUrl(p.id)}/`)).data;
      const narrowed = ok(
        await w.patch(`${ctxUrl(p.id)}/${seeded.id}/`, {
          applies_to_all_work_item_types: false,
          issue_type_ids: [t1],
          is_required: true,
          default_value: ['t3'],
        }),
      );
      expect(narrowed).toMatchObject({ applies_to_all_projects: true, issue_type_ids: [t1] });
      const tier3 = (await schemaOf(p2, t1)).custom_fields.scope;
      expect(tier3).toMatchObject({ required: true, default_value: ['t3'] });
      // No context covers (P2, Feature): the property does not apply there.
      expect((await schemaOf(p2, t2)).custom_fields.scope).toBeUndefined();

      ok(
        await w.post(`${ctxUrl(p.id)}/`, {
          name: 'P1 any',
          project_ids: [p1],
          applies_to_all_work_item_types: true,
          is_required: false,
          default_value: ['t2'],
        }),
        201,
      );
      expect((await schemaOf(p1, t1)).custom_fields.scope).toMatchObject({ required: false, default_value: ['t2'] });
      expect((await schemaOf(p1, t2)).custom_fields.scope).toMatchObject({ default_value: ['t2'] });
      ok(
        await w.post(`${ctxUrl(p.id)}/`, {
          name: 'P1 bug',
          project_ids: [p1],
          issue_type_ids: [t1],
          default_value: ['t1'],
        }),
        201,
      );
      expect((await schemaOf(p1, t1)).custom_fields.scope).toMatchObject({ default_value: ['t1'] });
      expect((await schemaOf(p2, t1)).custom_fields.scope).toMatchObject({ default_value: ['t3'] });
    });

    it("the seeded context's is_default marker has no effect on resolution", async () => {
      const p = await prop({ display_name: 'Marker', property_type: 'TEXT', default_value: ['seeded'] });
      ok(await w.post(`${w.ws}/work-item-types/${t2}/properties/`, { properties: [p.id] }), 201);
      ok(
        await w.post(`${ctxUrl(p.id)}/`, {
          name: 'P2 features',
          project_ids: [p2],
          issue_type_ids: [t2],
          default_value: ['narrow'],
        }),
        201,
      );
      expect((await schemaOf(p2, t2)).custom_fields.marker.default_value).toEqual(['narrow']);
      expect((await schemaOf(p1, t2)).custom_fields.marker.default_value).toEqual(['seeded']);
    });
  });
});
