import type request from 'supertest';
import { StatesService } from '../../src/states/states.service';
import { auditEntries } from '../helpers/audit';
import { errorFields, expectProblem, Tenant, TestApp, createTestApp } from '../helpers/test-app';
import { ok, typeApi } from '../helpers/type-fixtures';

/**
 * Lengths of varchar(255) fields are counted as PostgreSQL counts them: code points. class-validator's MaxLength
 * skipped variation selectors, so 254 letters and "❤️" (U+2764 U+FE0F, 256 code points) passed and the column
 * refused them: a 500. An astral emoji is one code point (two UTF-16 units), so 255 of them fit.
 */
const HEART = '\u2764\uFE0F';
const TOO_LONG = `${'a'.repeat(254)}${HEART}`; // 256 code points; 255 by validator.js isLength
const EMOJI_255 = '\u{1F600}'.repeat(255); // 255 code points, 510 UTF-16 units
const HEART_AT_255 = `${'b'.repeat(253)}${HEART}`; // exactly 255 code points

/** What the cases write into, set up once. */
interface Fixture {
  /** Project mode: the project surface of types and properties. */
  pa: ReturnType<typeof typeApi>;
  pr: string;
  estimateId: string;
  optionPropId: string;
  /** A state of another project (state names are unique per project; the POST case takes the same names). */
  otherPr: string;
  stateId: string;
  itemId: string;
  /** Workspace mode: the workspace surface and property contexts. */
  wa: ReturnType<typeof typeApi>;
  context(body: Record<string, unknown>): Promise<request.Response>;
  /** A suffix that keeps the other unique fields of a body unique. */
  uniq(): string;
}

interface Case {
  /** What is written, for the test name. */
  what: string;
  /** The field the 400 names (dotted for nested fields). */
  field: string;
  /** Sends a write with `value` in `field` (the rest of the body valid and unique per call). */
  send(f: Fixture, value: string): Promise<request.Response>;
  /** Status of an accepted write. */
  status?: number;
  /** Where the response shows the stored value; null when the field is write-only. */
  read?: ((body: Record<string, any>) => unknown) | null;
}

const CASES: Case[] = [
  { what: 'project name', field: 'name', send: ({ pa }, v) => pa.post(`${pa.ws}/projects/`, { name: v }) },
  {
    what: 'project external_id',
    field: 'external_id',
    send: ({ pa, uniq }, v) =>
      pa.post(`${pa.ws}/projects/`, { name: `P ${uniq()}`, external_id: v, external_source: 'len' }),
  },
  { what: 'state name', field: 'name', send: ({ pa, pr }, v) => pa.post(`${pr}/states/`, { name: v, color: '#123' }) },
  {
    what: 'state name (PATCH)',
    field: 'name',
    status: 200,
    send: ({ pa, otherPr, stateId }, v) => pa.patch(`${otherPr}/states/${stateId}/`, { name: v }),
  },
  {
    what: 'state external_source',
    field: 'external_source',
    send: ({ pa, pr, uniq }, v) =>
      pa.post(`${pr}/states/`, { name: `S ${uniq()}`, color: '#123', external_id: 'x', external_source: v }),
  },
  { what: 'project label name', field: 'name', send: ({ pa, pr }, v) => pa.post(`${pr}/labels/`, { name: v }) },
  { what: 'workspace label name', field: 'name', send: ({ pa }, v) => pa.post(`${pa.ws}/labels/`, { name: v }) },
  {
    what: 'estimate name',
    field: 'name',
    send: ({ pa, pr }, v) => pa.post(`${pr}/estimates/`, { name: v, is_active: false }),
  },
  {
    what: 'estimate point value',
    field: 'value',
    send: ({ pa, pr, estimateId }, v) => pa.post(`${pr}/estimates/${estimateId}/points/`, { value: v }),
  },
  { what: 'workflow name', field: 'name', send: ({ pa, pr }, v) => pa.post(`${pr}/workflows/`, { name: v }) },
  { what: 'work item name', field: 'name', send: ({ pa, pr }, v) => pa.post(`${pr}/work-items/`, { name: v }) },
  {
    what: 'work item name (PATCH)',
    field: 'name',
    status: 200,
    send: ({ pa, pr, itemId }, v) => pa.patch(`${pr}/work-items/${itemId}/`, { name: v }),
  },
  {
    what: 'work item external_id',
    field: 'external_id',
    read: null,
    send: ({ pa, pr, uniq }, v) =>
      pa.post(`${pr}/work-items/`, { name: `W ${uniq()}`, external_id: v, external_source: 'len' }),
  },
  { what: 'cycle name', field: 'name', send: ({ pa, pr }, v) => pa.post(`${pr}/cycles/`, { name: v }) },
  { what: 'module name', field: 'name', send: ({ pa, pr }, v) => pa.post(`${pr}/modules/`, { name: v }) },
  {
    what: 'work item type name (project)',
    field: 'name',
    send: ({ pa, pr }, v) => pa.post(`${pr}/work-item-types/`, { name: v }),
  },
  {
    what: 'work item property display_name (project)',
    field: 'display_name',
    send: ({ pa, pr }, v) => pa.post(`${pr}/work-item-properties/`, { display_name: v, property_type: 'TEXT' }),
  },
  {
    what: 'property option name',
    field: 'name',
    send: ({ pa, pr, optionPropId }, v) => pa.post(`${pr}/work-item-properties/${optionPropId}/options/`, { name: v }),
  },
  {
    what: 'option name inside a property create',
    field: 'options.0.name',
    read: (body) => body.options?.[0]?.name,
    send: ({ pa, pr, uniq }, v) =>
      pa.post(`${pr}/work-item-properties/`, {
        display_name: `O ${uniq()}`,
        property_type: 'OPTION',
        options: [{ name: v }],
      }),
  },
  {
    what: 'work item type name (workspace)',
    field: 'name',
    send: ({ wa }, v) => wa.post(`${wa.ws}/work-item-types/`, { name: v }),
  },
  {
    what: 'work item property display_name (workspace)',
    field: 'display_name',
    send: ({ wa }, v) => wa.post(`${wa.ws}/work-item-properties/`, { display_name: v, property_type: 'TEXT' }),
  },
  { what: 'property context name', field: 'name', send: (f, v) => f.context({ name: v }) },
  {
    what: 'option name inside a context',
    field: 'options.0.name',
    read: (body) => body.options?.[0]?.name,
    send: (f, v) => f.context({ options: [{ name: v }] }),
  },
];

