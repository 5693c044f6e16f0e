import { createTestApp, expectProblem, Tenant, TestApp, errorFieldSet } from '../helpers/test-app';
import { ok, typeApi } from '../helpers/type-fixtures';

/**
 * custom_fields of work items: stored values (work_items.custom_values, keyed by property id) and how
 * catalogue changes treat them.
 */
describe('custom_fields', () => {
  let t: TestApp;
  let ten: Tenant;
  let api: ReturnType<typeof typeApi>;
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    api = typeApi(t, ten);
  });
  afterAll(() => t.close());

  /** A work item row written directly (stands for any stored state). */
  const seedItem = async (
    projectId: string,
    typeId: string | null,
    values: Record<string, unknown>,
  ): Promise<string> => {
    const [state] = await t.ds.query(`SELECT id FROM states WHERE project_id = $1 AND is_default`, [projectId]);
    const [row] = await t.ds.query(
      `INSERT INTO work_items (workspace_id, project_id, name, state_id, type_id, custom_values) VALUES ($1, $2, 'seeded', $3, $4, $5::jsonb) RETURNING id`,
      [ten.workspaceId, projectId, state.id, typeId, JSON.stringify(values)],
    );
    return row.id;
  };
  const stored = async (id: string): Promise<Record<string, unknown>> =>
    (await t.ds.query(`SELECT custom_values FROM work_items WHERE id = $1`, [id]))[0].custom_values;

  describe('catalogue changes and stored values (project level)', () => {
    let projectId: string;
    let pr: string;
    let bug: string;
    let story: string;
    let sev: Record<string, any>;
    let tags: Record<string, any>;
    let note: Record<string, any>;
    beforeAll(async () => {
      projectId = (await t.project(ten.slug, ten.owner.key)).id;
      pr = api.pr(projectId);
      bug = ok(await api.post(`${pr}/work-item-types/`, { name: 'Bug' }), 201).id;
      story = ok(await api.post(`${pr}/work-item-types/`, { name: 'Story' }), 201).id;
      sev = ok(
        await api.post(`${pr}/work-item-properties/`, {
          display_name: 'Severity',
          property_type: 'OPTION',
          options: [{ name: 'Low' }, { name: 'High' }],
        }),
        201,
      );
      tags = ok(
        await api.post(`${pr}/work-item-properties/`, {
          display_name: 'Tags',
          property_type: 'OPTION',
          is_multi: true,
          options: [{ name: 'a' }, { name: 'b' }, { name: 'c' }],
        }),
        201,
      );
      note = ok(await api.post(`${pr}/work-item-properties/`, { display_name: 'Note', property_type: 'TEXT' }), 201);
      for (const ty of [bug, story])
        ok(await api.post(`${pr}/work-item-types/${ty}/properties/`, { properties: [sev.id, tags.id, note.id] }), 201);
    });

    it('a type used by a work item cannot be deleted (409); deactivating it is the way', async () => {
      const tmp = ok(await api.post(`${pr}/work-item-types/`, { name: 'Used' }), 201).id;
      await seedItem(projectId, tmp, {});
      expectProblem(await api.del(`${pr}/work-item-types/${tmp}/`), 409, 'conflict');
      expect(ok(await api.patch(`${pr}/work-item-types/${tmp}/`, { is_active: false })).is_active).toBe(false);
    });

    it('detaching a property deletes its values on work items of that type only (not restored by re-attaching)', async () => {
      const onBug = await seedItem(projectId, bug, { [note.id]: 'bug note', [sev.id]: sev.options[0].id });
      const onStory = await seedItem(projectId, story, { [note.id]: 'story note' });
      expect((await api.del(`${pr}/work-item-types/${bug}/properties/${note.id}/`)).status).toBe(204);
      expect(await stored(onBug)).toEqual({ [sev.id]: sev.options[0].id });
      expect(await stored(onStory)).toEqual({ [note.id]: 'story note' });
      expectProblem(await api.del(`${pr}/work-item-types/${bug}/properties/${note.id}/`), 404, 'resource_not_found');
      ok(await api.post(`${pr}/work-item-types/${bug}/properties/`, { properties: [note.id] }), 201);
      expect(await stored(onBug)).toEqual({ [sev.id]: sev.options[0].id });
    });

    it('deleting an option removes it from values: a single value goes, a multi value loses the id', async () => {
      const [a, b, c] = tags.options.map((o: { id: string }) => o.id);
      const single = await seedItem(projectId, bug, { [sev.id]: sev.options[1].id, [note.id]: 'keep' });
      const multi = await seedItem(projectId, bug, { [tags.id]: [a, b, c] });
      const onlyB = await seedItem(projectId, story, { [tags.id]: [b] });
      expect((await api.del(`${pr}/work-item-properties/${sev.id}/options/${sev.options[1].id}/`)).status).toBe(204);
      expect(await stored(single)).toEqual({ [note.id]: 'keep' });
      expect((await api.del(`${pr}/work-item-properties/${tags.id}/options/${b}/`)).status).toBe(204);
      expect(await stored(multi)).toEqual({ [tags.id]: [a, c] });
      expect(await stored(onlyB)).toEqual({});
    });

    it('deactivating a property keeps its values; deleting it removes them everywhere', async () => {
      const item = await seedItem(projectId, story, { [note.id]: 'text', [tags.id]: [tags.options[0].id] });
      ok(await api.patch(`${pr}/work-item-properties/${note.id}/`, { is_active: false }));
      expect(await stored(item)).toEqual({ [note.id]: 'text', [tags.id]: [tags.options[0].id] });
      ok(await api.patch(`${pr}/work-item-properties/${note.id}/`, { is_active: true }));
      expect((await api.del(`${pr}/work-item-properties/${tags.id}/`)).status).toBe(204);
      expect(await stored(item)).toEqual({ [note.id]: 'text' });
    });
  });

  describe('context changes and stored values (workspace level)', () => {
    let own: Tenant;
    let w: ReturnType<typeof typeApi>;
    let p1: string;
    let p2: string;
    let t1: string;
    let t2: string;
    const seed = async (projectId: string, typeId: string, values: Record<string, unknown>) => {
      const [state] = await t.ds.query(`SELECT id FROM states WHERE project_id = $1 AND is_default`, [projectId]);
      const [row] = await t.ds.query(
        `INSERT INTO work_items (workspace_id, project_id, name, state_id, type_id, custom_values) VALUES ($1, $2, 'seeded', $3, $4, $5::jsonb) RETURNING id`,
        [own.workspaceId, projectId, state.id, typeId, JSON.stringify(values)],
      );
      return row.id as string;
    };
    beforeAll(async () => {
      own = await t.tenant();
      w = typeApi(t, own);
      p1 = (await t.project(own.slug, own.owner.key)).id;
      p2 = (await t.project(own.slug, own.owner.key)).id;
      await w.mode(true);
      t1 = ok(await w.post(`${w.ws}/work-item-types/`, { name: 'Incident' }), 201).id;
      t2 = ok(await w.post(`${w.ws}/work-item-types/`, { name: 'Change' }), 201).id;
    });

    it('a scope change deletes the values that lose coverage; an option dropped from the winning context is pruned', async () => {
      const prop = ok(
        await w.post(`${w.ws}/work-item-properties/`, {
          display_name: 'Impact',
          property_type: 'OPTION',
          is_multi: true,
          options: [{ name: 'x' }, { name: 'y' }],
        }),
        201,
      );
      const [x, y] = prop.options.map((o: { id: string }) => o.id);
      const url = `${w.ws}/work-item-properties/${prop.id}/contexts`;
      const [seeded] = ok(await w.get(`${url}/`)).data;
      const narrow = ok(
        await w.post(`${url}/`, {
          name: 'P1 incidents',
          project_ids: [p1],
          issue_type_ids: [t1],
          options: [{ id: x }, { id: y }],
        }),
        201,
      );
      const a = await seed(p1, t1, { [prop.id]: [x, y] });
      const b = await seed(p2, t1, { [prop.id]: [y] });
      const c = await seed(p2, t2, { [prop.id]: [x] });
      // Narrow context offers only x now: a loses y (b and c resolve to the seeded context, untouched).
      ok(await w.patch(`${url}/${narrow.id}/`, { options: [{ id: x }] }));
      expect(await stored(a)).toEqual({ [prop.id]: [x] });
      expect(await stored(b)).toEqual({ [prop.id]: [y] });
      // The seeded context is narrowed to Incident only: (P2, Change) loses coverage.
      ok(await w.patch(`${url}/${seeded.id}/`, { applies_to_all_work_item_types: false, issue_type_ids: [t1] }));
      expect(await stored(c)).toEqual({});
      expect(await stored(b)).toEqual({ [prop.id]: [y] });
      // Deleting the seeded context uncovers (P2, Incident); (P1, Incident) keeps its narrow context.
      expect((await w.del(`${url}/${seeded.id}/`)).status).toBe(204);
      expect(await stored(b)).toEqual({});
      expect(await stored(a)).toEqual({ [prop.id]: [x] });
      // Deleting the last context removes the rest.
      expect((await w.del(`${url}/${narrow.id}/`)).status).toBe(204);
      expect(await stored(a)).toEqual({});
    });

    it('a new, more specific context takes over its combinations: values with options it does not offer go', async () => {
      const prop = ok(
        await w.post(`${w.ws}/work-item-properties/`, {
          display_name: 'Tier',
          property_type: 'OPTION',
          options: [{ name: 'gold' }, { name: 'silver' }],
        }),
        201,
      );
      const [gold, silver] = prop.options.map((o: { id: string }) => o.id);
      const a = await seed(p1, t1, { [prop.id]: gold });
      const b = await seed(p1, t1, { [prop.id]: silver });
      const c = await seed(p2, t1, { [prop.id]: gold });
      ok(
        await w.post(`${w.ws}/work-item-properties/${prop.id}/contexts/`, {
          name: 'P1 silver only',
          project_ids: [p1],
          applies_to_all_work_item_types: true,
          options: [{ id: silver }],
        }),
        201,
      );
      expect(await stored(a)).toEqual({});
      expect(await stored(b)).toEqual({ [prop.id]: silver });
      expect(await stored(c)).toEqual({ [prop.id]: gold });
    });

    it('scope changes keep values of non-OPTION properties that stay covered', async () => {
      const prop = ok(
        await w.post(`${w.ws}/work-item-properties/`, { display_name: 'Ticket', property_type: 'TEXT' }),
        201,
      );
      const url = `${w.ws}/work-item-properties/${prop.id}/contexts`;
      const [seeded] = ok(await w.get(`${url}/`)).data;
      const a = await seed(p1, t1, { [prop.id]: 'T-1' });
      const b = await seed(p2, t1, { [prop.id]: 'T-2' });
      ok(await w.patch(`${url}/${seeded.id}/`, { applies_to_all_projects: false, project_ids: [p1] }));
      expect(await stored(a)).toEqual({ [prop.id]: 'T-1' });
      expect(await stored(b)).toEqual({});
    });
  });

  describe('custom_fields on work item writes and reads (project level)', () => {
    let projectId: string;
    let pr: string;
    let items: string;
    let bug: Record<string, any>;
    let story: Record<string, any>;
    const P: Record<string, Record<string, any>> = {};
    let member: { id: string; display_name?: string };
    let blocker: Record<string, any>;

    beforeAll(async () => {
      projectId = (await t.project(ten.slug, ten.owner.key, { identifier: 'CF' })).id;
      pr = api.pr(projectId);
      items = `${pr}/work-items`;
      const task = ok(await api.post(`${pr}/work-item-types/enable/`));
      bug = ok(await api.post(`${pr}/work-item-types/`, { name: 'Bug' }), 201);
      story = ok(await api.post(`${pr}/work-item-types/`, { name: 'Story' }), 201);
      const defs: Array<[string, Record<string, unknown>]> = [
        [
          'summary',
          { display_name: 'Summary', property_type: 'TEXT', validation_rules: { max_length: 10, pattern: '^[A-Z]' } },
        ],
        ['points', { display_name: 'Points', property_type: 'DECIMAL', validation_rules: { min: 0, max: 100 } }],
        ['flag', { display_name: 'Flag', property_type: 'BOOLEAN', default_value: ['false'] }],
        ['due', { display_name: 'Due', property_type: 'DATETIME' }],
        ['link', { display_name: 'Link', property_type: 'URL' }],
        [
          'contact',
          { display_name: 'Contact', property_type: 'EMAIL', validation_rules: { allowed_domains: ['example.com'] } },
        ],
        [
          'sev',
          {
            display_name: 'Sev',
            property_type: 'OPTION',
            options: [{ name: 'Low', is_default: true }, { name: 'High' }],
          },
        ],
        [
          'tags',
          {
            display_name: 'Tags',
            property_type: 'OPTION',
            is_multi: true,
            options: [{ name: 'ui' }, { name: 'api' }, { name: 'db' }],
            validation_rules: { max_items: 2 },
          },
        ],
        ['owner', { display_name: 'Owner', property_type: 'RELATION', relation_type: 'USER' }],
        ['blocked_by', { display_name: 'Blocked by', property_type: 'RELATION', relation_type: 'ISSUE' }],
        ['notes', { display_name: 'Notes', property_type: 'RELATION', relation_type: 'RICH_TEXT' }],
        [
          'files',
          {
            display_name: 'Files',
            property_type: 'FILE',
            is_multi: true,
            validation_rules: { allowed_extensions: ['pdf'] },
          },
        ],
        ['score', { display_name: 'Score', property_type: 'FORMULA', settings: { expression: 'points * 2' } }],
        ['must', { display_name: 'Must', property_type: 'TEXT', is_required: true }],
        ['hidden', { display_name: 'Hidden', property_type: 'TEXT', is_active: false }],
      ];
      for (const [key, body] of defs) P[key] = ok(await api.post(`${pr}/work-item-properties/`, body), 201);
      ok(
        await api.post(`${pr}/work-item-types/${bug.id}/properties/`, {
          properties: Object.values(P).map((p) => p.id),
        }),
        201,
      );
      ok(
        await api.post(`${pr}/work-item-types/${story.id}/properties/`, { properties: [P.summary.id, P.flag.id] }),
        201,
      );
      void task;
      const u = await api.projectMember(projectId, 'contributor');
      member = { id: u.id };
      blocker = ok(await api.post(`${items}/`, { name: 'The blocker', type_id: story.id }), 201);
    });

    const valid = () => ({
      summary: 'Hello',
      points: 5.5,
      due: '2026-01-02T03:04:05+02:00',
      link: 'https://example.org/x',
      contact: 'a@example.com',
      sev: P.sev.options[1].id,
      tags: [P.tags.options[0].id, P.tags.options[1].id],
      owner: member.id,
      blocked_by: blocker.id,
      notes: '<p>ok</p><script>alert(1)</script>',
      files: 'https://files.example.org/spec.pdf',
      must: 'yes',
    });

    it('create validates and stores every property type; the read shape is keyed by name with value_detail', async () => {
      const res = ok(await api.post(`${items}/`, { name: 'Typed', type: 'bug', custom_fields: valid() }), 201);
      expect(res.type_id).toBe(bug.id);
      const cf = res.custom_fields;
      expect(Object.keys(cf).sort()).toEqual([
        'blocked_by',
        'contact',
        'due',
        'files',
        'flag',
        'link',
        'must',
        'notes',
        'owner',
        'points',
        'sev',
        'summary',
        'tags',
      ]);
      expect(cf.summary).toEqual({ id: P.summary.id, value: 'Hello', value_detail: null });
      expect(cf.points).toEqual({ id: P.points.id, value: 5.5, value_detail: null });
      expect(cf.flag).toEqual({ id: P.flag.id, value: false, value_detail: null });
      expect(cf.due.value).toBe('2026-01-02T01:04:05.000Z');
      expect(cf.sev).toEqual({
        id: P.sev.id,
        value: P.sev.options[1].id,
        value_detail: { id: P.sev.options[1].id, name: 'High', logo_props: {} },
      });
      expect(cf.tags.value).toEqual([P.tags.options[0].id, P.tags.options[1].id]);
      expect(cf.tags.value_detail.map((d: { name: string }) => d.name)).toEqual(['ui', 'api']);
      expect(cf.owner.value_detail).toMatchObject({ id: member.id, name: 'Test User' });
      expect(cf.blocked_by.value_detail).toEqual({ id: blocker.id, name: 'The blocker', logo_props: {} });
      expect(cf.notes.value).toBe('<p>ok</p>');
      expect(cf.files.value).toEqual(['https://files.example.org/spec.pdf']);
      expect(cf).not.toHaveProperty('score');
      const stored = (await t.ds.query(`SELECT custom_values FROM work_items WHERE id = $1`, [res.id]))[0]
        .custom_values;
      expect(stored[P.summary.id]).toBe('Hello');
      expect(Object.keys(stored)).not.toContain('summary');

      // The same shape on get, get by identifier and PATCH; null on list rows and archive/unarchive.
      expect(ok(await api.get(`${items}/${res.id}/`)).custom_fields).toEqual(cf);
      expect(ok(await api.get(`${api.ws}/work-items/${res.identifier.toLowerCase()}/`)).custom_fields).toEqual(cf);
      expect(ok(await api.patch(`${items}/${res.id}/`, { name: 'Renamed' })).custom_fields).toEqual(cf);
      const list = ok(await api.get(`${items}/?per_page=200`));
      expect(list.data.find((x: { id: string }) => x.id === res.id).custom_fields).toBeNull();
      expect(ok(await api.post(`${items}/${res.id}/archive/`)).custom_fields).toBeNull();
      expect(ok(await api.post(`${items}/${res.id}/unarchive/`)).custom_fields).toBeNull();
    });

    it('omitted properties take their defaults (the default option wins); untouched ones without default are absent', async () => {
      const res = ok(
        await api.post(`${items}/`, { name: 'Defaults', type_id: bug.id, custom_fields: { must: 'x' } }),
        201,
      );
      expect(Object.keys(res.custom_fields).sort()).toEqual(['flag', 'must', 'sev']);
      expect(res.custom_fields.flag.value).toBe(false);
      expect(res.custom_fields.sev.value).toBe(P.sev.options[0].id);
    });

    it('each invalid value is 400 naming custom_fields.<name>; all errors come together', async () => {
      const cases: Array<[string, unknown]> = [
        ['summary', 42],
        ['summary', 'lowercase'],
        ['summary', 'ABCDEFGHIJKLMNOP'],
        ['points', 'many'],
        ['points', -1],
        ['points', 101],
        ['flag', 'maybe'],
        ['due', 'tomorrow'],
        ['due', '2026-13-01'],
        ['link', 'not a url'],
        ['link', 'ftp://example.org/x'],
        ['contact', 'nobody'],
        ['contact', 'a@other.org'],
        ['sev', 'not-a-uuid'],
        ['sev', '00000000-0000-4000-8000-000000000000'],
        ['sev', [P.sev.options[0].id, P.sev.options[1].id]],
        ['tags', [P.tags.options[0].id, P.tags.options[1].id, P.tags.options[2].id]],
        ['tags', [P.sev.options[0].id]],
        ['owner', '00000000-0000-4000-8000-000000000000'],
        ['owner', 'someone'],
        ['blocked_by', '00000000-0000-4000-8000-000000000000'],
        ['notes', 12],
        ['files', 'https://files.example.org/spec.docx'],
        ['files', 'file.pdf'],
        ['score', 10],
      ];
      for (const [key, value] of cases) {
        const res = await api.post(`${items}/`, {
          name: 'Bad',
          type_id: bug.id,
          custom_fields: { ...valid(), [key]: value },
        });
        const body = expectProblem(res, 400, 'validation_error');
        expect({ key, value, fields: errorFieldSet(body) }).toEqual({ key, value, fields: [`custom_fields.${key}`] });
      }
      const many = expectProblem(
        await api.post(`${items}/`, {
          name: 'Bad',
          type_id: bug.id,
          custom_fields: { ...valid(), points: 'x', flag: 'y' },
        }),
        400,
        'validation_error',
      );
      expect(errorFieldSet(many)).toEqual(['custom_fields.flag', 'custom_fields.points']);
      // A member of another workspace is not a member here.
      const stranger = (await t.tenant()).owner.id;
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${items}/`, {
              name: 'Bad',
              type_id: bug.id,
              custom_fields: { ...valid(), owner: stranger },
            }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.owner']);
      const count = (
        await t.ds.query(`SELECT count(*)::int AS c FROM work_items WHERE project_id = $1 AND name = 'Bad'`, [
          projectId,
        ])
      )[0].c;
      expect(count).toBe(0);
    });

    it('required without value or default, unknown keys, inactive properties and non-objects are 400', async () => {
      const { must: _m, ...noMust } = valid();
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${items}/`, { name: 'Bad', type_id: bug.id, custom_fields: noMust }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.must']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${items}/`, { name: 'Bad', type_id: bug.id, custom_fields: { ...valid(), must: '' } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.must']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${items}/`, { name: 'Bad', type_id: bug.id, custom_fields: { ...valid(), nope: 1 } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.nope']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${items}/`, { name: 'Bad', type_id: bug.id, custom_fields: { ...valid(), hidden: 'x' } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.hidden']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${items}/`, { name: 'Bad', type_id: bug.id, custom_fields: { ...valid(), Summary: 'Hi' } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.Summary']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${items}/`, { name: 'Bad', type_id: story.id, custom_fields: { points: 1 } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.points']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${items}/`, { name: 'Bad', type_id: bug.id, custom_fields: [1] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${items}/`, { name: 'Bad', type_id: bug.id, custom_fields: 'x' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields']);
    });

    it('PATCH changes only the keys sent; null clears; clearing a required one is 400', async () => {
      const created = ok(
        await api.post(`${items}/`, { name: 'Patchable', type_id: bug.id, custom_fields: valid() }),
        201,
      );
      const a = ok(await api.patch(`${items}/${created.id}/`, { custom_fields: { points: 7, summary: null } }));
      expect(a.custom_fields.points.value).toBe(7);
      expect(a.custom_fields).not.toHaveProperty('summary');
      expect(a.custom_fields.contact.value).toBe('a@example.com');
      expect(a.custom_fields.tags.value).toEqual([P.tags.options[0].id, P.tags.options[1].id]);
      expect(
        errorFieldSet(
          expectProblem(
            await api.patch(`${items}/${created.id}/`, { custom_fields: { must: null } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.must']);
      // "" clears like null for every property type (DECIMAL, OPTION here), not only the string ones.
      const blanked = ok(await api.patch(`${items}/${created.id}/`, { custom_fields: { points: '', tags: '' } }));
      expect(blanked.custom_fields).not.toHaveProperty('points');
      expect(blanked.custom_fields).not.toHaveProperty('tags');
      expect(
        errorFieldSet(
          expectProblem(
            await api.patch(`${items}/${created.id}/`, { custom_fields: { must: '' } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.must']);
      ok(
        await api.patch(`${items}/${created.id}/`, { custom_fields: { points: 7, tags: a.custom_fields.tags.value } }),
      );
      expect(
        errorFieldSet(
          expectProblem(
            await api.patch(`${items}/${created.id}/`, { custom_fields: { nope: 1 } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.nope']);
      expect(
        errorFieldSet(
          expectProblem(
            await api.patch(`${items}/${created.id}/`, { custom_fields: { points: 1000 } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.points']);
      expect(ok(await api.get(`${items}/${created.id}/`)).custom_fields.points.value).toBe(7);
      // A PATCH without custom_fields leaves them alone.
      expect(ok(await api.patch(`${items}/${created.id}/`, { priority: 'high' })).custom_fields).toEqual(
        a.custom_fields,
      );
    });

    it('a RELATION ISSUE value the writer picks must be in a project they can read; a stored one may be sent back', async () => {
      const hidden = await t.project(ten.slug, ten.owner.key);
      const secret = ok(await api.post(`${api.pr(hidden.id)}/work-items/`, { name: 'secret' }), 201);
      const writer = await api.projectMember(projectId, 'contributor');
      const as = typeApi(t, ten, writer.key);
      const base = { name: 'Linker', type_id: bug.id, custom_fields: { ...valid() } };
      // Hidden from the contributor: the same 400 as an unknown id, on create and on PATCH.
      const refused = expectProblem(
        await as.post(`${items}/`, { ...base, custom_fields: { ...valid(), blocked_by: secret.id } }),
        400,
        'validation_error',
      );
      expect(refused.errors).toEqual([
        { field: 'custom_fields.blocked_by', message: expect.stringContaining(secret.id) },
      ]);
      const mine = ok(
        await as.post(`${items}/`, { ...base, custom_fields: { ...valid(), blocked_by: blocker.id } }),
        201,
      );
      expect(
        errorFieldSet(
          expectProblem(
            await as.patch(`${items}/${mine.id}/`, { custom_fields: { blocked_by: secret.id } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.blocked_by']);
      // Linked by the owner, the value can be sent back unchanged by the contributor.
      ok(await api.patch(`${items}/${mine.id}/`, { custom_fields: { blocked_by: secret.id } }));
      expect(
        ok(await as.patch(`${items}/${mine.id}/`, { name: 'Linker 2', custom_fields: { blocked_by: secret.id } }))
          .custom_fields.blocked_by.value,
      ).toBe(secret.id);
    });

    it('changing the type keeps the values the new type has, drops the others and fills defaults; untyped has {}', async () => {
      const created = ok(
        await api.post(`${items}/`, { name: 'Mover', type_id: bug.id, custom_fields: { ...valid(), flag: true } }),
        201,
      );
      const moved = ok(await api.patch(`${items}/${created.id}/`, { type_id: story.id }));
      expect(Object.keys(moved.custom_fields).sort()).toEqual(['flag', 'summary']);
      expect(moved.custom_fields.flag.value).toBe(true);
      const back = ok(await api.patch(`${items}/${created.id}/`, { type: 'BUG', custom_fields: { must: 'again' } }));
      expect(Object.keys(back.custom_fields).sort()).toEqual(['flag', 'must', 'sev', 'summary']);
      const untyped = ok(await api.patch(`${items}/${created.id}/`, { type_id: null }));
      expect(untyped).toMatchObject({ type_id: null, custom_fields: {} });
      expect(
        errorFieldSet(
          expectProblem(
            await api.patch(`${items}/${created.id}/`, { custom_fields: { summary: 'Hi' } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.summary']);
    });

    it('a property turned into a RELATION keeps its old values: reads and other edits of the item stay 200 (no detail for a non-id)', async () => {
      const conv = ok(
        await api.post(`${pr}/work-item-properties/`, { display_name: 'Convertible', property_type: 'DECIMAL' }),
        201,
      );
      const note = ok(
        await api.post(`${pr}/work-item-properties/`, { display_name: 'Convertible note', property_type: 'TEXT' }),
        201,
      );
      ok(await api.post(`${pr}/work-item-types/${story.id}/properties/`, { properties: [conv.id, note.id] }), 201);
      const item = ok(
        await api.post(`${items}/`, {
          name: 'Converted',
          type_id: story.id,
          custom_fields: { [conv.name]: 4, [note.name]: 'hello' },
        }),
        201,
      );
      ok(
        await api.patch(`${pr}/work-item-properties/${conv.id}/`, { property_type: 'RELATION', relation_type: 'USER' }),
      );
      ok(
        await api.patch(`${pr}/work-item-properties/${note.id}/`, {
          property_type: 'RELATION',
          relation_type: 'ISSUE',
        }),
      );
      const read = ok(await api.get(`${items}/${item.id}/`));
      expect(read.custom_fields[conv.name]).toEqual({ id: conv.id, value: 4, value_detail: null });
      expect(read.custom_fields[note.name]).toEqual({ id: note.id, value: 'hello', value_detail: null });
      expect(ok(await api.get(`${api.ws}/work-items/${item.identifier}/`)).custom_fields).toEqual(read.custom_fields);
      expect(ok(await api.patch(`${items}/${item.id}/`, { name: 'Still editable' })).name).toBe('Still editable');
      // A new value must be an id of the new kind.
      expect(
        errorFieldSet(
          expectProblem(
            await api.patch(`${items}/${item.id}/`, { custom_fields: { [conv.name]: 5 } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual([`custom_fields.${conv.name}`]);
      for (const prop of [conv, note])
        expect((await api.del(`${pr}/work-item-types/${story.id}/properties/${prop.id}/`)).status).toBe(204);
    });

    it('a TEXT pattern cannot block the service: nested quantifiers are refused on the definition; a slow stored pattern times out as a 400', async () => {
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${pr}/work-item-properties/`, {
              display_name: 'Redos',
              property_type: 'TEXT',
              validation_rules: { pattern: '^(a+)+$' },
            }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['validation_rules.pattern']);
      const slow = ok(
        await api.post(`${pr}/work-item-properties/`, {
          display_name: 'Slow pattern',
          property_type: 'TEXT',
          validation_rules: { pattern: '^[a-z]+$' },
        }),
        201,
      );
      ok(await api.post(`${pr}/work-item-types/${story.id}/properties/`, { properties: [slow.id] }), 201);
      // Stored before the definition check existed (or past it: alternation the static check cannot see).
      await t.ds.query(
        `UPDATE work_item_properties SET validation_rules = '{"pattern":"^(a|a)*$"}'::jsonb WHERE id = $1`,
        [slow.id],
      );
      const started = Date.now();
      const res = expectProblem(
        await api.post(`${items}/`, {
          name: 'Blocked?',
          type_id: story.id,
          custom_fields: { [slow.name]: `${'a'.repeat(40)}!` },
        }),
        400,
        'validation_error',
      );
      expect(Date.now() - started).toBeLessThan(3000);
      expect(res.errors).toEqual([
        { field: `custom_fields.${slow.name}`, message: expect.stringContaining('within 50 ms') },
      ]);
      // Fast values under the same pattern are still checked normally.
      expect(
        ok(
          await api.post(`${items}/`, { name: 'Fine', type_id: story.id, custom_fields: { [slow.name]: 'aaaa' } }),
          201,
        ).custom_fields[slow.name].value,
      ).toBe('aaaa');
      expectProblem(
        await api.post(`${items}/`, { name: 'No match', type_id: story.id, custom_fields: { [slow.name]: 'b' } }),
        400,
        'validation_error',
      );
      expect((await api.del(`${pr}/work-item-types/${story.id}/properties/${slow.id}/`)).status).toBe(204);
    });

    it('deactivating a property hides its values and keeps them; reactivating restores them exactly', async () => {
      const created = ok(await api.post(`${items}/`, { name: 'Toggle', type_id: bug.id, custom_fields: valid() }), 201);
      ok(await api.patch(`${pr}/work-item-properties/${P.contact.id}/`, { is_active: false }));
      const hidden = ok(await api.get(`${items}/${created.id}/`)).custom_fields;
      expect(hidden).not.toHaveProperty('contact');
      expect(
        errorFieldSet(
          expectProblem(
            await api.patch(`${items}/${created.id}/`, { custom_fields: { contact: 'b@example.com' } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.contact']);
      ok(await api.patch(`${items}/${created.id}/`, { custom_fields: { points: 1 } }));
      ok(await api.patch(`${pr}/work-item-properties/${P.contact.id}/`, { is_active: true }));
      const back = ok(await api.get(`${items}/${created.id}/`)).custom_fields;
      expect(back.contact).toEqual(created.custom_fields.contact);
      // Renaming an option is cosmetic: values hold ids.
      ok(
        await api.patch(`${pr}/work-item-properties/${P.sev.id}/options/${P.sev.options[1].id}/`, { name: 'Critical' }),
      );
      expect(ok(await api.get(`${items}/${created.id}/`)).custom_fields.sev.value_detail.name).toBe('Critical');
      ok(await api.patch(`${pr}/work-item-properties/${P.sev.id}/options/${P.sev.options[1].id}/`, { name: 'High' }));
    });

    it('type and type_id: name case-insensitive among active non-epic types of the roster; both forms, epic names, foreign and inactive ids are 400', async () => {
      expect(ok(await api.post(`${items}/`, { name: 'By name', type: '  story ' }), 201).type_id).toBe(story.id);
      expectProblem(await api.post(`${items}/`, { name: 'x', type: 'Epic' }), 400, 'validation_error');
      expectProblem(await api.post(`${items}/`, { name: 'x', type: 'nothing' }), 400, 'validation_error');
      expectProblem(
        await api.post(`${items}/`, { name: 'x', type: 'Story', type_id: story.id }),
        400,
        'validation_error',
      );
      const other = (await t.project(ten.slug, ten.owner.key)).id;
      const foreign = ok(await api.post(`${api.pr(other)}/work-item-types/`, { name: 'Foreign' }), 201);
      expectProblem(await api.post(`${items}/`, { name: 'x', type_id: foreign.id }), 400, 'validation_error');
      const idle = ok(await api.post(`${pr}/work-item-types/`, { name: 'Idle', is_active: false }), 201);
      expectProblem(await api.post(`${items}/`, { name: 'x', type_id: idle.id }), 400, 'validation_error');
      // Without type, the project's default type applies.
      const task = ok(await api.get(`${pr}/work-item-types/`)).data.find((x: { is_default: boolean }) => x.is_default);
      expect(ok(await api.post(`${items}/`, { name: 'Default type' }), 201).type_id).toBe(task.id);
    });

    it('a project without types: custom_fields keys are 400; {} is fine', async () => {
      const bare = (await t.project(ten.slug, ten.owner.key)).id;
      const res = ok(await api.post(`${api.pr(bare)}/work-items/`, { name: 'Plain', custom_fields: {} }), 201);
      expect(res).toMatchObject({ type_id: null, custom_fields: {} });
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${api.pr(bare)}/work-items/`, { name: 'Plain', custom_fields: { a: 1 } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.a']);
    });

    it('custom_fields while custom properties are disabled is 400', async () => {
      const own = await t.tenant();
      const w = typeApi(t, own);
      const p = (await t.project(own.slug, own.owner.key)).id;
      ok(
        await t.http
          .patch(`${w.ws}/features/`)
          .set('X-Api-Key', own.owner.key)
          .send({ is_custom_properties_enabled: false }),
      );
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${w.pr(p)}/work-items/`, { name: 'x', custom_fields: {} }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields']);
      ok(await w.post(`${w.pr(p)}/work-items/`, { name: 'no custom fields' }), 201);
    });

    it('deleting a property, an option (or detaching) removes values from work items created through the API', async () => {
      const created = ok(
        await api.post(`${items}/`, { name: 'Cleanup', type_id: bug.id, custom_fields: valid() }),
        201,
      );
      expect((await api.del(`${pr}/work-item-properties/${P.tags.id}/options/${P.tags.options[0].id}/`)).status).toBe(
        204,
      );
      expect(ok(await api.get(`${items}/${created.id}/`)).custom_fields.tags.value).toEqual([P.tags.options[1].id]);
      expect((await api.del(`${pr}/work-item-types/${bug.id}/properties/${P.link.id}/`)).status).toBe(204);
      expect(ok(await api.get(`${items}/${created.id}/`)).custom_fields).not.toHaveProperty('link');
      ok(await api.post(`${pr}/work-item-types/${bug.id}/properties/`, { properties: [P.link.id] }), 201);
      expect(ok(await api.get(`${items}/${created.id}/`)).custom_fields).not.toHaveProperty('link');
      expect((await api.del(`${pr}/work-item-properties/${P.notes.id}/`)).status).toBe(204);
      expect(ok(await api.get(`${items}/${created.id}/`)).custom_fields).not.toHaveProperty('notes');
    });

    it('the schema endpoint: standard fields, custom fields as they apply, a JSON Schema, ?include=members,labels', async () => {
      const s = ok(await api.get(`${pr}/work-item-types/${bug.id}/schema/`));
      expect(s).toMatchObject({
        type_id: bug.id,
        type_name: 'Bug',
        type_description: '',
        type_logo_props: expect.any(Object),
      });
      expect(Object.keys(s.fields)).toEqual([
        'name',
        'description_html',
        'priority',
        'state_id',
        'assignee_ids',
        'label_ids',
        'start_date',
        'target_date',
        'parent_id',
      ]);
      expect(s.fields.name).toEqual({ type: 'string', required: true, max_length: 255 });
      expect(s.fields.priority.options).toContainEqual({ value: 'urgent', label: 'Urgent' });
      expect(s.fields.priority.default).toBe('none');
      expect(s.fields.state_id.options[0]).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        color: expect.any(String),
        group: expect.any(String),
      });
      expect(s.fields.start_date.format).toBe('YYYY-MM-DD');
      expect(s.fields.assignee_ids.options).toBeUndefined();
      expect(s.custom_fields.sev).toMatchObject({
        id: P.sev.id,
        type: 'OPTION',
        name: 'sev',
        display_name: 'Sev',
        required: false,
        is_multi: false,
      });
      expect(s.custom_fields.sev.options.map((o: { name: string }) => o.name)).toEqual(['Low', 'High']);
      expect(s.custom_fields.sev.options[0]).toEqual({ id: expect.any(String), name: 'Low', logo_props: {} });
      expect(s.custom_fields.owner.relation_type).toBe('USER');
      expect(s.custom_fields).not.toHaveProperty('hidden');
      const js = s.custom_fields_json_schema;
      expect(js).toMatchObject({ type: 'object', additionalProperties: false, required: ['must'] });
      expect(js.properties.points).toMatchObject({ type: ['number', 'null'], minimum: 0, maximum: 100 });
      expect(js.properties.sev.enum).toEqual([...P.sev.options.map((o: { id: string }) => o.id), null]);
      expect(js.properties.tags).toMatchObject({ type: ['array', 'null'], maxItems: 2, uniqueItems: true });
      expect(js.properties.score.readOnly).toBe(true);
      expect(js.properties.summary).toMatchObject({ maxLength: 10, pattern: '^[A-Z]' });

      const inc = ok(await api.get(`${pr}/work-item-types/${bug.id}/schema/?include=members,labels`));
      expect(inc.fields.assignee_ids.options.map((m: { id: string }) => m.id)).toEqual(
        expect.arrayContaining([ten.owner.id, member.id]),
      );
      expect(inc.fields.assignee_ids.options[0]).toEqual({
        id: expect.any(String),
        display_name: expect.any(String),
        email: expect.any(String),
      });
      expect(Array.isArray(inc.fields.label_ids.options)).toBe(true);
      expect(
        errorFieldSet(
          expectProblem(
            await api.get(`${pr}/work-item-types/${bug.id}/schema/?include=states`),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['include']);
      expectProblem(
        await api.get(`${pr}/work-item-types/00000000-0000-4000-8000-000000000000/schema/`),
        404,
        'resource_not_found',
      );
      // Custom properties off: a create takes no custom_fields (400), and the schema lists none.
      ok(await api.patch(`${api.ws}/features/`, { is_custom_properties_enabled: false }));
      try {
        const off = ok(await api.get(`${pr}/work-item-types/${bug.id}/schema/`));
        expect(off.custom_fields).toEqual({});
        expect(off.custom_fields_json_schema).toMatchObject({ properties: {}, required: [] });
      } finally {
        ok(await api.patch(`${api.ws}/features/`, { is_custom_properties_enabled: true }));
      }
    });
  });

  describe('stale defaults', () => {
    let projectId: string;
    let pr: string;
    let items: string;
    let kind: string;
    beforeAll(async () => {
      projectId = (await t.project(ten.slug, ten.owner.key)).id;
      pr = api.pr(projectId);
      items = `${pr}/work-items`;
      kind = ok(await api.post(`${pr}/work-item-types/`, { name: 'Kind' }), 201).id;
    });

    it('deleting the option a default names prunes it from default_value; creates keep working', async () => {
      const p = ok(
        await api.post(`${pr}/work-item-properties/`, {
          display_name: 'Tier',
          property_type: 'OPTION',
          options: [{ name: 'Gold' }, { name: 'Silver' }],
          default_value: ['Silver'],
        }),
        201,
      );
      const [gold, silver] = p.options.map((o: { id: string }) => o.id);
      expect(p.default_value).toEqual([silver]);
      ok(await api.post(`${pr}/work-item-types/${kind}/properties/`, { properties: [p.id] }), 201);
      expect(ok(await api.post(`${items}/`, { name: 'before', type_id: kind }), 201).custom_fields.tier.value).toBe(
        silver,
      );
      expect((await api.del(`${pr}/work-item-properties/${p.id}/options/${silver}/`)).status).toBe(204);
      expect(ok(await api.get(`${pr}/work-item-properties/${p.id}/`)).default_value).toEqual([]);
      const after = ok(await api.post(`${items}/`, { name: 'after', type_id: kind }), 201);
      expect(after.custom_fields).not.toHaveProperty('tier');
      expect(
        ok(await api.post(`${items}/`, { name: 'sent', type_id: kind, custom_fields: { tier: gold } }), 201)
          .custom_fields.tier.value,
      ).toBe(gold);
      // A deleted option sent explicitly is still the client's error.
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${items}/`, { name: 'x', type_id: kind, custom_fields: { tier: silver } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.tier']);
      const [entry] = await t.ds.query(
        `SELECT metadata FROM audit_logs WHERE workspace_id = $1 AND event_name = 'work_item_property_option.deleted' AND target_id = $2`,
        [ten.workspaceId, silver],
      );
      expect(entry.metadata.defaults_pruned).toBe(1);
    });

    it('a default that no longer validates is skipped on create and on a type change, never a 400 on a key not sent; a required one is then missing', async () => {
      const blocker = ok(await api.post(`${items}/`, { name: 'blocker' }), 201);
      const rel = ok(
        await api.post(`${pr}/work-item-properties/`, {
          display_name: 'Depends on',
          property_type: 'RELATION',
          relation_type: 'ISSUE',
          default_value: [blocker.id],
        }),
        201,
      );
      const opt = ok(
        await api.post(`${pr}/work-item-properties/`, {
          display_name: 'Lane',
          property_type: 'OPTION',
          options: [{ name: 'Fast' }],
        }),
        201,
      );
      const gone = ok(await api.post(`${pr}/work-item-properties/${opt.id}/options/`, { name: 'Gone' }), 201);
      expect((await api.del(`${pr}/work-item-properties/${opt.id}/options/${gone.id}/`)).status).toBe(204);
      // Stands for a default written before pruning existed.
      await t.ds.query(`UPDATE work_item_properties SET default_value = $2::jsonb WHERE id = $1`, [
        opt.id,
        JSON.stringify([gone.id]),
      ]);
      const stale = ok(await api.post(`${pr}/work-item-types/`, { name: 'Stale' }), 201).id;
      ok(await api.post(`${pr}/work-item-types/${stale}/properties/`, { properties: [rel.id, opt.id] }), 201);
      expect(
        ok(await api.post(`${items}/`, { name: 'linked', type_id: stale }), 201).custom_fields.depends_on.value,
      ).toBe(blocker.id);
      expect((await api.del(`${items}/${blocker.id}/`)).status).toBe(204);

      const created = ok(await api.post(`${items}/`, { name: 'fresh', type_id: stale }), 201);
      expect(created.custom_fields).toEqual({});
      expect(await stored(created.id)).toEqual({});
      const plain = ok(await api.post(`${items}/`, { name: 'plain', type_id: kind }), 201);
      expect(ok(await api.patch(`${items}/${plain.id}/`, { type_id: stale })).custom_fields).toEqual({});
      // Sent explicitly, the deleted work item is still 400.
      expect(
        errorFieldSet(
          expectProblem(
            await api.post(`${items}/`, { name: 'x', type_id: stale, custom_fields: { depends_on: blocker.id } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.depends_on']);
      // Required with only a stale default: the value is missing (the client must send one).
      ok(await api.patch(`${pr}/work-item-properties/${opt.id}/`, { is_required: true }));
      const missing = expectProblem(
        await api.post(`${items}/`, { name: 'x', type_id: stale }),
        400,
        'validation_error',
      );
      expect(errorFieldSet(missing)).toEqual(['custom_fields.lane']);
      expect(missing.errors[0].message).toMatch(/required/);
      ok(await api.post(`${items}/`, { name: 'ok', type_id: stale, custom_fields: { lane: opt.options[0].id } }), 201);
    });

    it("workspace surface: deleting an option, or dropping it from every context, prunes it from the property's and the contexts' defaults", async () => {
      const own = await t.tenant();
      const w = typeApi(t, own);
      const p1 = (await t.project(own.slug, own.owner.key)).id;
      await w.mode(true);
      const ty = ok(await w.post(`${w.ws}/work-item-types/`, { name: 'Ticket' }), 201).id;
      ok(await w.post(`${w.pr(p1)}/work-item-types/import/`, { work_item_types: [ty] }));
      const prop = ok(
        await w.post(`${w.ws}/work-item-properties/`, {
          display_name: 'Queue',
          property_type: 'OPTION',
          options: [{ name: 'Front' }, { name: 'Back' }],
          default_value: ['Back'],
        }),
        201,
      );
      const [front, back] = prop.options.map((o: { id: string }) => o.id);
      ok(await w.post(`${w.ws}/work-item-types/${ty}/properties/`, { properties: [prop.id] }), 201);
      const url = `${w.ws}/work-item-properties/${prop.id}/contexts`;
      const narrow = ok(
        await w.post(`${url}/`, {
          name: 'P1',
          project_ids: [p1],
          applies_to_all_work_item_types: true,
          options: [{ id: front }, { id: back }],
          default_value: [back],
        }),
        201,
      );
      const [seeded] = ok(await w.get(`${url}/`)).data.filter((c: { is_default: boolean }) => c.is_default);
      expect(seeded.default_value).toEqual([back]);
      expect(
        ok(await w.post(`${w.pr(p1)}/work-items/`, { name: 'before', type_id: ty }), 201).custom_fields.queue.value,
      ).toBe(back);

      expect((await w.del(`${w.ws}/work-item-properties/${prop.id}/options/${back}/`)).status).toBe(204);
      expect(ok(await w.get(`${w.ws}/work-item-properties/${prop.id}/`)).default_value).toEqual([]);
      expect(ok(await w.get(`${url}/${narrow.id}/`)).default_value).toEqual([]);
      expect(ok(await w.get(`${url}/${seeded.id}/`)).default_value).toEqual([]);
      expect(ok(await w.post(`${w.pr(p1)}/work-items/`, { name: 'after', type_id: ty }), 201).custom_fields).toEqual(
        {},
      );

      // Dropped from every context's option set: the option is deleted and the property default pruned.
      const second = ok(
        await w.post(`${w.ws}/work-item-properties/`, {
          display_name: 'Stage',
          property_type: 'OPTION',
          options: [{ name: 'Open' }, { name: 'Closed' }],
          default_value: ['Closed'],
        }),
        201,
      );
      const [open, closed] = second.options.map((o: { id: string }) => o.id);
      const [sc] = ok(await w.get(`${w.ws}/work-item-properties/${second.id}/contexts/`)).data;
      ok(await w.patch(`${w.ws}/work-item-properties/${second.id}/contexts/${sc.id}/`, { options: [{ id: open }] }));
      expect(ok(await w.get(`${w.ws}/work-item-properties/${second.id}/`)).default_value).toEqual([]);
      expectProblem(
        await w.get(`${w.ws}/work-item-properties/${second.id}/options/${closed}/`),
        404,
        'resource_not_found',
      );
    });
  });

  describe('custom properties disabled for the workspace', () => {
    let own: Tenant;
    let w: ReturnType<typeof typeApi>;
    let items: string;
    let typeId: string;
    let must: Record<string, any>;
    let flag: Record<string, any>;
    const features = (on: boolean) =>
      t.http.patch(`${w.ws}/features/`).set('X-Api-Key', own.owner.key).send({ is_custom_properties_enabled: on });
    beforeAll(async () => {
      own = await t.tenant();
      w = typeApi(t, own);
      const p = (await t.project(own.slug, own.owner.key)).id;
      items = `${w.pr(p)}/work-items`;
      typeId = ok(await w.post(`${w.pr(p)}/work-item-types/`, { name: 'Strict' }), 201).id;
      must = ok(
        await w.post(`${w.pr(p)}/work-item-properties/`, {
          display_name: 'Must',
          property_type: 'TEXT',
          is_required: true,
        }),
        201,
      );
      flag = ok(
        await w.post(`${w.pr(p)}/work-item-properties/`, {
          display_name: 'Flag',
          property_type: 'BOOLEAN',
          default_value: ['true'],
        }),
        201,
      );
      ok(await w.post(`${w.pr(p)}/work-item-types/${typeId}/properties/`, { properties: [must.id, flag.id] }), 201);
    });
    afterAll(async () => {
      await features(true);
    });

    it('no defaults, no required check, reads render {}; custom_fields sent is 400; values reappear when re-enabled', async () => {
      const kept = ok(
        await w.post(`${items}/`, { name: 'kept', type_id: typeId, custom_fields: { must: 'yes' } }),
        201,
      );
      expect(Object.keys(kept.custom_fields).sort()).toEqual(['flag', 'must']);
      ok(await features(false));

      const created = ok(await w.post(`${items}/`, { name: 'off', type_id: typeId }), 201);
      expect(created.custom_fields).toEqual({});
      expect(await stored(created.id)).toEqual({});
      expect(ok(await w.get(`${items}/${kept.id}/`)).custom_fields).toEqual({});
      expect(
        errorFieldSet(
          expectProblem(
            await w.patch(`${items}/${kept.id}/`, { custom_fields: { must: 'no' } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields']);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${items}/`, { name: 'x', type_id: typeId, custom_fields: { must: 'x' } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields']);
      expect(ok(await w.patch(`${items}/${kept.id}/`, { name: 'renamed' })).custom_fields).toEqual({});
      const list = ok(await w.get(`${items}/?per_page=100`)).data;
      expect(list.find((x: { id: string }) => x.id === kept.id).custom_fields).toBeNull();
      expect(ok(await w.post(`${items}/${kept.id}/archive/`)).custom_fields).toBeNull();
      expect(ok(await w.post(`${items}/${kept.id}/unarchive/`)).custom_fields).toBeNull();

      ok(await features(true));
      expect(ok(await w.get(`${items}/${kept.id}/`)).custom_fields).toEqual(kept.custom_fields);
      expect(ok(await w.get(`${items}/${created.id}/`)).custom_fields).toEqual({});
      expect(
        errorFieldSet(
          expectProblem(await w.post(`${items}/`, { name: 'x', type_id: typeId }), 400, 'validation_error'),
        ),
      ).toEqual(['custom_fields.must']);
    });
  });

  describe('is_multi switched off (and on again)', () => {
    it('stored lists are kept; a single-valued property reads back the first value, a multi one reads a scalar as a list', async () => {
      const projectId = (await t.project(ten.slug, ten.owner.key)).id;
      const pr = api.pr(projectId);
      const ty = ok(await api.post(`${pr}/work-item-types/`, { name: 'Multi' }), 201).id;
      const p = ok(
        await api.post(`${pr}/work-item-properties/`, {
          display_name: 'Areas',
          property_type: 'OPTION',
          is_multi: true,
          options: [{ name: 'ui' }, { name: 'api' }],
        }),
        201,
      );
      const [ui, apiOpt] = p.options.map((o: { id: string }) => o.id);
      ok(await api.post(`${pr}/work-item-types/${ty}/properties/`, { properties: [p.id] }), 201);
      const item = ok(
        await api.post(`${pr}/work-items/`, { name: 'm', type_id: ty, custom_fields: { areas: [apiOpt, ui] } }),
        201,
      );
      expect(item.custom_fields.areas.value).toEqual([apiOpt, ui]);

      ok(await api.patch(`${pr}/work-item-properties/${p.id}/`, { is_multi: false }));
      const single = ok(await api.get(`${pr}/work-items/${item.id}/`)).custom_fields.areas;
      expect(single).toEqual({ id: p.id, value: apiOpt, value_detail: { id: apiOpt, name: 'api', logo_props: {} } });
      expect(await stored(item.id)).toEqual({ [p.id]: [apiOpt, ui] });
      // Writing the key stores the new shape.
      const other = ok(
        await api.post(`${pr}/work-items/`, { name: 's', type_id: ty, custom_fields: { areas: ui } }),
        201,
      );
      expect(await stored(other.id)).toEqual({ [p.id]: ui });

      ok(await api.patch(`${pr}/work-item-properties/${p.id}/`, { is_multi: true }));
      expect(ok(await api.get(`${pr}/work-items/${item.id}/`)).custom_fields.areas.value).toEqual([apiOpt, ui]);
      const wrapped = ok(await api.get(`${pr}/work-items/${other.id}/`)).custom_fields.areas;
      expect(wrapped.value).toEqual([ui]);
      expect(wrapped.value_detail).toEqual([{ id: ui, name: 'ui', logo_props: {} }]);
    });

    it('the same for a context switching is_multi off', async () => {
      const own = await t.tenant();
      const w = typeApi(t, own);
      const p1 = (await t.project(own.slug, own.owner.key)).id;
      await w.mode(true);
      const ty = ok(await w.post(`${w.ws}/work-item-types/`, { name: 'Req' }), 201).id;
      ok(await w.post(`${w.pr(p1)}/work-item-types/import/`, { work_item_types: [ty] }));
      const prop = ok(
        await w.post(`${w.ws}/work-item-properties/`, {
          display_name: 'Owners',
          property_type: 'RELATION',
          relation_type: 'USER',
          is_multi: true,
        }),
        201,
      );
      ok(await w.post(`${w.ws}/work-item-types/${ty}/properties/`, { properties: [prop.id] }), 201);
      const other = await t.member(own.slug, 'member');
      const item = ok(
        await w.post(`${w.pr(p1)}/work-items/`, {
          name: 'r',
          type_id: ty,
          custom_fields: { owners: [other.id, own.owner.id] },
        }),
        201,
      );
      const [seeded] = ok(await w.get(`${w.ws}/work-item-properties/${prop.id}/contexts/`)).data;
      ok(await w.patch(`${w.ws}/work-item-properties/${prop.id}/contexts/${seeded.id}/`, { is_multi: false }));
      const read = ok(await w.get(`${w.pr(p1)}/work-items/${item.id}/`)).custom_fields.owners;
      expect(read.value).toBe(other.id);
      expect(read.value_detail).toMatchObject({ id: other.id });
    });
  });

  describe('custom_fields with workspace-level properties and contexts', () => {
    let own: Tenant;
    let w: ReturnType<typeof typeApi>;
    let p1: string;
    let p2: string;
    let t1: string;
    let t2: string;
    let prop: Record<string, any>;
    beforeAll(async () => {
      own = await t.tenant();
      w = typeApi(t, own);
      p1 = (await t.project(own.slug, own.owner.key)).id;
      p2 = (await t.project(own.slug, own.owner.key)).id;
      await w.mode(true);
      t1 = ok(await w.post(`${w.ws}/work-item-types/`, { name: 'Incident' }), 201).id;
      t2 = ok(await w.post(`${w.ws}/work-item-types/`, { name: 'Change' }), 201).id;
      for (const p of [p1, p2]) ok(await w.post(`${w.pr(p)}/work-item-types/import/`, { work_item_types: [t1, t2] }));
      prop = ok(
        await w.post(`${w.ws}/work-item-properties/`, {
          display_name: 'Impact',
          property_type: 'OPTION',
          options: [{ name: 'Low', is_default: true }, { name: 'Mid' }, { name: 'High' }],
        }),
        201,
      );
      for (const ty of [t1, t2])
        ok(await w.post(`${w.ws}/work-item-types/${ty}/properties/`, { properties: [prop.id] }), 201);
      const [, mid, high] = prop.options.map((o: { id: string }) => o.id);
      const url = `${w.ws}/work-item-properties/${prop.id}/contexts`;
      ok(
        await w.post(`${url}/`, {
          name: 'P1 any',
          project_ids: [p1],
          applies_to_all_work_item_types: true,
          is_required: true,
          options: [{ id: mid }, { id: high }],
        }),
        201,
      );
      ok(
        await w.post(`${url}/`, {
          name: 'P1 incidents',
          project_ids: [p1],
          issue_type_ids: [t1],
          is_multi: true,
          options: [{ id: high, is_default: true }],
        }),
        201,
      );
    });

    it('the winning context decides options, multiplicity, required and defaults for each work item', async () => {
      const [low, mid, high] = prop.options.map((o: { id: string }) => o.id);
      // Tier 1 (P1, Incident): multi, only High offered, High the context default.
      const a = ok(await w.post(`${w.pr(p1)}/work-items/`, { name: 'a', type_id: t1 }), 201);
      expect(a.custom_fields.impact.value).toEqual([high]);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${w.pr(p1)}/work-items/`, { name: 'a', type_id: t1, custom_fields: { impact: [mid] } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.impact']);
      // Tier 2 (P1, Change): required, Mid/High offered, no default → omitted is 400.
      expect(
        errorFieldSet(
          expectProblem(await w.post(`${w.pr(p1)}/work-items/`, { name: 'b', type_id: t2 }), 400, 'validation_error'),
        ),
      ).toEqual(['custom_fields.impact']);
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${w.pr(p1)}/work-items/`, { name: 'b', type_id: t2, custom_fields: { impact: low } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.impact']);
      const b = ok(
        await w.post(`${w.pr(p1)}/work-items/`, { name: 'b', type_id: t2, custom_fields: { impact: mid } }),
        201,
      );
      expect(b.custom_fields.impact).toEqual({
        id: prop.id,
        value: mid,
        value_detail: { id: mid, name: 'Mid', logo_props: {} },
      });
      // Tier 4 (P2, anything): the seeded context, Low the default.
      const c = ok(await w.post(`${w.pr(p2)}/work-items/`, { name: 'c', type: 'change' }), 201);
      expect(c.custom_fields.impact.value).toBe(low);
    });

    it('a property no context covers does not apply: its key is unknown', async () => {
      const narrow = ok(
        await w.post(`${w.ws}/work-item-properties/`, { display_name: 'Narrow', property_type: 'TEXT' }),
        201,
      );
      for (const ty of [t1, t2])
        ok(await w.post(`${w.ws}/work-item-types/${ty}/properties/`, { properties: [narrow.id] }), 201);
      const url = `${w.ws}/work-item-properties/${narrow.id}/contexts`;
      const [seeded] = ok(await w.get(`${url}/`)).data;
      ok(await w.patch(`${url}/${seeded.id}/`, { applies_to_all_projects: false, project_ids: [p1] }));
      ok(
        await w.post(`${w.pr(p1)}/work-items/`, {
          name: 'ok',
          type_id: t1,
          custom_fields: { narrow: 'x', impact: [prop.options[2].id] },
        }),
        201,
      );
      expect(
        errorFieldSet(
          expectProblem(
            await w.post(`${w.pr(p2)}/work-items/`, { name: 'no', type_id: t1, custom_fields: { narrow: 'x' } }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['custom_fields.narrow']);
    });
  });
});
