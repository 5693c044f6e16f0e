import { createTestApp, errorFields, expectProblem, Tenant, TestApp } from '../helpers/test-app';

type User = { id: string; email: string; key: string };

describe('work item relations, relation definitions and dependencies', () => {
  let t: TestApp;
  let ten: Tenant;
  let pid: string;
  let otherPid: string;
  let member: User;
  let commenter: User;
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });
  const items = (p = pid) => `/api/v2/workspaces/${ten.slug}/projects/${p}/work-items/`;
  const defs = () => `/api/v2/workspaces/${ten.slug}/work-item-relation-definitions/`;
  const rel = (item: string, p = pid) => `${items(p)}${item}/relations/`;
  const dep = (item: string, p = pid) => `${items(p)}${item}/dependencies/`;
  const newItem = async (name = 'Item', p = pid) =>
    (await t.http.post(items(p)).set(key()).send({ name })).body.id as string;
  let blocks: { id: string; outward: string; inward: string };
  let relates: { id: string };

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    pid = (await t.project(ten.slug, ten.owner.key)).id;
    otherPid = (await t.project(ten.slug, ten.owner.key)).id;
    member = await t.member(ten.slug, 'member');
    commenter = await t.member(ten.slug, 'member');
    for (const [u, role] of [
      [member, 'contributor'],
      [commenter, 'commenter'],
    ] as const) {
      await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/members/`)
        .set(key())
        .send({ member_id: u.id, role });
    }
    const list = (await t.http.get(defs()).set(key())).body.data;
    blocks = list.find((d: { name: string }) => d.name === 'Blocks');
    relates = list.find((d: { name: string }) => d.name === 'Relates');
  });
  afterAll(() => t.close());

  describe('relation definitions', () => {
    it('every workspace starts with the built-in definitions, in sort order', async () => {
      const res = await t.http.get(defs()).set(key(member.key));
      expect(res.status).toBe(200);
      expect(res.body.data.map((d: Record<string, unknown>) => [d.name, d.outward, d.inward, d.is_default])).toEqual([
        ['Blocks', 'blocks', 'is blocked by', true],
        ['Duplicate', 'duplicates', 'is duplicated by', true],
        ['Relates', 'relates to', 'relates to', true],
      ]);
      expect(res.body.data[0]).toEqual({
        id: expect.any(String),
        name: 'Blocks',
        description: expect.any(String),
        outward: 'blocks',
        inward: 'is blocked by',
        color: null,
        is_active: true,
        is_default: true,
        logo_props: {},
        sort_order: 1000,
        external_id: null,
        external_source: null,
        created_at: expect.any(String),
        created_by_id: null,
      });
    });

    it('admins create, update and delete custom ones; names and labels are unique; built-ins cannot change', async () => {
      const created = await t.http
        .post(defs())
        .set(key())
        .send({ name: 'Implements', outward: 'implements', inward: 'is implemented by', sort_order: 4000 });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'Implements', is_default: false, is_active: true });
      const id = created.body.id;
      expect((await t.http.get(`${defs()}${id}/`).set(key())).body).toEqual(created.body);
      expectProblem(
        await t.http.post(defs()).set(key()).send({ name: 'implements', outward: 'a', inward: 'b' }),
        409,
        'conflict',
      );
      const label = expectProblem(
        await t.http.post(defs()).set(key()).send({ name: 'Other', outward: 'Blocks', inward: 'x' }),
        409,
        'conflict',
      );
      expect(label.detail).toContain('Blocks');
      expect(
        errorFields(
          expectProblem(
            await t.http.post(defs()).set(key()).send({ name: ' ', outward: 'a' }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(expect.arrayContaining(['name', 'inward']));
      const patched = await t.http
        .patch(`${defs()}${id}/`)
        .set(key())
        .send({ inward: 'is realised by', color: '#ff0000' });
      expect(patched.body).toMatchObject({ inward: 'is realised by', color: '#ff0000', outward: 'implements' });
      expectProblem(await t.http.patch(`${defs()}${blocks.id}/`).set(key()).send({ name: 'Stops' }), 409, 'conflict');
      expectProblem(await t.http.delete(`${defs()}${blocks.id}/`).set(key()), 409, 'conflict');
      expectProblem(
        await t.http.post(defs()).set(key(member.key)).send({ name: 'X', outward: 'x1', inward: 'x2' }),
        403,
        'forbidden',
      );
      // Deleting it removes its relations.
      const [a, b] = [await newItem('Impl A'), await newItem('Impl B')];
      await t.http
        .post(rel(a))
        .set(key())
        .send({ relation_definition_id: id, direction: 'implements', work_item_ids: [b] });
      expect((await t.http.get(rel(a)).set(key())).body.implements).toEqual([b]);
      expect((await t.http.delete(`${defs()}${id}/`).set(key())).status).toBe(204);
      expectProblem(await t.http.get(`${defs()}${id}/`).set(key()), 404, 'resource_not_found');
      const after = (await t.http.get(rel(b)).set(key())).body;
      expect(after).not.toHaveProperty('is realised by');
      const audit = await t.http.get(`/api/v2/workspaces/${ten.slug}/audit-logs/?target_id=${id}`).set(key());
      expect(audit.body.data.map((e: { event_name: string }) => e.event_name).sort()).toEqual([
        'work_item_relation_definition.created',
        'work_item_relation_definition.deleted',
        'work_item_relation_definition.updated',
      ]);
    });

    it("tenant wall: another workspace's definition is 404 and cannot be used", async () => {
      const foreign = await t.tenant();
      const fdef = (
        await t.http
          .get(`/api/v2/workspaces/${foreign.slug}/work-item-relation-definitions/`)
          .set(key(foreign.owner.key))
      ).body.data[0].id;
      expectProblem(await t.http.get(`${defs()}${fdef}/`).set(key()), 404, 'resource_not_found');
      const [a, b] = [await newItem(), await newItem()];
      const res = await t.http
        .post(rel(a))
        .set(key())
        .send({ relation_definition_id: fdef, direction: 'blocks', work_item_ids: [b] });
      expect(errorFields(expectProblem(res, 400, 'validation_error'))).toEqual(['relation_definition_id']);
      expectProblem(
        await t.http.get(`/api/v2/workspaces/${foreign.slug}/work-item-relation-definitions/`).set(key()),
        404,
        'resource_not_found',
      );
    });
  });

  describe('relations', () => {
    it('A blocks B is B is blocked by A: one relation read from both ends; the list has every label', async () => {
      const [a, b, c] = [await newItem('A'), await newItem('B'), await newItem('C')];
      const res = await t.http
        .post(rel(a))
        .set(key(member.key))
        .send({ relation_definition_id: blocks.id, direction: 'blocks', work_item_ids: [b, c] });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        blocks: [b, c].sort(),
        'is blocked by': [],
        duplicates: [],
        'is duplicated by': [],
        'relates to': [],
      });
      expect((await t.http.get(rel(b)).set(key(commenter.key))).body['is blocked by']).toEqual([a]);
      // Inward direction from the other end: C is blocked by A already; relating again the same way changes nothing.
      const again = await t.http
        .post(rel(c))
        .set(key())
        .send({ relation_definition_id: blocks.id, direction: 'is blocked by', work_item_ids: [a] });
      expect(again.status).toBe(201);
      expect(again.body['is blocked by']).toEqual([a]);
      // The other way round contradicts it: 409, nothing written.
      const reverse = await t.http
        .post(rel(b))
        .set(key())
        .send({ relation_definition_id: blocks.id, direction: 'blocks', work_item_ids: [a] });
      expectProblem(reverse, 409, 'conflict');
      const count = await t.ds.query(
        `SELECT count(*)::int AS n FROM work_item_relations WHERE (source_id = $1 OR target_id = $1) AND kind = 'relation'`,
        [a],
      );
      expect(count[0].n).toBe(2);
    });

    it('a symmetric definition is the same relation from either end', async () => {
      const [a, b] = [await newItem(), await newItem()];
      const body = (ids: string[]) => ({
        relation_definition_id: relates.id,
        direction: 'relates to',
        work_item_ids: ids,
      });
      await t.http
        .post(rel(a))
        .set(key())
        .send(body([b]));
      expect(
        (
          await t.http
            .post(rel(b))
            .set(key())
            .send(body([a]))
        ).status,
      ).toBe(201);
      expect((await t.http.get(rel(a)).set(key())).body['relates to']).toEqual([b]);
      expect((await t.http.get(rel(b)).set(key())).body['relates to']).toEqual([a]);
    });

    it('two clients relating the same pair at once make one relation', async () => {
      for (let i = 0; i < 5; i++) {
        const [a, b] = [await newItem(), await newItem()];
        const results = await Promise.all([
          t.http
            .post(rel(a))
            .set(key())
            .send({ relation_definition_id: blocks.id, direction: 'blocks', work_item_ids: [b] }),
          t.http
            .post(rel(b))
            .set(key(member.key))
            .send({ relation_definition_id: blocks.id, direction: 'is blocked by', work_item_ids: [a] }),
        ]);
        expect(results.map((r) => r.status)).toEqual([201, 201]);
        const rows = await t.ds.query(`SELECT count(*)::int AS n FROM work_item_relations WHERE source_id = $1`, [a]);
        expect(rows[0].n).toBe(1);
      }
    });

    it('validation: direction, self, unknown or unreadable items, sizes; each names its field', async () => {
      const [a, b] = [await newItem(), await newItem()];
      const post = (body: Record<string, unknown>, k = ten.owner.key) => t.http.post(rel(a)).set(key(k)).send(body);
      const f = async (body: Record<string, unknown>, k?: string) =>
        errorFields(expectProblem(await post(body, k), 400, 'validation_error'));
      expect(await f({ relation_definition_id: blocks.id, direction: 'unblocks', work_item_ids: [b] })).toEqual([
        'direction',
      ]);
      expect(await f({ relation_definition_id: blocks.id, direction: 'blocks', work_item_ids: [a] })).toEqual([
        'work_item_ids',
      ]);
      expect(await f({ relation_definition_id: blocks.id, direction: 'blocks', work_item_ids: [] })).toEqual([
        'work_item_ids',
      ]);
      expect(await f({ relation_definition_id: blocks.id, direction: 'blocks', work_item_ids: ['nope'] })).toEqual([
        'work_item_ids',
      ]);
      expect(
        await f({
          relation_definition_id: blocks.id,
          direction: 'blocks',
          work_item_ids: ['00000000-0000-4000-8000-000000000000'],
        }),
      ).toEqual(['work_item_ids']);
      expect(await f({ direction: 'blocks', work_item_ids: [b] })).toEqual(['relation_definition_id']);
      // An item of another project is fine for someone who reads it, a 400 for someone who does not.
      const elsewhere = await newItem('Elsewhere', otherPid);
      expect(
        (await post({ relation_definition_id: blocks.id, direction: 'blocks', work_item_ids: [elsewhere] })).status,
      ).toBe(201);
      expect((await t.http.get(rel(elsewhere, otherPid)).set(key())).body['is blocked by']).toEqual([a]);
      const c = await newItem();
      const hidden = await newItem('Hidden', otherPid);
      expect(
        await f({ relation_definition_id: blocks.id, direction: 'blocks', work_item_ids: [c, hidden] }, member.key),
      ).toEqual(['work_item_ids']);
      // The member does not see the relation to the item they cannot read.
      expect((await t.http.get(rel(a)).set(key(member.key))).body.blocks).toEqual([]);
      expect((await t.http.get(rel(c)).set(key())).body['is blocked by']).toEqual([]);
    });

    it('delete by the related item removes the relation from both ends; repeating is 404', async () => {
      const [a, b] = [await newItem(), await newItem()];
      await t.http
        .post(rel(a))
        .set(key())
        .send({ relation_definition_id: blocks.id, direction: 'blocks', work_item_ids: [b] });
      expectProblem(await t.http.delete(`${rel(b)}${a}/`).set(key(commenter.key)), 403, 'forbidden');
      expect((await t.http.delete(`${rel(b)}${a}/`).set(key(member.key))).status).toBe(204);
      expect((await t.http.get(rel(a)).set(key())).body.blocks).toEqual([]);
      expectProblem(await t.http.delete(`${rel(b)}${a}/`).set(key()), 404, 'resource_not_found');
    });

    it('roles, scopes and the tenant wall', async () => {
      const [a, b] = [await newItem(), await newItem()];
      const body = { relation_definition_id: blocks.id, direction: 'blocks', work_item_ids: [b] };
      expectProblem(await t.http.post(rel(a)).set(key(commenter.key)).send(body), 403, 'forbidden');
      const read = await t.token(ten.owner.email, ['projects.work_items.relations:read']);
      const bearer = { Authorization: `Bearer ${read}` };
      expect((await t.http.get(rel(a)).set(bearer)).status).toBe(200);
      expect((await t.http.get(dep(a)).set(bearer)).status).toBe(200);
      expectProblem(await t.http.post(rel(a)).set(bearer).send(body), 403, 'forbidden');
      const defTok = await t.token(ten.owner.email, ['workspaces.work_item_relation_definitions:read']);
      expect((await t.http.get(defs()).set({ Authorization: `Bearer ${defTok}` })).status).toBe(200);
      expectProblem(await t.http.get(rel(a)).set({ Authorization: `Bearer ${defTok}` }), 403, 'forbidden');
      const foreign = await t.tenant();
      const fp = (await t.project(foreign.slug, foreign.owner.key)).id;
      const fwi = (
        await t.http
          .post(`/api/v2/workspaces/${foreign.slug}/projects/${fp}/work-items/`)
          .set(key(foreign.owner.key))
          .send({ name: 'F' })
      ).body.id;
      expectProblem(await t.http.get(rel(fwi)).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.get(rel(a, otherPid)).set(key()), 404, 'resource_not_found');
      expect(
        errorFields(
          expectProblem(
            await t.http
              .post(rel(a))
              .set(key())
              .send({ ...body, work_item_ids: [fwi] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['work_item_ids']);
      expectProblem(await t.http.delete(`${rel(a)}${fwi}/`).set(key()), 404, 'resource_not_found');
    });
  });

  describe('dependencies', () => {
    it("six fixed keys; blocking is the other end's blocked_by; the reverse is 409; delete by the related item", async () => {
      const [a, b, c] = [await newItem(), await newItem(), await newItem()];
      const res = await t.http
        .post(dep(a))
        .set(key(member.key))
        .send({ relation_type: 'blocking', work_item_ids: [b] });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        blocking: [b],
        blocked_by: [],
        start_before: [],
        start_after: [],
        finish_before: [],
        finish_after: [],
      });
      expect((await t.http.get(dep(b)).set(key())).body.blocked_by).toEqual([a]);
      await t.http
        .post(dep(c))
        .set(key())
        .send({ relation_type: 'start_after', work_item_ids: [a] });
      await t.http
        .post(dep(c))
        .set(key())
        .send({ relation_type: 'finish_before', work_item_ids: [a] });
      expect((await t.http.get(dep(a)).set(key())).body).toMatchObject({
        start_before: [c],
        finish_after: [c],
        blocking: [b],
      });
      expectProblem(
        await t.http
          .post(dep(b))
          .set(key())
          .send({ relation_type: 'blocking', work_item_ids: [a] }),
        409,
        'conflict',
      );
      expect(
        (
          await t.http
            .post(dep(b))
            .set(key())
            .send({ relation_type: 'blocked_by', work_item_ids: [a] })
        ).status,
      ).toBe(201);
      // Dependencies and relations are separate: the relation list does not show them.
      expect((await t.http.get(rel(a)).set(key())).body.blocks).toEqual([]);
      expect(
        errorFields(
          expectProblem(
            await t.http
              .post(dep(a))
              .set(key())
              .send({ relation_type: 'before', work_item_ids: [b] }),
            400,
            'validation_error',
          ),
        ),
      ).toEqual(['relation_type']);
      expect((await t.http.delete(`${dep(b)}${a}/`).set(key())).status).toBe(204);
      expect((await t.http.get(dep(a)).set(key())).body.blocking).toEqual([]);
      expectProblem(await t.http.delete(`${dep(b)}${a}/`).set(key()), 404, 'resource_not_found');
    });
  });
});