describe('varchar(255) lengths are counted in code points, as PostgreSQL counts them', () => {
  let t: TestApp;
  let f: Fixture;

  beforeAll(async () => {
    t = await createTestApp();
    let n = 0;
    const uniq = () => `${++n}`;

    const a: Tenant = await t.tenant();
    const pa = typeApi(t, a);
    const pr = pa.pr((await t.project(a.slug, a.owner.key)).id);
    const otherPr = pa.pr((await t.project(a.slug, a.owner.key)).id);
    ok(await pa.post(`${pr}/work-item-types/enable/`));

    const b: Tenant = await t.tenant();
    const wa = typeApi(t, b);
    const projectB = (await t.project(b.slug, b.owner.key)).id;
    await wa.mode(true);
    const typeB = ok(await wa.post(`${wa.ws}/work-item-types/`, { name: 'Bug' }), 201).id;

    f = {
      pa,
      pr,
      estimateId: ok(await pa.post(`${pr}/estimates/`, { name: 'Sizes', type: 'categories' }), 201).id,
      optionPropId: ok(
        await pa.post(`${pr}/work-item-properties/`, { display_name: 'Risk', property_type: 'OPTION' }),
        201,
      ).id,
      otherPr,
      stateId: ok(await pa.post(`${otherPr}/states/`, { name: 'To rename', color: '#123' }), 201).id,
      itemId: ok(await pa.post(`${pr}/work-items/`, { name: 'To rename' }), 201).id,
      wa,
      // A property of its own per context: contexts of one property may not overlap.
      async context(body) {
        const prop = ok(
          await wa.post(`${wa.ws}/work-item-properties/`, { display_name: `Ctx ${uniq()}`, property_type: 'OPTION' }),
          201,
        );
        return wa.post(`${wa.ws}/work-item-properties/${prop.id}/contexts/`, {
          name: `Ctx ${uniq()}`,
          project_ids: [projectB],
          issue_type_ids: [typeB],
          ...body,
        });
      },
      uniq,
    };
  });
  afterAll(() => t.close());

  it.each(CASES.map((c) => [c.what, c] as const))(
    '%s: 256 code points (254 letters and a variation-selected emoji) are a 400 naming the field; 255 are stored',
    async (_what, c) => {
      const refused = expectProblem(await c.send(f, TOO_LONG), 400, 'validation_error');
      expect(errorFields(refused)).toEqual([c.field]);
      expect(refused.errors[0].message).toBe(`${c.field} must be shorter than or equal to 255 characters`);

      for (const value of [EMOJI_255, HEART_AT_255]) {
        const body = ok(await c.send(f, value), c.status ?? 201);
        const read = c.read === undefined ? (x: Record<string, any>) => x[c.field] : c.read;
        if (read) expect(read(body)).toBe(value);
      }
    },
  );

  it('the audit trail keeps a name of 255 astral characters whole (its columns are cut in code points, not UTF-16 units)', async () => {
    const ten = await t.tenant();
    const res = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/`)
      .set('X-Api-Key', ten.owner.key)
      .send({ name: EMOJI_255 });
    const id = ok(res, 201).id;
    const [entry] = await auditEntries(t, ten, { event_name: 'project.created', target_id: id });
    expect(entry.target_display_name).toBe(EMOJI_255);
  });

  it('workspace member remove: an email over 320 code points is refused for its length', async () => {
    // Any email that is no member's is a 400 naming email: only the message tells the length check answered.
    const ten = await t.tenant();
    const email = `${'m'.repeat(307)}@example.com${HEART}`; // 321 code points
    const res = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/members/remove/`)
      .set('X-Api-Key', ten.owner.key)
      .send({ email });
    expect(expectProblem(res, 400, 'validation_error').errors).toEqual([
      { field: 'email', message: 'email must be shorter than or equal to 320 characters' },
    ]);
  });

  it('a value the column refuses anyway (SQLSTATE 22001) is a 400 validation_error, not a 500', async () => {
    // Stands in for a length check gone missing: the service writes a value longer than the column takes.
    const ten = await t.tenant();
    const projectId = (await t.project(ten.slug, ten.owner.key)).id;
    const svc = t.app.get(StatesService);
    const create = svc.create.bind(svc);
    const spy = jest
      .spyOn(svc, 'create')
      .mockImplementation((ctx, dto) => create(ctx, { ...dto, name: 'x'.repeat(300) }));
    try {
      const res = await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/states/`)
        .set('X-Api-Key', ten.owner.key)
        .send({ name: 'Short', color: '#123' });
      const body = expectProblem(res, 400, 'validation_error');
      expect(body.detail).toBe('A value is longer than its field takes (at most 255 characters).');
      expect(body.errors).toEqual([]);
      expect(JSON.stringify(body)).not.toMatch(/stack|character varying|at \w+ \(/);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});
