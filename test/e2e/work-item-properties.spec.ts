import { createTestApp, expectProblem, Tenant, TestApp, errorFieldSet } from '../helpers/test-app';
import { audits, ok, typeApi } from '../helpers/type-fixtures';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('work item properties and options', () => {
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
      base = `${api.pr(projectId)}/work-item-properties`;
    });

    it('creates a property: name is a slug derived once from display_name; read shape complete', async () => {
      const res = ok(
        await api.post(`${base}/`, {
          display_name: 'Story Points',
          property_type: 'DECIMAL',
          name: 'ignored',
          default_value: ['3'],
          description: 'Effort',
          logo_props: { a: 1 },
        }),
        201,
      );
      expect(res).toEqual({
        id: expect.any(String),
        name: 'story_points',
        display_name: 'Story Points',
        description: 'Effort',
        property_type: 'DECIMAL',
        relation_type: null,
        is_multi: false,
        is_required: false,
        is_active: true,
        default_value: ['3'],
        options: [],
        settings: {},
        validation_rules: {},
        logo_props: {},
        external_id: null,
        external_source: null,
        created_at: expect.any(String),
      });
      const second = ok(await api.post(`${base}/`, { display_name: 'story points!', property_type: 'TEXT' }), 201);
      expect(second.name).toBe('story_points_2');
      const accents = ok(
        await api.post(`${base}/`, { display_name: 'Échéance client', property_type: 'DATETIME' }),
        201,
      );
      expect(accents.name).toBe('echeance_client');
      const renamed = ok(await api.patch(`${base}/${res.id}/`, { display_name: 'Effort points', name: 'nope' }));
      expect(renamed).toMatchObject({ name: 'story_points', display_name: 'Effort points' });
      const [entry] = (await audits(t, ten, 'work_item_property.created')).filter((a) => a.target_id === res.id);
      expect(entry).toMatchObject({
        category: 'settings',
        outcome: 'success',
        target_type: 'work_item_property',
        project_id: projectId,
      });
      expect(entry.new_value).toMatchObject({ name: 'story_points', property_type: 'DECIMAL', default_value: ['3'] });
      const [upd] = (await audits(t, ten, 'work_item_property.updated')).filter((a) => a.target_id === res.id);
      expect(upd.old_value).toEqual({ display_name: 'Story Points' });
      expect(upd.new_value).toEqual({ display_name: 'Effort points' });
    });

    it('rejects bad definitions with 400 naming the field', async () => {
      expect(errorFieldSet(expectProblem(await api.post(`${base}/`, {}), 400, 'validation_error'))).toEqual([
        'display_name',
        'property_type',
      ]);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${base}/`, { display_name: 'X', property_type: 'NUMBER' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['property_type']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${base}/`, { display_name: 'x'.repeat(256), property_type: 'TEXT' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['display_name']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${base}/`, { display_name: 'Rel', property_type: 'RELATION' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['relation_type']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${base}/`, { display_name: 'Rel', property_type: 'RELATION', relation_type: 'PAGE' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['relation_type']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${base}/`, { display_name: 'T', property_type: 'TEXT', relation_type: 'USER' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['relation_type']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${base}/`, { display_name: 'T', property_type: 'TEXT', is_multi: true }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['is_multi']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${base}/`, { display_name: 'F', property_type: 'FORMULA', is_required: true }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['is_required']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${base}/`, { display_name: 'T', property_type: 'TEXT', options: [{ name: 'a' }] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['options']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${base}/`, {
              display_name: 'O',
              property_type: 'OPTION',
              options: [{ description: 'no name' }],
            }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['options.0.name']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${base}/`, {
              display_name: 'O',
              property_type: 'OPTION',
              options: [
                { name: 'a', is_default: true },
                { name: 'b', is_default: true },
              ],
            }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['options']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${base}/`, {
              display_name: 'O',
              property_type: 'OPTION',
              options: [{ name: 'a' }, { name: 'A' }],
            }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['options.1.name']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${base}/`, { display_name: 'T', property_type: 'TEXT', settings: 'x' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['settings']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${base}/`, { display_name: 'T', property_type: 'TEXT', external_id: 'e'.repeat(256) }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['external_id']);
      // Nothing was created by the failed attempts.
      expect(
        ok(await api.get(`${base}/`)).data.filter((p: { display_name: string }) =>
          ['Rel', 'T', 'O', 'F'].includes(p.display_name),
        ),
      ).toEqual([]);
    });

    it('a blank display_name is 400 naming display_name, on create and PATCH', async () => {
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${base}/`, { display_name: '   ', property_type: 'TEXT' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['display_name']);
      const p = ok(await api.post(`${base}/`, { display_name: '  Padded  ', property_type: 'TEXT' }), 201);
      expect(p).toMatchObject({ display_name: 'Padded', name: 'padded' });
      expect(
        errorFieldSet(
          expectProblem(await api.patch(`${base}/${p.id}/`, { display_name: ' \t ' }), 400, 'validation_error'),
        ),
      ).toEqual(['display_name']);
      expect(ok(await api.get(`${base}/${p.id}/`)).display_name).toBe('Padded');
    });

    it('default_value is always an array of strings, checked against the type', async () => {
      const bad = async (body: Record<string, unknown>) =>
        errorFieldSet(
          expectProblem(await api.post(`${base}/`, { display_name: 'D', ...body }), 400, 'validation_error'),
        );
      expect(await bad({ property_type: 'DECIMAL', default_value: ['abc'] })).toEqual(['default_value']);
      expect(await bad({ property_type: 'DECIMAL', default_value: [3] })).toEqual(['default_value']);
      expect(await bad({ property_type: 'DECIMAL', default_value: '3' })).toEqual(['default_value']);
      expect(await bad({ property_type: 'BOOLEAN', default_value: ['yes'] })).toEqual(['default_value']);
      expect(await bad({ property_type: 'TEXT', default_value: ['a', 'b'] })).toEqual(['default_value']);
      expect(await bad({ property_type: 'URL', default_value: ['not a url'] })).toEqual(['default_value']);
      expect(await bad({ property_type: 'EMAIL', default_value: ['nobody'] })).toEqual(['default_value']);
      expect(await bad({ property_type: 'DATETIME', default_value: ['yesterday'] })).toEqual(['default_value']);
      expect(await bad({ property_type: 'FORMULA', default_value: ['1'] })).toEqual(['default_value']);
      expect(await bad({ property_type: 'OPTION', options: [{ name: 'Low' }], default_value: ['Medium'] })).toEqual([
        'default_value.0',
      ]);
      expect(await bad({ property_type: 'TEXT', default_value: ['abc'], validation_rules: { min_length: 5 } })).toEqual(
        ['default_value'],
      );
      expect(
        ok(await api.post(`${base}/`, { display_name: 'Flag', property_type: 'BOOLEAN', default_value: ['true'] }), 201)
          .default_value,
      ).toEqual(['true']);
      const cleared = ok(
        await api.post(`${base}/`, { display_name: 'Cleared', property_type: 'TEXT', default_value: null }),
        201,
      );
      expect(cleared.default_value).toEqual([]);
      // OPTION: a name of an option sent in the same request is stored as its id.
      const opt = ok(
        await api.post(`${base}/`, {
          display_name: 'Severity',
          property_type: 'OPTION',
          options: [{ name: 'Low' }, { name: 'High' }],
          default_value: ['high'],
        }),
        201,
      );
      const high = opt.options.find((o: { name: string }) => o.name === 'High');
      expect(opt.default_value).toEqual([high.id]);
      const p = ok(await api.patch(`${base}/${opt.id}/`, { default_value: [] }));
      expect(p.default_value).toEqual([]);
      expectProblem(await api.patch(`${base}/${opt.id}/`, { default_value: [UNKNOWN] }), 400, 'validation_error');
      // A type change that makes the stored default invalid must come with a new default.
      const dec = ok(
        await api.post(`${base}/`, { display_name: 'Est', property_type: 'DECIMAL', default_value: ['2'] }),
        201,
      );
      expect(
        errorFieldSet(
          expectProblem(await api.patch(`${base}/${dec.id}/`, { property_type: 'BOOLEAN' }), 400, 'validation_error'),
        ),
      ).toEqual(['default_value']);
      expect(
        ok(await api.patch(`${base}/${dec.id}/`, { property_type: 'BOOLEAN', default_value: ['false'] })).property_type,
      ).toBe('BOOLEAN');
    });

    it('settings and validation_rules are replaced whole; rules are validated per type', async () => {
      const p = ok(
        await api.post(`${base}/`, {
          display_name: 'Summary',
          property_type: 'TEXT',
          settings: { display_format: 'multi-line', a: 1 },
          validation_rules: { max_length: 50, min_length: 2 },
        }),
        201,
      );
      expect(p.settings).toEqual({ display_format: 'multi-line', a: 1 });
      const r = ok(
        await api.patch(`${base}/${p.id}/`, { settings: { b: 2 }, validation_rules: { pattern: '^[A-Z]' } }),
      );
      expect(r.settings).toEqual({ b: 2 });
      expect(r.validation_rules).toEqual({ pattern: '^[A-Z]' });
      const cleared = ok(await api.patch(`${base}/${p.id}/`, { settings: null, validation_rules: null }));
      expect(cleared).toMatchObject({ settings: {}, validation_rules: {} });
      expect(
        errorFieldSet(
          expectProblem(
            await api.patch(`${base}/${p.id}/`, { validation_rules: { maximum: 3 } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['validation_rules.maximum']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.patch(`${base}/${p.id}/`, { validation_rules: { min_length: 5, max_length: 2 } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['validation_rules.min_length']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.patch(`${base}/${p.id}/`, { validation_rules: { pattern: '([' } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['validation_rules.pattern']);
      // Options must be objects (a nested array was a 500).
      for (const options of [[[]], [[{ name: 'a' }]], ['a']]) {
        expect(
          errorFieldSet(
            expectProblem(
              await api.post(`${base}/`, { display_name: 'Nested', property_type: 'OPTION', options }),
              400,
              'validation_error',
            ),
          ),
        ).toContain('options');
      }
      expect(
        errorFieldSet(
          expectProblem(
            await api.patch(`${base}/${p.id}/`, { validation_rules: { max_length: -1 } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['validation_rules.max_length']);
      const dec = ok(
        await api.post(`${base}/`, {
          display_name: 'Budget',
          property_type: 'DECIMAL',
          validation_rules: { min: 0, max: 100, integer: true, decimal_places: 0 },
        }),
        201,
      );
      expect(dec.validation_rules).toEqual({ min: 0, max: 100, integer: true, decimal_places: 0 });
      expectProblem(
        await api.post(`${base}/`, { display_name: 'B2', property_type: 'BOOLEAN', validation_rules: { min: 1 } }),
        400,
        'validation_error',
      );
    });

    it('options are write-only on create and PATCH and resolved inline on reads; PATCH matches by name', async () => {
      const p = ok(
        await api.post(`${base}/`, {
          display_name: 'Priority level',
          property_type: 'OPTION',
          options: [
            { name: 'P1', is_default: true },
            { name: 'P2', description: 'second' },
          ],
        }),
        201,
      );
      expect(p.options.map((o: { name: string }) => o.name)).toEqual(['P1', 'P2']);
      expect(p.options[0]).toEqual({
        id: expect.any(String),
        name: 'P1',
        description: '',
        is_default: true,
        sort_order: expect.any(Number),
        external_id: null,
        external_source: null,
      });
      expect(p.options[1].sort_order).toBeGreaterThan(p.options[0].sort_order);
      const patched = ok(
        await api.patch(`${base}/${p.id}/`, {
          options: [{ name: 'p2', description: 'updated', is_default: true }, { name: 'P3' }],
        }),
      );
      expect(
        patched.options.map((o: { name: string; description: string; is_default: boolean }) => [
          o.name,
          o.description,
          o.is_default,
        ]),
      ).toEqual([
        ['P1', '', false],
        ['P2', 'updated', true],
        ['P3', '', false],
      ]);
      expect(patched.options[1].id).toBe(p.options[1].id);
      expect(ok(await api.get(`${base}/${p.id}/`)).options).toHaveLength(3);
      // Listing and get of a non-OPTION property show options: [].
      expect(
        ok(await api.get(`${base}/`)).data.find((x: { name: string }) => x.name === 'story_points').options,
      ).toEqual([]);
    });

    it("reads ignore ?expand= (flat object); lists include inactive properties; another project's property is 404", async () => {
      const p = ok(
        await api.post(`${base}/`, { display_name: 'Hidden', property_type: 'TEXT', is_active: false }),
        201,
      );
      expect(ok(await api.get(`${base}/${p.id}/?expand=options,anything`))).toEqual(p);
      const list = ok(await api.get(`${base}/?expand=x&per_page=200`));
      expect(list.data.some((x: { id: string }) => x.id === p.id)).toBe(true);
      ok(await api.patch(`${base}/${p.id}/?expand=x`, { is_active: true }));
      const other = (await t.project(ten.slug, ten.owner.key)).id;
      expectProblem(await api.get(`${api.pr(other)}/work-item-properties/${p.id}/`), 404, 'resource_not_found');
      expectProblem(
        await api.patch(`${api.pr(other)}/work-item-properties/${p.id}/`, { display_name: 'x' }),
        404,
        'resource_not_found',
      );
      expectProblem(await api.get(`${base}/${UNKNOWN}/`), 404, 'resource_not_found');
      const ordered = ok(await api.get(`${base}/?order_by=-created_at&per_page=1`));
      expect(ordered.data[0].id).toBe(p.id);
      expectProblem(await api.get(`${base}/?paginate=cursor`), 400, 'ordering_not_cursor_eligible');
      expect(ok(await api.get(`${base}/?paginate=cursor&order_by=id`)).pagination.style).toBe('cursor');
    });

    it('DELETE is permanent: options and attachments go, a repeat is 404, audited', async () => {
      const p = ok(
        await api.post(`${base}/`, { display_name: 'Doomed', property_type: 'OPTION', options: [{ name: 'a' }] }),
        201,
      );
      const type = ok(await api.post(`${api.pr(projectId)}/work-item-types/`, { name: 'With doomed' }), 201);
      ok(await api.post(`${api.pr(projectId)}/work-item-types/${type.id}/properties/`, { properties: [p.id] }), 201);
      expect((await api.del(`${base}/${p.id}/`)).status).toBe(204);
      expectProblem(await api.del(`${base}/${p.id}/`), 404, 'resource_not_found');
      expectProblem(await api.get(`${base}/${p.id}/`), 404, 'resource_not_found');
      expectProblem(await api.get(`${base}/${p.id}/options/${p.options[0].id}/`), 404, 'resource_not_found');
      expect(ok(await api.get(`${api.pr(projectId)}/work-item-types/${type.id}/properties/`)).data).toEqual([]);
      const [entry] = (await audits(t, ten, 'work_item_property.deleted')).filter((a) => a.target_id === p.id);
      expect(entry.old_value).toMatchObject({ name: 'doomed', property_type: 'OPTION' });
    });

    it('permissions: guests read, only project admins write; the properties scope is needed', async () => {
      const guest = await api.projectMember(projectId, 'guest');
      const contributor = await api.projectMember(projectId, 'contributor');
      expect((await t.http.get(`${base}/`).set('X-Api-Key', guest.key)).status).toBe(200);
      expectProblem(
        await t.http
          .post(`${base}/`)
          .set('X-Api-Key', contributor.key)
          .send({ display_name: 'No', property_type: 'TEXT' }),
        403,
        'forbidden',
      );
      const typesScope = await t.token(ten.owner.email, ['projects.work_item_types:write']);
      expectProblem(
        await t.http
          .post(`${base}/`)
          .set('Authorization', `Bearer ${typesScope}`)
          .send({ display_name: 'No', property_type: 'TEXT' }),
        403,
        'forbidden',
      );
      const wsScope = await t.token(ten.owner.email, ['workspaces.work_item_properties:read']);
      expectProblem(await t.http.get(`${base}/`).set('Authorization', `Bearer ${wsScope}`), 403, 'forbidden');
    });

    describe('options (project surface)', () => {
      let prop: Record<string, any>;
      let ob: string;
      beforeAll(async () => {
        prop = ok(await api.post(`${base}/`, { display_name: 'Stage', property_type: 'OPTION' }), 201);
        ob = `${base}/${prop.id}/options`;
      });

      it('creates appended options; sort_order is not writable; only OPTION properties have options', async () => {
        const a = ok(
          await api.post(`${ob}/`, { name: 'Draft', sort_order: 99999, external_id: 'd', external_source: 'x' }),
          201,
        );
        const b = ok(await api.post(`${ob}/`, { name: 'Review', sort_order: -5 }), 201);
        expect(a).toEqual({
          id: expect.any(String),
          name: 'Draft',
          description: '',
          is_default: false,
          sort_order: expect.any(Number),
          external_id: 'd',
          external_source: 'x',
        });
        expect(b.sort_order).toBeGreaterThan(a.sort_order);
        expect(a.sort_order).not.toBe(99999);
        const text = ok(await api.post(`${base}/`, { display_name: 'Plain', property_type: 'TEXT' }), 201);
        expectProblem(await api.post(`${base}/${text.id}/options/`, { name: 'x' }), 400, 'validation_error');
        expect(errorFieldSet(expectProblem(await api.post(`${ob}/`, {}), 400, 'validation_error'))).toEqual(['name']);
        expect(
          errorFieldSet(expectProblem(await api.post(`${ob}/`, { name: 'n'.repeat(256) }), 400, 'validation_error')),
        ).toEqual(['name']);
        expectProblem(await api.post(`${base}/${UNKNOWN}/options/`, { name: 'x' }), 404, 'resource_not_found');
        expect((await audits(t, ten, 'work_item_property_option.created')).some((e) => e.target_id === a.id)).toBe(
          true,
        );
      });

      it('lists in sort_order (bare cursor 400), gets, and scopes options to their property', async () => {
        const list = ok(await api.get(`${ob}/?expand=x`));
        expect(list.data.map((o: { name: string }) => o.name)).toEqual(['Draft', 'Review']);
        expectProblem(await api.get(`${ob}/?paginate=cursor`), 400, 'ordering_not_cursor_eligible');
        const page = ok(await api.get(`${ob}/?paginate=cursor&order_by=created_at&per_page=1`));
        expect(page.has_more).toBe(true);
        const one = list.data[0];
        expect(ok(await api.get(`${ob}/${one.id}/`))).toEqual(one);
        const other = ok(
          await api.post(`${base}/`, {
            display_name: 'Other options',
            property_type: 'OPTION',
            options: [{ name: 'z' }],
          }),
          201,
        );
        expectProblem(await api.get(`${base}/${other.id}/options/${one.id}/`), 404, 'resource_not_found');
        expectProblem(
          await api.patch(`${base}/${other.id}/options/${one.id}/`, { name: 'x' }),
          404,
          'resource_not_found',
        );
        const p2 = (await t.project(ten.slug, ten.owner.key)).id;
        expectProblem(
          await api.get(`${api.pr(p2)}/work-item-properties/${prop.id}/options/`),
          404,
          'resource_not_found',
        );
      });

      it('PATCH: the default moves (at most one per property); sort_order ignored', async () => {
        const [draft, review] = ok(await api.get(`${ob}/`)).data;
        ok(await api.patch(`${ob}/${draft.id}/`, { is_default: true }));
        const moved = ok(
          await api.patch(`${ob}/${review.id}/`, { is_default: true, sort_order: 1, name: 'In review' }),
        );
        expect(moved).toMatchObject({ name: 'In review', is_default: true, sort_order: review.sort_order });
        const after = ok(await api.get(`${ob}/`)).data;
        expect(after.filter((o: { is_default: boolean }) => o.is_default).map((o: { id: string }) => o.id)).toEqual([
          review.id,
        ]);
        expectProblem(await api.patch(`${ob}/${draft.id}/`, { name: null }), 400, 'validation_error');
        const [upd] = (await audits(t, ten, 'work_item_property_option.updated')).filter(
          (e) => e.target_id === review.id,
        );
        expect(upd.new_value).toMatchObject({ is_default: true, name: 'In review' });
      });

      it('DELETE is 204; a repeat is 404', async () => {
        const o = ok(await api.post(`${ob}/`, { name: 'Temp' }), 201);
        const res = await api.del(`${ob}/${o.id}/`);
        expect(res.status).toBe(204);
        expect(res.text).toBe('');
        expectProblem(await api.del(`${ob}/${o.id}/`), 404, 'resource_not_found');
        expect(ok(await api.get(`${base}/${prop.id}/`)).options.some((x: { id: string }) => x.id === o.id)).toBe(false);
      });
    });
  });

  describe('workspace surface (workspace mode)', () => {
    let own: Tenant;
    let w: ReturnType<typeof typeApi>;
    let base: string;
    let projectPropId: string;
    beforeAll(async () => {
      own = await t.tenant();
      w = typeApi(t, own);
      const p = (await t.project(own.slug, own.owner.key)).id;
      projectPropId = ok(
        await w.post(`${w.pr(p)}/work-item-properties/`, {
          display_name: 'Project level',
          property_type: 'OPTION',
          options: [{ name: 'x' }],
        }),
        201,
      ).id;
      await w.mode(true);
      base = `${w.ws}/work-item-properties`;
    });

    it('creating a property seeds a context named Default covering all projects and all types, with the options', async () => {
      const p = ok(
        await w.post(`${base}/`, {
          display_name: 'Risk',
          property_type: 'OPTION',
          is_required: true,
          options: [{ name: 'Low', is_default: true }, { name: 'High' }],
        }),
        201,
      );
      expect(p.name).toBe('risk');
      const ctxs = ok(await w.get(`${base}/${p.id}/contexts/`));
      expect(ctxs.data).toHaveLength(1);
      expect(ctxs.data[0]).toMatchObject({
        name: 'Default',
        is_default: true,
        is_required: true,
        is_multi: false,
        applies_to_all_projects: true,
        applies_to_all_work_item_types: true,
        project_ids: [],
        issue_type_ids: [],
      });
      expect(
        ctxs.data[0].options.map((o: { name: string; is_default: boolean; sort_order: number }) => [
          o.name,
          o.is_default,
        ]),
      ).toEqual([
        ['Low', true],
        ['High', false],
      ]);
      // A project-level id is 404 on the workspace surface, and vice versa.
      expectProblem(await w.get(`${base}/${projectPropId}/`), 404, 'resource_not_found');
      expectProblem(await w.patch(`${base}/${projectPropId}/`, { display_name: 'x' }), 404, 'resource_not_found');
      expectProblem(await w.get(`${base}/${projectPropId}/contexts/`), 404, 'resource_not_found');
    });

    it('property PATCH mirrors into the seeded context; names unique per workspace', async () => {
      const p = ok(await w.post(`${base}/`, { display_name: 'Team', property_type: 'TEXT' }), 201);
      ok(await w.patch(`${base}/${p.id}/`, { is_required: true, settings: { s: 1 }, default_value: ['core'] }));
      const [ctx] = ok(await w.get(`${base}/${p.id}/contexts/`)).data;
      expect(ctx).toMatchObject({ is_required: true, settings: { s: 1 }, default_value: ['core'] });
      expect(ok(await w.post(`${base}/`, { display_name: 'team', property_type: 'TEXT' }), 201).name).toBe('team_2');
      // Options added by a property PATCH are offered in the all/all context too.
      const o = ok(
        await w.post(`${base}/`, { display_name: 'Phase', property_type: 'OPTION', options: [{ name: 'One' }] }),
        201,
      );
      ok(await w.patch(`${base}/${o.id}/`, { options: [{ name: 'Two', is_default: true }] }));
      const [oc] = ok(await w.get(`${base}/${o.id}/contexts/`)).data;
      expect(oc.options.map((x: { name: string; is_default: boolean }) => [x.name, x.is_default])).toEqual([
        ['One', false],
        ['Two', true],
      ]);
    });

    it('options list: 200 with empty data for anything but a workspace OPTION property', async () => {
      const p = ok(
        await w.post(`${base}/`, {
          display_name: 'Size',
          property_type: 'OPTION',
          options: [{ name: 'S' }, { name: 'M' }],
        }),
        201,
      );
      expect(ok(await w.get(`${base}/${p.id}/options/`)).data.map((o: { name: string }) => o.name)).toEqual(['S', 'M']);
      for (const id of [
        projectPropId,
        UNKNOWN,
        ok(await w.post(`${base}/`, { display_name: 'Words', property_type: 'TEXT' }), 201).id,
      ]) {
        const res = ok(await w.get(`${base}/${id}/options/`));
        expect(res).toMatchObject({ data: [], total_count: 0 });
      }
      const empty = ok(await w.post(`${base}/`, { display_name: 'Empty choice', property_type: 'OPTION' }), 201);
      expect(ok(await w.get(`${base}/${empty.id}/options/`)).data).toEqual([]);
      expectProblem(await w.get(`${base}/${p.id}/options/?paginate=cursor`), 400, 'ordering_not_cursor_eligible');
      expect(ok(await w.get(`${base}/${p.id}/options/?paginate=cursor&order_by=id`)).pagination.style).toBe('cursor');
    });

    it('option create: project-level id 404, other type 400, a second default 400 (no hand-off), appended to the all/all context', async () => {
      const p = ok(
        await w.post(`${base}/`, {
          display_name: 'Impact',
          property_type: 'OPTION',
          options: [{ name: 'Minor', is_default: true }],
        }),
        201,
      );
      const ob = `${base}/${p.id}/options`;
      expectProblem(await w.post(`${base}/${projectPropId}/options/`, { name: 'x' }), 404, 'resource_not_found');
      const text = ok(await w.post(`${base}/`, { display_name: 'Note', property_type: 'TEXT' }), 201);
      expectProblem(await w.post(`${base}/${text.id}/options/`, { name: 'x' }), 400, 'validation_error');
      expect(
        errorFieldSet(
          expectProblem(await w.post(`${ob}/`, { name: 'Major', is_default: true }), 400, 'validation_error'),
        ),
      ).toEqual(['is_default']);
      const major = ok(await w.post(`${ob}/`, { name: 'Major', sort_order: 0 }), 201);
      expect(
        errorFieldSet(
          expectProblem(await w.patch(`${ob}/${major.id}/`, { is_default: true }), 400, 'validation_error'),
        ),
      ).toEqual(['is_default']);
      const minor = p.options[0];
      ok(await w.patch(`${ob}/${minor.id}/`, { is_default: false }));
      expect(ok(await w.patch(`${ob}/${major.id}/`, { is_default: true })).is_default).toBe(true);
      const [ctx] = ok(await w.get(`${base}/${p.id}/contexts/`)).data;
      expect(ctx.options.map((o: { name: string; is_default: boolean }) => [o.name, o.is_default])).toEqual([
        ['Minor', false],
        ['Major', true],
      ]);
      // Property PATCH with a second default on the workspace surface is 400 too.
      expect(
        errorFieldSet(
          expectProblem(
            await w.patch(`${base}/${p.id}/`, { options: [{ name: 'Minor', is_default: true }] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['options']);
      expectProblem(await w.get(`${base}/${projectPropId}/options/${minor.id}/`), 404, 'resource_not_found');
    });

    it('a blank display_name is 400 naming display_name', async () => {
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${base}/`, { display_name: '   ', property_type: 'TEXT' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['display_name']);
      const p = ok(await w.post(`${base}/`, { display_name: 'Blankable', property_type: 'TEXT' }), 201);
      expect(
        errorFieldSet(
          expectProblem(await w.patch(`${base}/${p.id}/`, { display_name: '  ' }), 400, 'validation_error'),
        ),
      ).toEqual(['display_name']);
    });

    it('?expand= is ignored on workspace property and option routes (flat objects)', async () => {
      const p = ok(
        await w.post(`${base}/?expand=options`, {
          display_name: 'Expandless',
          property_type: 'OPTION',
          options: [{ name: 'one' }],
        }),
        201,
      );
      expect(ok(await w.get(`${base}/${p.id}/?expand=options,anything`))).toEqual(p);
      expect(ok(await w.get(`${base}/?expand=x&per_page=200`)).data.find((x: { id: string }) => x.id === p.id)).toEqual(
        p,
      );
      expect(ok(await w.patch(`${base}/${p.id}/?expand=x`, { description: 'd' })).description).toBe('d');
      const ob = `${base}/${p.id}/options`;
      const o = ok(await w.post(`${ob}/?expand=property`, { name: 'two' }), 201);
      expect(ok(await w.get(`${ob}/${o.id}/?expand=property`))).toEqual(o);
      expect(ok(await w.get(`${ob}/?expand=property`)).data.map((x: { name: string }) => x.name)).toEqual([
        'one',
        'two',
      ]);
      expect(ok(await w.patch(`${ob}/${o.id}/?expand=x`, { name: 'deux' })).name).toBe('deux');
      expect((await w.del(`${ob}/${o.id}/?expand=x`)).status).toBe(204);
    });

    it('option sort_order in the body is ignored: options are appended (max + 1000) and keep their place on PATCH', async () => {
      const p = ok(
        await w.post(`${base}/`, { display_name: 'Ordered', property_type: 'OPTION', options: [{ name: 'first' }] }),
        201,
      );
      expect(p.options[0].sort_order).toBe(1000);
      const ob = `${base}/${p.id}/options`;
      const second = ok(await w.post(`${ob}/`, { name: 'second', sort_order: 1 }), 201);
      expect(second.sort_order).toBe(2000);
      const third = ok(await w.post(`${ob}/`, { name: 'third', sort_order: 99999 }), 201);
      expect(third.sort_order).toBe(3000);
      expect(ok(await w.patch(`${ob}/${third.id}/`, { sort_order: 0 })).sort_order).toBe(3000);
      expect(ok(await w.get(`${ob}/`)).data.map((x: { name: string }) => x.name)).toEqual(['first', 'second', 'third']);
    });

    it('DELETE of a workspace property makes its contexts and options unaddressable', async () => {
      const p = ok(
        await w.post(`${base}/`, { display_name: 'Gone', property_type: 'OPTION', options: [{ name: 'a' }] }),
        201,
      );
      const [ctx] = ok(await w.get(`${base}/${p.id}/contexts/`)).data;
      expect((await w.del(`${base}/${p.id}/`)).status).toBe(204);
      expectProblem(await w.get(`${base}/${p.id}/contexts/${ctx.id}/`), 404, 'resource_not_found');
      expectProblem(await w.get(`${base}/${p.id}/options/${p.options[0].id}/`), 404, 'resource_not_found');
      expect(ok(await w.get(`${base}/${p.id}/options/`)).data).toEqual([]);
      expectProblem(await w.del(`${base}/${p.id}/`), 404, 'resource_not_found');
    });

    it('permissions: members read, admins write; project scopes do not grant workspace routes', async () => {
      const member = await t.member(own.slug, 'member');
      expect((await t.http.get(`${base}/`).set('X-Api-Key', member.key)).status).toBe(200);
      expectProblem(
        await t.http.post(`${base}/`).set('X-Api-Key', member.key).send({ display_name: 'No', property_type: 'TEXT' }),
        403,
        'forbidden',
      );
      const projScope = await t.token(own.owner.email, ['projects.work_item_properties:read']);
      expectProblem(await t.http.get(`${base}/`).set('Authorization', `Bearer ${projScope}`), 403, 'forbidden');
    });
  });
});
