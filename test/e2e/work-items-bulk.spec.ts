import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

/** bulk-create / bulk-update / bulk-delete / upsert of work items (issue 19, gap-reference 9.6). */
describe('work item bulk writes and upsert', () => {
  let t: TestApp;
  let ten: Tenant;
  let other: Tenant;
  let pid: string;
  let base: string;
  let states: Record<string, string>;
  let contributor: { id: string; key: string };
  let commenter: { id: string; key: string };
  let foreignItem: string;
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });
  const post = (path: string, body: unknown, k = ten.owner.key) =>
    t.http
      .post(`${base}${path}`)
      .set(key(k))
      .send(body as object);
  const count = async () => (await t.http.get(`${base}?per_page=1`).set(key())).body.total_count as number;
  const addToProject = async (userId: string, role: string) => {
    const r = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/members/`)
      .set(key())
      .send({ member_id: userId, role });
    expect(r.status).toBe(201);
  };

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    other = await t.tenant();
    const p = await t.project(ten.slug, ten.owner.key, { identifier: 'BLK' });
    pid = p.id;
    base = `/api/v2/workspaces/${ten.slug}/projects/${pid}/work-items/`;
    const st = await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/${pid}/states/`).set(key());
    states = Object.fromEntries(st.body.data.map((s: any) => [s.name, s.id]));
    contributor = await t.member(ten.slug, 'member');
    commenter = await t.member(ten.slug, 'member');
    await addToProject(contributor.id, 'contributor');
    await addToProject(commenter.id, 'commenter');
    const op = await t.project(other.slug, other.owner.key);
    const fi = await t.http
      .post(`/api/v2/workspaces/${other.slug}/projects/${op.id}/work-items/`)
      .set(key(other.owner.key))
      .send({ name: 'foreign' });
    foreignItem = fi.body.id;
  });
  afterAll(() => t.close());

  describe('bulk-create', () => {
    it('creates every valid row with the single create rules; failed rows answered by index, 200', async () => {
      const before = await count();
      const res = await post('bulk-create/', {
        items: [
          { name: 'one', state: 'Todo', priority: 'high', assignee_ids: [contributor.id] },
          { name: '   ' },
          { name: 'three', priority: 'critical' },
          { name: 'four', state_id: randomUUID() },
          { name: 'five', external_source: 'jira', external_id: 'J-1' },
          { name: 'six', external_source: 'jira', external_id: 'J-1' },
          { name: 'seven', parent_id: foreignItem },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body.succeeded).toBe(2);
      expect(res.body.failed).toBe(5);
      const r = res.body.results;
      expect(r.map((x: any) => [x.index, x.result])).toEqual([
        [0, 'created'],
        [1, 'failed'],
        [2, 'failed'],
        [3, 'failed'],
        [4, 'created'],
        [5, 'failed'],
        [6, 'failed'],
      ]);
      expect(r[1]).toMatchObject({ code: 'validation_error', errors: [{ field: 'name' }] });
      expect(r[1].type).toMatch(/\/errors\/validation_error$/);
      expect(r[2].errors[0].field).toBe('priority');
      expect(r[3].errors[0].field).toBe('state_id');
      expect(r[5]).toMatchObject({ code: 'conflict', detail: expect.stringContaining('row 4') });
      // The tenant wall inside the body: another workspace's item is an unknown id.
      expect(r[6].errors[0].field).toBe('parent_id');
      expect(await count()).toBe(before + 2);

      const one = await t.http.get(`${base}${r[0].id}/`).set(key());
      expect(one.body).toMatchObject({
        name: 'one',
        state_id: states.Todo,
        priority: 'high',
        assignee_ids: [contributor.id],
        project_id: pid,
      });
      const five = await t.http.get(`${base}${r[4].id}/`).set(key());
      expect(five.body.state_id).toBe(states.Backlog);
      expect(five.body.sequence_id).toBeGreaterThan(one.body.sequence_id);
    });

    it("a reused external pair of an existing item is that row's 409", async () => {
      const res = await post('bulk-create/', { items: [{ name: 'x', external_source: 'jira', external_id: 'J-1' }] });
      expect(res.body.results[0]).toMatchObject({ result: 'failed', code: 'conflict' });
    });

    it('all_or_none: one bad row writes nothing, 409 with every row', async () => {
      const before = await count();
      const res = await post('bulk-create/', {
        items: [{ name: 'ok 1' }, { name: '' }, { name: 'ok 3' }],
        all_or_none: true,
      });
      const body = expectProblem(res, 409, 'conflict');
      expect(body.results.map((x: any) => x.result)).toEqual(['failed', 'failed', 'failed']);
      expect(body.results[1].code).toBe('validation_error');
      expect(body.results[0].detail).toMatch(/all_or_none/);
      expect(await count()).toBe(before);
    });

    it('all_or_none: a row refused only at write time (label deleted) also writes nothing', async () => {
      const before = await count();
      const res = await post('bulk-create/', {
        items: [{ name: 'a' }, { name: 'b', label_ids: [randomUUID()] }],
        all_or_none: true,
      });
      expectProblem(res, 409, 'conflict');
      expect(await count()).toBe(before);
    });

    it('all_or_none with every row valid writes them all', async () => {
      const res = await post('bulk-create/', { items: [{ name: 'aon 1' }, { name: 'aon 2' }], all_or_none: true });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ succeeded: 2, failed: 0 });
    });

    it('bounds the batch: empty, over 50, not an array, a non-object row: 400', async () => {
      expectProblem(await post('bulk-create/', { items: [] }), 400, 'validation_error');
      const many = Array.from({ length: 51 }, (_, i) => ({ name: `n${i}` }));
      expect(expectProblem(await post('bulk-create/', { items: many }), 400, 'validation_error').errors[0].field).toBe(
        'items',
      );
      expectProblem(await post('bulk-create/', { items: 'x' }), 400, 'validation_error');
      expectProblem(await post('bulk-create/', { items: [1] }), 400, 'validation_error');
      expectProblem(
        await post('bulk-create/', { items: [{ name: 'a' }], all_or_none: 'yes' }),
        400,
        'validation_error',
      );
    });

    it('50 rows in one call', async () => {
      const before = await count();
      const items = Array.from({ length: 50 }, (_, i) => ({ name: `batch ${i}`, state: 'Todo' }));
      const res = await post('bulk-create/', { items });
      expect(res.body).toMatchObject({ succeeded: 50, failed: 0 });
      expect(await count()).toBe(before + 50);
    });

    it('needs the contributor role and the write scope; another workspace is 404', async () => {
      expectProblem(await post('bulk-create/', { items: [{ name: 'a' }] }, commenter.key), 403, 'forbidden');
      const tok = await t.token(ten.owner.email, ['projects.work_items:read']);
      const res = await t.http
        .post(`${base}bulk-create/`)
        .set('Authorization', `Bearer ${tok}`)
        .send({ items: [{ name: 'a' }] });
      expectProblem(res, 403, 'forbidden');
      expectProblem(await post('bulk-create/', { items: [{ name: 'a' }] }, other.owner.key), 404, 'resource_not_found');
    });
  });

  describe('round trips', () => {
    /**
     * Statements sent to PostgreSQL (every client of the process) while `fn` runs, but the background jobs' (pg-boss
     * polls, credential stamps), which may fall into the window on a loaded machine.
     */
    const statements = async (fn: () => Promise<unknown>): Promise<number> => {
      const proto = Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
      const original = proto.query;
      let n = 0;
      proto.query = function (this: unknown, ...a: unknown[]) {
        const q = a[0] as string | { text?: string } | undefined;
        if (!/pgboss|last_used_at/i.test(typeof q === 'string' ? q : (q?.text ?? ''))) n++;
        return original.apply(this, a);
      };
      try {
        await fn();
      } finally {
        proto.query = original;
      }
      return n;
    };
    const rows = (n: number, extra: Record<string, unknown> = {}) =>
      Array.from({ length: n }, (_, i) => ({ name: `rt ${i}`, priority: 'high', state: 'Todo', ...extra }));

    it('bulk-create and bulk-update make no round trip per row: 50 rows cost what 5 do', async () => {
      // Its own project, typed (rows get the default type, so custom values are checked per row) with a label.
      const p = (await t.project(ten.slug, ten.owner.key)).id;
      const url = `/api/v2/workspaces/${ten.slug}/projects/${p}/`;
      const send = (path: string, body: object) => t.http.post(`${url}${path}`).set(key()).send(body);
      expect((await send('work-item-types/enable/', {})).status).toBeLessThan(300);
      const label = (await send('labels/', { name: 'rt' })).body.id;
      const extra = { label_ids: [label], assignee_ids: [ten.owner.id] };
      await send('work-items/bulk-create/', { items: rows(2, extra) }); // warm caches (auth, prepared statements)
      let created: string[] = [];
      const create = (n: number) => async () => {
        const res = await send('work-items/bulk-create/', { items: rows(n, extra) });
        expect(res.body.succeeded).toBe(n);
        created = res.body.results.map((r: { id: string }) => r.id);
      };
      const five = await statements(create(5));
      const fifty = await statements(create(50));
      expect(five).toBeGreaterThan(3); // the counter sees the request's statements
      // A round trip per row would add 45 statements; a few background ones may still fall into the window.
      expect(fifty).toBeLessThanOrEqual(five + 8);
      // and at least 10x fewer than 50 single creates of the same rows
      const single = await statements(async () => {
        expect((await send('work-items/', rows(1, extra)[0])).status).toBe(201);
      });
      expect(fifty * 10).toBeLessThanOrEqual(single * 50);
      const got = await t.http.get(`${url}work-items/${created[0]}/`).set(key());
      expect(got.body.type_id).not.toBeNull();
      const update = (n: number) => async () => {
        const res = await send('work-items/bulk-update/', {
          items: created.slice(0, n).map((id) => ({ id, priority: 'low', label_ids: [], state: 'Done' })),
        });
        expect(res.body.succeeded).toBe(n);
      };
      const fiveU = await statements(update(5));
      const fiftyU = await statements(update(50));
      expect(fiftyU).toBeLessThanOrEqual(fiveU + 8);
    });
  });

  describe('bulk-update', () => {
    it('patches each row by id with the PATCH rules; foreign and unknown ids are 404 rows', async () => {
      const a = await post('', { name: 'upd a' });
      const b = await post('', { name: 'upd b' });
      const res = await post('bulk-update/', {
        items: [
          { id: a.body.id, name: 'renamed a', state: 'In Progress' },
          { id: b.body.id, priority: 'bogus' },
          { id: foreignItem, name: 'x' },
          { name: 'no id' },
          { id: b.body.id, start_date: '2026-02-01', target_date: '2026-01-01' },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body.results.map((x: any) => x.result)).toEqual(['updated', 'failed', 'failed', 'failed', 'failed']);
      expect(res.body.results[2]).toMatchObject({ code: 'resource_not_found', id: foreignItem });
      expect(res.body.results[3].errors[0].field).toBe('id');
      expect(res.body.results[4].errors[0].field).toBe('start_date');
      const got = await t.http.get(`${base}${a.body.id}/`).set(key());
      expect(got.body).toMatchObject({ name: 'renamed a', state_id: states['In Progress'] });
      const gotB = await t.http.get(`${base}${b.body.id}/`).set(key());
      expect(gotB.body.start_date).toBeNull();
    });

    it('set-based: one id twice, an external pair taken by an earlier row, a parent loop closed by the batch fail the later row', async () => {
      const [a, b, c] = await Promise.all(
        ['p a', 'p b', 'p c'].map(async (name) => (await post('', { name })).body.id),
      );
      const pair = { external_source: 'jira', external_id: `SET-${randomUUID()}` };
      const res = await post('bulk-update/', {
        items: [
          { id: a, parent_id: b, ...pair },
          { id: a, name: 'twice' },
          { id: b, parent_id: a },
          { id: c, ...pair },
          { id: c, priority: 'high' },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body.results.map((x: any) => x.result)).toEqual(['updated', 'failed', 'failed', 'failed', 'updated']);
      expect(res.body.results[1]).toMatchObject({ code: 'conflict', detail: expect.stringMatching(/^Row 0 /) });
      expect(res.body.results[2].errors[0].field).toBe('parent_id');
      expect(res.body.results[3].code).toBe('conflict');
      const got = async (id: string) => (await t.http.get(`${base}${id}/`).set(key())).body;
      expect(await got(a)).toMatchObject({ name: 'p a', parent_id: b });
      expect(await got(b)).toMatchObject({ parent_id: null });
      // c's first row failed, so its second one is the first PATCH of c, as it would be sent one after the other
      expect(await got(c)).toMatchObject({ priority: 'high', parent_id: null });
    });

    it('set-based: assignee and label sets replaced per row, workflow and custom rules per row, 50 rows at once', async () => {
      const label = (
        await t.http
          .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/labels/`)
          .set(key())
          .send({ name: `L-${randomUUID().slice(0, 6)}` })
      ).body.id;
      const made = await post('bulk-create/', {
        items: Array.from({ length: 50 }, (_, i) => ({ name: `fifty ${i}` })),
      });
      const ids: string[] = made.body.results.map((r: any) => r.id);
      const res = await post('bulk-update/', {
        items: ids.map((id, i) => ({
          id,
          priority: i % 2 ? 'low' : 'urgent',
          ...(i < 10 ? { assignee_ids: [contributor.id], label_ids: [label] } : {}),
          ...(i === 49 ? { assignee_ids: [commenter.id] } : {}),
        })),
      });
      expect(res.body.succeeded).toBe(49);
      expect(res.body.results[49]).toMatchObject({ result: 'failed', code: 'validation_error' });
      const first = (await t.http.get(`${base}${ids[0]}/`).set(key())).body;
      expect(first).toMatchObject({ priority: 'urgent', assignee_ids: [contributor.id], label_ids: [label] });
      const clear = await post('bulk-update/', { items: [{ id: ids[0], assignee_ids: [], label_ids: null }] });
      expect(clear.body.succeeded).toBe(1);
      expect((await t.http.get(`${base}${ids[0]}/`).set(key())).body).toMatchObject({
        assignee_ids: [],
        label_ids: [],
      });
      expect((await t.http.get(`${base}${ids[1]}/`).set(key())).body.priority).toBe('low');
    });

    it('all_or_none: nothing changes when a row fails', async () => {
      const a = await post('', { name: 'keep me' });
      const res = await post('bulk-update/', {
        items: [
          { id: a.body.id, name: 'changed' },
          { id: randomUUID(), name: 'x' },
        ],
        all_or_none: true,
      });
      const body = expectProblem(res, 409, 'conflict');
      // The row that passed is answered as not written (as bulk-create answers it), never "updated".
      expect(body.results.map((x: any) => x.result)).toEqual(['failed', 'failed']);
      expect(body.results[0]).toMatchObject({ code: 'conflict', detail: expect.stringMatching(/Not written/) });
      expect(body.results[1].code).toBe('resource_not_found');
      expect((await t.http.get(`${base}${a.body.id}/`).set(key())).body.name).toBe('keep me');
    });
  });

  describe('bulk-delete', () => {
    it("deletes with the single delete's rule per id, one statement", async () => {
      const mine = await post('', { name: 'contrib own' }, contributor.key);
      const owners = await post('', { name: 'owner item' });
      const child = await post('', { name: 'child', parent_id: owners.body.id });
      const res = await post(
        'bulk-delete/',
        { ids: [mine.body.id, owners.body.id, foreignItem, mine.body.id] },
        contributor.key,
      );
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([
        { index: 0, result: 'deleted', id: mine.body.id },
        expect.objectContaining({ index: 1, result: 'failed', code: 'forbidden', id: owners.body.id }),
        expect.objectContaining({ index: 2, result: 'failed', code: 'resource_not_found', id: foreignItem }),
        expect.objectContaining({ index: 3, result: 'failed', code: 'resource_not_found' }),
      ]);
      expectProblem(await t.http.get(`${base}${mine.body.id}/`).set(key()), 404, 'resource_not_found');
      const del = await post('bulk-delete/', { ids: [owners.body.id] });
      expect(del.body.results[0].result).toBe('deleted');
      // Its child is lifted to the top level, as a single delete does.
      expect((await t.http.get(`${base}${child.body.id}/`).set(key())).body.parent_id).toBeNull();
    });

    it('all_or_none: nothing deleted when an id fails', async () => {
      const a = await post('', { name: 'survivor' });
      const body = expectProblem(
        await post('bulk-delete/', { ids: [a.body.id, randomUUID()], all_or_none: true }),
        409,
        'conflict',
      );
      expect(body.results.map((x: any) => x.result)).toEqual(['deleted', 'failed']);
      expect((await t.http.get(`${base}${a.body.id}/`).set(key())).status).toBe(200);
    });

    it('ids must be 1 to 50 UUIDs', async () => {
      expectProblem(await post('bulk-delete/', { ids: [] }), 400, 'validation_error');
      expectProblem(await post('bulk-delete/', { ids: ['nope'] }), 400, 'validation_error');
      const many = Array.from({ length: 51 }, () => randomUUID());
      expectProblem(await post('bulk-delete/', { ids: many }), 400, 'validation_error');
    });
  });

  describe('upsert', () => {
    it('creates once (201), then updates the item holding the pair (200)', async () => {
      const body = { name: 'synced', external_source: 'gh', external_id: '42', priority: 'low' };
      const first = await post('upsert/', body);
      expect(first.status).toBe(201);
      const second = await post('upsert/', { ...body, name: 'synced again', priority: 'urgent' });
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({ id: first.body.id, name: 'synced again', priority: 'urgent' });
      const list = await t.http.get(`${base}?external_source=gh&external_id=42`).set(key());
      expect(list.body.total_count).toBe(1);
    });

    it('without the pair it is a plain create; bad bodies are 400', async () => {
      expect((await post('upsert/', { name: 'plain' })).status).toBe(201);
      expect((await post('upsert/', { name: 'plain' })).status).toBe(201);
      expectProblem(await post('upsert/', { priority: 'low' }), 400, 'validation_error');
    });

    it('commenters may not upsert', async () => {
      expectProblem(await post('upsert/', { name: 'x' }, commenter.key), 403, 'forbidden');
    });
  });

  it('archived projects refuse bulk writes', async () => {
    const p2 = await t.project(ten.slug, ten.owner.key);
    const b2 = `/api/v2/workspaces/${ten.slug}/projects/${p2.id}/`;
    expect((await t.http.post(`${b2}archive/`).set(key())).status).toBe(204);
    expectProblem(
      await t.http
        .post(`${b2}work-items/bulk-create/`)
        .set(key())
        .send({ items: [{ name: 'a' }] }),
      409,
      'project_archived',
    );
    expectProblem(await t.http.post(`${b2}work-items/upsert/`).set(key()).send({ name: 'a' }), 409, 'project_archived');
  });
});
