import { ProjectsRepository } from '../../src/projects/projects.repository';
import { ProjectsService } from '../../src/projects/projects.service';
import { createTestApp, expectProblem, Tenant, TestApp, errorFields } from '../helpers/test-app';

type User = { id: string; email: string; key: string };

/** Project create / update rules: lead and default assignee, blank strings, races, 500 bodies. */
describe('projects', () => {
  let t: TestApp;
  let ten: Tenant;
  let ws: string;
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    ws = `/api/v2/workspaces/${ten.slug}`;
  });
  afterAll(() => t.close());

  const k = (u: { key: string } = ten.owner) => ({ 'X-Api-Key': u.key });
  const create = (body: Record<string, unknown>, u: { key: string } = ten.owner) =>
    t.http.post(`${ws}/projects/`).set(k(u)).send(body);
  const roster = async (projectId: string) =>
    (await t.http.get(`${ws}/projects/${projectId}/members/?per_page=200`).set(k())).body.data as Array<{
      id: string;
      member_id: string;
      role: string;
    }>;
  let n = 0;
  const name = () => `Project ${Date.now().toString(36)}-${n++}`;

  describe('lead and default assignee', () => {
    let guest: User;
    let member: User;
    let wsAdmin: User;
    let outsider: User;
    let foreigner: User;
    beforeAll(async () => {
      guest = await t.member(ten.slug, 'guest');
      member = await t.member(ten.slug, 'member');
      wsAdmin = await t.member(ten.slug, 'admin');
      outsider = await t.user();
      foreigner = (await t.tenant()).owner;
    });

    it('create: a workspace guest cannot be the default assignee or the lead (400 naming the field)', async () => {
      const a = expectProblem(await create({ name: name(), default_assignee_id: guest.id }), 400, 'validation_error');
      expect(errorFields(a)).toEqual(['default_assignee_id']);
      expect(a.errors[0].message).toMatch(/guest/);
      const l = expectProblem(await create({ name: name(), project_lead_id: guest.id }), 400, 'validation_error');
      expect(errorFields(l)).toEqual(['project_lead_id']);
      // Nothing was created, and the guest holds no contributor membership anywhere.
      const rows = await t.ds.query(`SELECT role FROM project_members WHERE member_id = $1 AND deleted_at IS NULL`, [
        guest.id,
      ]);
      expect(rows).toEqual([]);
    });

    it('create: a user outside the workspace (or of another one) is 400 naming the field', async () => {
      for (const u of [outsider, foreigner]) {
        for (const f of ['project_lead_id', 'default_assignee_id']) {
          const res = expectProblem(await create({ name: name(), [f]: u.id }), 400, 'validation_error');
          expect(errorFields(res)).toEqual([f]);
        }
      }
      const unknown = expectProblem(
        await create({ name: name(), default_assignee_id: '00000000-0000-4000-8000-000000000000' }),
        400,
        'validation_error',
      );
      expect(errorFields(unknown)).toEqual(['default_assignee_id']);
    });

    it('create: the default assignee joins as contributor, or as admin when a workspace owner or admin', async () => {
      const a = await create({ name: name(), default_assignee_id: member.id });
      expect(a.status).toBe(201);
      expect(a.body.default_assignee_id).toBe(member.id);
      expect((await roster(a.body.id)).find((r) => r.member_id === member.id)?.role).toBe('contributor');
      const b = await create({ name: name(), default_assignee_id: wsAdmin.id }, member);
      expect(b.status).toBe(201);
      const rb = await roster(b.body.id);
      expect(rb.find((r) => r.member_id === wsAdmin.id)?.role).toBe('admin');
      expect(rb.find((r) => r.member_id === member.id)?.role).toBe('admin');
    });

    it('update: the default assignee must be assignable (project admin or contributor, or workspace owner/admin)', async () => {
      const p = await t.project(ten.slug, ten.owner.key);
      const url = `${ws}/projects/${p.id}/`;
      // A workspace guest listed as commenter, a member listed as commenter: not assignable.
      for (const [u, role] of [
        [guest, 'commenter'],
        [await t.member(ten.slug, 'member'), 'commenter'],
      ] as const) {
        expect((await t.http.post(`${url}members/`).set(k()).send({ member_id: u.id, role })).status).toBe(201);
        const res = expectProblem(
          await t.http.patch(url).set(k()).send({ default_assignee_id: u.id }),
          400,
          'validation_error',
        );
        expect(errorFields(res)).toEqual(['default_assignee_id']);
      }
      // Not on the project, outside the workspace, of another workspace: 400 naming the field.
      for (const u of [member, outsider, foreigner]) {
        for (const f of ['project_lead_id', 'default_assignee_id']) {
          const res = expectProblem(
            await t.http
              .patch(url)
              .set(k())
              .send({ [f]: u.id }),
            400,
            'validation_error',
          );
          expect(errorFields(res)).toEqual([f]);
        }
      }
      // A guest cannot lead either, even when listed.
      const lead = expectProblem(
        await t.http.patch(url).set(k()).send({ project_lead_id: guest.id }),
        400,
        'validation_error',
      );
      expect(errorFields(lead)).toEqual(['project_lead_id']);
      expect((await t.http.get(url).set(k())).body).toMatchObject({ default_assignee_id: null, project_lead_id: null });
      // A contributor, and a workspace admin (a project admin everywhere, even unlisted), are assignable.
      expect(
        (await t.http.post(`${url}members/`).set(k()).send({ member_id: member.id, role: 'contributor' })).status,
      ).toBe(201);
      expect((await t.http.patch(url).set(k()).send({ default_assignee_id: member.id })).body.default_assignee_id).toBe(
        member.id,
      );
      expect(
        (await t.http.patch(url).set(k()).send({ default_assignee_id: wsAdmin.id })).body.default_assignee_id,
      ).toBe(wsAdmin.id);
      expect(
        (await t.http.patch(url).set(k()).send({ default_assignee_id: null })).body.default_assignee_id,
      ).toBeNull();
    });
  });

  describe('blank strings', () => {
    it('a blank or whitespace name is 400 naming name, on create and on update', async () => {
      for (const v of ['', '   ', '\t\n ']) {
        expect(errorFields(expectProblem(await create({ name: v }), 400, 'validation_error'))).toEqual(['name']);
      }
      const p = await t.project(ten.slug, ten.owner.key, { name: 'Keeps its name' });
      const url = `${ws}/projects/${p.id}/`;
      for (const v of ['', '   ', '\t\n ']) {
        expect(
          errorFields(expectProblem(await t.http.patch(url).set(k()).send({ name: v }), 400, 'validation_error')),
        ).toEqual(['name']);
      }
      expect((await t.http.get(url).set(k())).body.name).toBe('Keeps its name');
      // Surrounding whitespace is trimmed.
      expect((await t.http.patch(url).set(k()).send({ name: '  Trimmed name  ' })).body.name).toBe('Trimmed name');
    });

    it('a blank or padded identifier is 400 naming identifier, on create and on update', async () => {
      const p = await t.project(ten.slug, ten.owner.key);
      for (const v of ['', '   ', ' AB ', 'A B']) {
        expect(
          errorFields(expectProblem(await create({ name: name(), identifier: v }), 400, 'validation_error')),
        ).toEqual(['identifier']);
        expect(
          errorFields(
            expectProblem(
              await t.http.patch(`${ws}/projects/${p.id}/`).set(k()).send({ identifier: v }),
              400,
              'validation_error',
            ),
          ),
        ).toEqual(['identifier']);
      }
    });
  });

  describe('unique values under concurrency', () => {
    it('8 parallel identical creates: one 201, the rest 409 conflict (never 500)', async () => {
      const body = { name: 'Raced project', identifier: 'RACE' };
      const all = await Promise.all(Array.from({ length: 8 }, () => create(body)));
      const statuses = all.map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      for (const r of all.filter((x) => x.status === 409)) expectProblem(r, 409, 'conflict');
      const rows = await t.ds.query(
        `SELECT count(*)::int AS c FROM projects WHERE workspace_id = $1 AND identifier = 'RACE' AND deleted_at IS NULL`,
        [ten.workspaceId],
      );
      expect(rows[0].c).toBe(1);
    });

    it('parallel creates with the same identifier and different names: one 201, the rest 409 naming the identifier', async () => {
      const all = await Promise.all(
        Array.from({ length: 6 }, (_, i) => create({ name: `Race ${i} ${Date.now()}`, identifier: 'RACEB' })),
      );
      expect(all.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of all.filter((x) => x.status !== 201))
        expect(expectProblem(r, 409, 'conflict').detail).toMatch(/identifier/);
    });

    it('parallel creates whose derived identifiers collide all succeed, with distinct identifiers', async () => {
      // "Deltarace11" .. "Deltarace22" all derive DELTA, then DELTA2, DELTA3, ... when taken. Derivation is
      // serialized per workspace, so even a dozen at once (more than the retry budget) all succeed.
      const all = await Promise.all(Array.from({ length: 12 }, (_, i) => create({ name: `Deltarace${i + 11}` })));
      expect(all.map((r) => r.status)).toEqual(Array(12).fill(201));
      expect(new Set(all.map((r) => r.body.identifier)).size).toBe(12);
    });

    it('a derived identifier taken between the check and the insert is retried, not refused', async () => {
      // "Echo one" and "Echo other" both derive EO. The check is made to miss the first project once,
      // as a concurrent create would, so the insert meets the unique index.
      expect((await create({ name: 'Echo one' })).body.identifier).toBe('EO');
      const repo = t.app.get(ProjectsRepository);
      const spy = jest.spyOn(repo, 'identifierTaken').mockResolvedValueOnce(false);
      try {
        const res = await create({ name: 'Echo other' });
        expect(res.status).toBe(201);
        expect(res.body.identifier).toBe('EO2');
      } finally {
        spy.mockRestore();
      }
      // A chosen identifier is not retried: the same miss is a 409 naming the identifier.
      const spy2 = jest.spyOn(repo, 'identifierTaken').mockResolvedValueOnce(false);
      try {
        expect(expectProblem(await create({ name: 'Echo third', identifier: 'EO' }), 409, 'conflict').detail).toMatch(
          /identifier/,
        );
      } finally {
        spy2.mockRestore();
      }
    });

    it('parallel renames to the same name: one 200, the rest 409', async () => {
      const ps: Array<{ id: string }> = [];
      for (let i = 0; i < 5; i++) ps.push(await t.project(ten.slug, ten.owner.key));
      const all = await Promise.all(
        ps.map((p) => t.http.patch(`${ws}/projects/${p.id}/`).set(k()).send({ name: 'Renamed in a race' })),
      );
      expect(all.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of all.filter((x) => x.status !== 200)) expectProblem(r, 409, 'conflict');
    });
  });

  describe('500 internal_error', () => {
    it('has no stack in the body and echoes the request id', async () => {
      const service = t.app.get(ProjectsService);
      const err = new Error('exploded at the database layer');
      err.stack =
        'Error: exploded\n    at ProjectsService.get (/app/src/projects/projects.service.ts:42:11)\n    at process.processTicksAndRejections (node:internal)';
      const spy = jest.spyOn(service, 'get').mockRejectedValue(err);
      try {
        const p = await t.project(ten.slug, ten.owner.key);
        const res = await t.http.get(`${ws}/projects/${p.id}/`).set(k()).set('X-Request-Id', 'req-500-check');
        const body = expectProblem(res, 500, 'internal_error');
        expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'status', 'title', 'type']);
        expect(body).not.toHaveProperty('stack');
        expect(JSON.stringify(body)).not.toMatch(/\bat \S+ \(|projects\.service|exploded/);
        expect(res.headers['x-request-id']).toBe('req-500-check');
        // Without a client id, one is generated and still sent back.
        const gen = await t.http.get(`${ws}/projects/${p.id}/`).set(k());
        expectProblem(gen, 500, 'internal_error');
        expect(gen.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      } finally {
        spy.mockRestore();
      }
    });
  });
});
