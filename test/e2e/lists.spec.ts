import { parseListQuery } from '../../src/common/pagination/list-query';
import { ListSpec } from '../../src/common/pagination/list-spec';
import { runList } from '../../src/common/pagination/run-list';
import { SqlParams } from '../../src/common/pagination/sql-params';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

/**
 * The one generic list implementation (gap-reference 1.1 and 1.2), exercised through the workspace
 * members and projects lists.
 */
describe('lists: envelopes, pagination, ordering, filters, search', () => {
  let t: TestApp;
  let ten: Tenant;
  let members: string;
  let projects: string;
  const EXTRA = 205;
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    members = `/api/v2/workspaces/${ten.slug}/members/`;
    projects = `/api/v2/workspaces/${ten.slug}/projects/`;
    // 205 more members in one statement, with distinct creation times (i seconds ago) and roles.
    await t.ds.query(
      `WITH u AS (
         INSERT INTO users (email, display_name, first_name, last_name)
         SELECT 'bulk' || i || '-' || $2 || '@example.com', 'Bulk ' || i, 'First' || i, 'Last' || i FROM generate_series(1, $3::int) i
         RETURNING id, display_name)
       INSERT INTO workspace_members (workspace_id, member_id, role, created_at)
       SELECT $1, u.id, CASE WHEN substring(u.display_name from 6)::int % 3 = 0 THEN 'guest' ELSE 'member' END,
              now() - (substring(u.display_name from 6)::int || ' seconds')::interval
         FROM u`,
      [ten.workspaceId, ten.slug, EXTRA],
    );
  });
  afterAll(() => t.close());

  const get = (url: string) => t.http.get(url).set('X-Api-Key', ten.owner.key);
  const TOTAL = EXTRA + 1;

  describe('envelopes', () => {
    it('offset envelope: data, next, previous, total_count, pagination.style', async () => {
      const res = await get(`${members}?per_page=10`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'next', 'pagination', 'previous', 'total_count']);
      expect(res.body).toMatchObject({ next: 10, previous: null, total_count: TOTAL, pagination: { style: 'offset' } });
      expect(res.body.data).toHaveLength(10);
      const mid = await get(`${members}?per_page=10&offset=25`);
      expect(mid.body).toMatchObject({ next: 35, previous: 15, total_count: TOTAL });
      const last = await get(`${members}?per_page=10&offset=${TOTAL - 3}`);
      expect(last.body).toMatchObject({ next: null, previous: TOTAL - 13 });
      expect(last.body.data).toHaveLength(3);
      const nearStart = await get(`${members}?per_page=10&offset=4`);
      expect(nearStart.body.previous).toBe(0);
    });

    it('cursor envelope: data, next_cursor, has_more, pagination.style and no total_count', async () => {
      const res = await get(`${members}?paginate=cursor&per_page=10`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor', 'pagination']);
      expect(res.body).toMatchObject({ has_more: true, pagination: { style: 'cursor' } });
      expect(typeof res.body.next_cursor).toBe('string');
      expect(res.body).not.toHaveProperty('total_count');
      expect(res.body).not.toHaveProperty('previous');
    });

    it('an empty list is still an envelope', async () => {
      const res = await get(`${members}?member_id=00000000-0000-4000-8000-000000000000`);
      expect(res.body).toEqual({
        data: [],
        next: null,
        previous: null,
        total_count: 0,
        pagination: { style: 'offset' },
      });
      const cur = await get(`${members}?member_id=00000000-0000-4000-8000-000000000000&paginate=cursor`);
      expect(cur.body).toEqual({ data: [], next_cursor: null, has_more: false, pagination: { style: 'cursor' } });
    });

    it('count=false omits total_count; paginate=<anything else> means offset', async () => {
      const res = await get(`${members}?count=false&per_page=5`);
      expect(res.body).not.toHaveProperty('total_count');
      expect(res.body).toMatchObject({ next: 5, pagination: { style: 'offset' } });
      for (const v of ['offset', 'pages', 'CURSOR', '']) {
        const r = await get(`${members}?paginate=${v}&per_page=5`);
        expect(r.status).toBe(200);
        expect(r.body.pagination.style).toBe('offset');
        expect(r.body.total_count).toBe(TOTAL);
      }
    });
  });

  describe('per_page and offset', () => {
    it('per_page defaults to 50 and is clamped to 200 above', async () => {
      expect((await get(members)).body.data).toHaveLength(50);
      const big = await get(`${members}?per_page=500`);
      expect(big.status).toBe(200);
      expect(big.body.data).toHaveLength(200);
      expect(big.body.next).toBe(200);
      expect((await get(`${members}?per_page=200`)).body.data).toHaveLength(200);
      expect((await get(`${members}?per_page=1`)).body.data).toHaveLength(1);
      const cur = await get(`${members}?paginate=cursor&per_page=999`);
      expect(cur.body.data).toHaveLength(200);
    });

    it('a non-integer or non-positive per_page is 400 naming per_page', async () => {
      for (const v of ['abc', '1.5', '0', '-1', '', '10abc']) {
        const res = expectProblem(await get(`${members}?per_page=${v}`), 400, 'validation_error');
        expect(res.errors[0].field).toBe('per_page');
      }
    });

    it('offset runs 0..10000; negative, non-integer or over the cap is 400 pointing to cursor', async () => {
      expect((await get(`${members}?offset=0`)).status).toBe(200);
      const edge = await get(`${members}?offset=10000`);
      expect(edge.status).toBe(200);
      expect(edge.body.data).toEqual([]);
      for (const v of ['-1', '10001', '1.5', 'x']) {
        const res = expectProblem(await get(`${members}?offset=${v}`), 400, 'validation_error');
        expect(res.errors[0].field).toBe('offset');
        expect(res.errors[0].message).toContain('cursor');
      }
    });

    it('next is null when the next offset would pass the 10000 cap (the caller switches to cursor mode)', async () => {
      const big = await t.tenant();
      await t.ds.query(
        `WITH u AS (
           INSERT INTO users (email, display_name) SELECT 'cap' || i || '-' || $2 || '@example.com', 'Cap ' || i FROM generate_series(1, 10060) i
           RETURNING id)
         INSERT INTO workspace_members (workspace_id, member_id, role) SELECT $1, u.id, 'member' FROM u`,
        [big.workspaceId, big.slug],
      );
      const url = `/api/v2/workspaces/${big.slug}/members/`;
      const at = async (offset: number, perPage: number) => {
        const res = await t.http
          .get(`${url}?offset=${offset}&per_page=${perPage}&count=false`)
          .set('X-Api-Key', big.owner.key);
        expect(res.status).toBe(200);
        return res.body;
      };
      // 10061 rows. The last reachable offset is 10000: a next of 10000 is still given...
      expect((await at(9950, 50)).next).toBe(10000);
      expect((await at(10000, 50)).data).toHaveLength(50);
      // ...one past it is not: null, though rows remain (offset 9990 + 50 would be 10040, a 400).
      const near = await at(9990, 50);
      expect(near.data).toHaveLength(50);
      expect(near.next).toBeNull();
      expect(near.previous).toBe(9940);
      expect((await at(10000, 50)).next).toBeNull();
      expect((await at(9999, 1)).next).toBe(10000);
      expectProblem(
        await t.http.get(`${url}?offset=10040&per_page=50`).set('X-Api-Key', big.owner.key),
        400,
        'validation_error',
      );
      // total_count still tells how many rows there are.
      expect(
        (await t.http.get(`${url}?offset=9990&per_page=50`).set('X-Api-Key', big.owner.key)).body.total_count,
      ).toBe(10061);
    });

    it('offset pages cover the list exactly once', async () => {
      const seen: string[] = [];
      for (let off = 0; off !== null;) {
        const res = await get(`${members}?per_page=60&offset=${off}`);
        seen.push(...res.body.data.map((m: { id: string }) => m.id));
        off = res.body.next;
        if (off === null) break;
      }
      expect(seen).toHaveLength(TOTAL);
      expect(new Set(seen).size).toBe(TOTAL);
    });
  });

  describe('cursor', () => {
    async function walk(query: string): Promise<string[]> {
      const ids: string[] = [];
      let res = await get(`${members}?paginate=cursor&${query}`);
      for (;;) {
        expect(res.status).toBe(200);
        ids.push(...res.body.data.map((m: { id: string }) => m.id));
        if (!res.body.has_more) break;
        res = await get(`${members}?cursor=${res.body.next_cursor}&${query}`);
      }
      return ids;
    }

    it('walks every row once in the order of the offset list, in both directions', async () => {
      const offsetOrder = (await get(`${members}?per_page=200`)).body.data.map((m: { id: string }) => m.id);
      offsetOrder.push(...(await get(`${members}?per_page=200&offset=200`)).body.data.map((m: { id: string }) => m.id));
      const ids = await walk('per_page=37');
      expect(ids).toEqual(offsetOrder);
      const desc = await walk('per_page=50&order_by=-created_at');
      expect(desc).toEqual([...offsetOrder].reverse());
      const byId = await walk('per_page=64&order_by=id');
      expect(byId).toEqual([...offsetOrder].sort());
    });

    it('the last page has has_more false and next_cursor null', async () => {
      const res = await get(`${members}?paginate=cursor&per_page=200`);
      const last = await get(`${members}?cursor=${res.body.next_cursor}&per_page=200`);
      expect(last.body).toMatchObject({ has_more: false, next_cursor: null });
      expect(last.body.data).toHaveLength(TOTAL - 200);
    });

    it('rows with the same order value are split across pages by the id tiebreak', async () => {
      // Many members created in one statement share created_at.
      const tie = await t.tenant();
      await t.ds.query(
        `WITH u AS (INSERT INTO users (email, display_name) SELECT 'tie' || i || '-' || $2 || '@example.com', 'Tie' FROM generate_series(1, 9) i RETURNING id)
         INSERT INTO workspace_members (workspace_id, member_id, role) SELECT $1, id, 'member' FROM u`,
        [tie.workspaceId, tie.slug],
      );
      const url = `/api/v2/workspaces/${tie.slug}/members/`;
      const seen: string[] = [];
      let res = await t.http.get(`${url}?paginate=cursor&per_page=2`).set('X-Api-Key', tie.owner.key);
      for (;;) {
        seen.push(...res.body.data.map((m: { id: string }) => m.id));
        if (!res.body.has_more) break;
        res = await t.http.get(`${url}?cursor=${res.body.next_cursor}&per_page=2`).set('X-Api-Key', tie.owner.key);
      }
      expect(seen).toHaveLength(10);
      expect(new Set(seen).size).toBe(10);
    });

    it('a malformed or truncated cursor is 400 naming cursor', async () => {
      const first = await get(`${members}?paginate=cursor&per_page=5`);
      const good: string = first.body.next_cursor;
      const tampered = Buffer.from(
        JSON.stringify(['created_at', 'not-a-time', '00000000-0000-4000-8000-000000000000']),
      ).toString('base64url');
      for (const bad of ['!!!', 'abc', good.slice(0, good.length - 6), good.slice(0, 10), 'W10', tampered]) {
        const res = expectProblem(
          await get(`${members}?cursor=${encodeURIComponent(bad)}&per_page=5`),
          400,
          'validation_error',
        );
        expect(res.errors[0].field).toBe('cursor');
      }
    });

    it("a hand-edited position that is no value of the ordering's type is 400 naming cursor, never a 500", async () => {
      const id = '00000000-0000-4000-8000-000000000000';
      const make = (order: string, value: string) =>
        Buffer.from(JSON.stringify([order, value, id])).toString('base64url');
      const first = await get(`${members}?paginate=cursor&per_page=1&order_by=created_at`);
      const [, good] = JSON.parse(Buffer.from(first.body.next_cursor, 'base64url').toString('utf8'));
      const edits = [
        ['created_at', String(good).replace(/[+-]\d{2}(:?\d{2})?$/, '+99')],
        ['created_at', String(good).replace(/[+-]\d{2}(:?\d{2})?$/, '+16:00')],
        ['created_at', '+010000-01-01T00:00:00Z'],
        ['created_at', 'infinity'],
        ['created_at', 'now'],
        ['created_at', 'epoch'],
        ['created_at', `${good}\u0000`],
        ['id', 'not-a-uuid'],
      ];
      for (const [order, value] of edits) {
        const res = expectProblem(
          await get(`${members}?cursor=${make(order, value)}&order_by=${order}&per_page=5`),
          400,
          'validation_error',
        );
        expect(res.errors.map((e: { field: string }) => e.field)).toEqual(['cursor']);
      }
      // The untouched position still works, and so does the same instant with a Z or another offset.
      expect((await get(`${members}?cursor=${make('created_at', good)}&order_by=created_at&per_page=5`)).status).toBe(
        200,
      );
      expect(
        (await get(`${members}?cursor=${make('created_at', '2026-01-01T00:00:00Z')}&order_by=created_at&per_page=5`))
          .status,
      ).toBe(200);
      expect(
        (
          await get(
            `${members}?cursor=${make('created_at', '2026-01-01 05:30:00+05:30')}&order_by=created_at&per_page=5`,
          )
        ).status,
      ).toBe(200);
    });

    it('a hand-made cursor with a null position on a non-nullable ordering is 400 naming cursor', async () => {
      const id = '00000000-0000-4000-8000-000000000000';
      const make = (order: string) => Buffer.from(JSON.stringify([order, null, id])).toString('base64url');
      for (const order of ['created_at', '-created_at', 'id', '-id']) {
        const res = expectProblem(
          await get(`${members}?cursor=${make(order)}&order_by=${order}&per_page=5`),
          400,
          'validation_error',
        );
        expect(res.errors.map((e: { field: string }) => e.field)).toEqual(['cursor']);
      }
      expectProblem(await get(`${projects}?cursor=${make('created_at')}`), 400, 'validation_error');
    });

    it('a cursor made for another order_by is 400', async () => {
      const first = await get(`${members}?paginate=cursor&per_page=5&order_by=-created_at`);
      const res = expectProblem(
        await get(`${members}?cursor=${first.body.next_cursor}&per_page=5&order_by=created_at`),
        400,
        'validation_error',
      );
      expect(res.errors[0].field).toBe('cursor');
      expect(res.detail).toContain('order_by');
      expectProblem(await get(`${members}?cursor=${first.body.next_cursor}&per_page=5`), 400, 'validation_error');
      expect((await get(`${members}?cursor=${first.body.next_cursor}&per_page=5&order_by=-created_at`)).status).toBe(
        200,
      );
    });

    it('an ineligible ordering with cursor pagination is 400 ordering_not_cursor_eligible', async () => {
      const res = expectProblem(
        await get(`${projects}?paginate=cursor&order_by=name`),
        400,
        'ordering_not_cursor_eligible',
      );
      expect(res.detail).toContain('created_at');
      expectProblem(await get(`${projects}?paginate=cursor&order_by=-name`), 400, 'ordering_not_cursor_eligible');
      expectProblem(await get(`${projects}?cursor=abc&order_by=name`), 400, 'ordering_not_cursor_eligible');
      // The same ordering is fine in offset mode.
      expect((await get(`${projects}?order_by=name`)).status).toBe(200);
    });
  });

  describe('ordering', () => {
    it('an unknown order_by falls back to the default ordering', async () => {
      const def = (await get(`${members}?per_page=30`)).body.data.map((m: { id: string }) => m.id);
      for (const v of ['display_name', 'role', '-nope', 'created_at;drop']) {
        const res = await get(`${members}?per_page=30&order_by=${encodeURIComponent(v)}`);
        expect(res.status).toBe(200);
        expect(res.body.data.map((m: { id: string }) => m.id)).toEqual(def);
      }
      // ...including in cursor mode, where the default is eligible.
      expect((await get(`${members}?paginate=cursor&order_by=display_name`)).status).toBe(200);
    });

    it('orders by each allowed field, ascending and descending', async () => {
      const asc = (await get(`${members}?per_page=200&order_by=id`)).body.data.map((m: { id: string }) => m.id);
      expect(asc).toEqual([...asc].sort());
      const desc = (await get(`${members}?per_page=200&order_by=-id`)).body.data.map((m: { id: string }) => m.id);
      expect(desc).toEqual([...desc].sort().reverse());
      // created_at: the bulk rows were created i seconds ago, so Bulk 205 is first and the owner last.
      const byCreated = (await get(`${members}?per_page=3&order_by=created_at&expand=member`)).body.data;
      expect(byCreated[0].member.display_name).toBe('Bulk 205');
      const newest = (await get(`${members}?per_page=1&order_by=-created_at`)).body.data[0];
      expect(newest.member_id).toBe(ten.owner.id);
    });

    it('projects order by name in offset mode', async () => {
      for (const n of ['Charlie', 'Alpha', 'Bravo']) await t.project(ten.slug, ten.owner.key, { name: n });
      // Compared with the database's own collation order.
      const expected = (
        await t.ds.query(`SELECT name FROM projects WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY name, id`, [
          ten.workspaceId,
        ])
      ).map((r: { name: string }) => r.name);
      expect(expected.length).toBeGreaterThanOrEqual(3);
      const names = (await get(`${projects}?order_by=name`)).body.data.map((p: { name: string }) => p.name);
      expect(names).toEqual(expected);
      const rev = (await get(`${projects}?order_by=-name`)).body.data.map((p: { name: string }) => p.name);
      expect(rev).toEqual([...expected].reverse());
    });
  });

  describe('filters and search', () => {
    it('eq and __in filters narrow the list', async () => {
      const some = (await get(`${members}?per_page=3`)).body.data as Array<{ id: string; member_id: string }>;
      const one = await get(`${members}?member_id=${some[0].member_id}`);
      expect(one.body.data.map((m: { id: string }) => m.id)).toEqual([some[0].id]);
      expect(one.body.total_count).toBe(1);
      const two = await get(`${members}?member_id__in=${some[0].member_id},${some[1].member_id}`);
      expect(two.body.data.map((m: { id: string }) => m.id).sort()).toEqual([some[0].id, some[1].id].sort());
      const upper = await get(`${members}?member_id=${some[0].member_id.toUpperCase()}`);
      expect(upper.body.data).toHaveLength(1);
    });

    it('role filters match the slug (open set: no enum validation)', async () => {
      const guests = await get(`${members}?role=guest&per_page=200`);
      expect(guests.body.total_count).toBe(Math.floor(EXTRA / 3));
      expect(guests.body.data.every((m: { role: string }) => m.role === 'guest')).toBe(true);
      const both = await get(`${members}?role__in=guest,owner&count=true`);
      expect(both.body.total_count).toBe(Math.floor(EXTRA / 3) + 1);
      const custom = await get(`${members}?role=release-manager`);
      expect(custom.status).toBe(200);
      expect(custom.body.total_count).toBe(0);
    });

    it('filters combine (AND) and total_count follows them', async () => {
      const res = await get(`${members}?role=owner&member_id=${ten.owner.id}`);
      expect(res.body.total_count).toBe(1);
      const none = await get(`${members}?role=guest&member_id=${ten.owner.id}`);
      expect(none.body.total_count).toBe(0);
    });

    it('uuid filters are validated: 400 naming the parameter, every element of __in checked', async () => {
      const a = expectProblem(await get(`${members}?member_id=nope`), 400, 'validation_error');
      expect(a.errors[0].field).toBe('member_id');
      const b = expectProblem(await get(`${members}?member_id__in=${ten.owner.id},nope`), 400, 'validation_error');
      expect(b.errors.map((e: { field: string }) => e.field)).toEqual(['member_id__in']);
      const c = expectProblem(await get(`${members}?member_id__in=,`), 400, 'validation_error');
      expect(c.errors[0].field).toBe('member_id__in');
      const both = expectProblem(await get(`${members}?member_id=x&per_page=y`), 400, 'validation_error');
      expect(both.errors.map((e: { field: string }) => e.field).sort()).toEqual(['member_id', 'per_page']);
    });

    it('unknown query parameters are ignored', async () => {
      const res = await get(`${members}?colour=blue&per_page=2`);
      expect(res.status).toBe(200);
      expect(res.body.total_count).toBe(TOTAL);
    });

    it('search is a case-insensitive substring over display name, email, first and last name', async () => {
      const byName = await get(`${members}?search=bULK 20&per_page=200`);
      expect(byName.body.total_count).toBe(7); // Bulk 20, Bulk 200..205
      const byEmail = await get(`${members}?search=${encodeURIComponent(ten.owner.email.toUpperCase())}`);
      expect(byEmail.body.data.map((m: { member_id: string }) => m.member_id)).toEqual([ten.owner.id]);
      const byLast = await get(`${members}?search=last150`);
      expect(byLast.body.total_count).toBe(1);
      const byFirst = await get(`${members}?search=first7&per_page=200`);
      expect(byFirst.body.total_count).toBe(1 + 10 + 0); // first7, first70..79
      // LIKE wildcards are literal.
      expect((await get(`${members}?search=%25`)).body.total_count).toBe(0);
      expect((await get(`${members}?search=_`)).body.total_count).toBe(0);
      // A blank search is no search.
      expect((await get(`${members}?search=%20`)).body.total_count).toBe(TOTAL);
    });

    it('projects: identifier filter and search over name and identifier', async () => {
      await t.project(ten.slug, ten.owner.key, { name: 'Searchable Zeta', identifier: 'ZETA' });
      const byId = await get(`${projects}?identifier=ZETA`);
      expect(byId.body.data.map((p: { name: string }) => p.name)).toEqual(['Searchable Zeta']);
      expect((await get(`${projects}?search=zeta`)).body.total_count).toBe(1);
      expect((await get(`${projects}?search=searchable`)).body.total_count).toBe(1);
    });
  });

  describe('concurrency', () => {
    it('a cursor walk while another client inserts neither skips nor repeats rows', async () => {
      const w = await t.tenant();
      const url = `/api/v2/workspaces/${w.slug}/projects/`;
      for (let i = 0; i < 12; i++) await t.project(w.slug, w.owner.key, { name: `Seed ${i}` });
      const before = (await t.http.get(`${url}?per_page=200`).set('X-Api-Key', w.owner.key)).body.data.map(
        (p: { id: string }) => p.id,
      );
      expect(before).toHaveLength(12);

      let inserting = true;
      const inserted: string[] = [];
      const writer = (async () => {
        for (let i = 0; inserting && i < 200; i++)
          inserted.push((await t.project(w.slug, w.owner.key, { name: `Concurrent ${i}` })).id);
      })();

      const seen: string[] = [];
      let res = await t.http.get(`${url}?paginate=cursor&per_page=2`).set('X-Api-Key', w.owner.key);
      for (let pages = 0; pages < 500; pages++) {
        expect(res.status).toBe(200);
        seen.push(...res.body.data.map((p: { id: string }) => p.id));
        if (!res.body.has_more) break;
        // Let the writer get ahead between pages.
        await new Promise((r) => setTimeout(r, 5));
        res = await t.http.get(`${url}?cursor=${res.body.next_cursor}&per_page=2`).set('X-Api-Key', w.owner.key);
        if (seen.length > 24) inserting = false;
      }
      inserting = false;
      await writer;

      expect(inserted.length).toBeGreaterThan(0);
      expect(new Set(seen).size).toBe(seen.length); // no repeats
      for (const id of before) expect(seen).toContain(id); // no skips
      // Rows inserted during the walk that sort after the position were picked up, in order.
      expect(seen.filter((id) => inserted.includes(id)).length).toBeGreaterThan(0);
    });

    it('descending walk with inserts at the head: no skips, no repeats', async () => {
      const w = await t.tenant();
      const url = `/api/v2/workspaces/${w.slug}/members/`;
      for (let i = 0; i < 9; i++) await t.member(w.slug, 'member');
      const before = (await t.http.get(`${url}?per_page=200`).set('X-Api-Key', w.owner.key)).body.data.map(
        (m: { id: string }) => m.id,
      );
      const seen: string[] = [];
      let res = await t.http
        .get(`${url}?paginate=cursor&per_page=3&order_by=-created_at`)
        .set('X-Api-Key', w.owner.key);
      for (;;) {
        seen.push(...res.body.data.map((m: { id: string }) => m.id));
        if (!res.body.has_more) break;
        await Promise.all([t.member(w.slug, 'guest'), t.member(w.slug, 'guest')]);
        res = await t.http
          .get(`${url}?cursor=${res.body.next_cursor}&per_page=3&order_by=-created_at`)
          .set('X-Api-Key', w.owner.key);
      }
      expect([...seen].sort()).toEqual([...before].sort());
    });
  });

  describe('runList mechanics', () => {
    // A nullable ordering (archived_at, NULLS LAST) walked by cursor: NULL rows must not be lost.
    const SPEC: ListSpec = {
      filters: [],
      orderings: {
        archived_at: { expr: 'p.archived_at', cursor: true, cast: 'timestamptz', nullable: true },
        created_at: { expr: 'p.created_at', cursor: true, cast: 'timestamptz' },
      },
      defaultOrder: 'created_at',
      idExpr: 'p.id',
    };

    it('keyset over a nullable ordering keeps the NULLS LAST tail, both directions', async () => {
      const w = await t.tenant();
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) ids.push((await t.project(w.slug, w.owner.key, { name: `N${i}` })).id);
      await t.ds.query(
        `UPDATE projects SET archived_at = now() - (random() * interval '10 days') WHERE id = ANY($1::uuid[])`,
        [ids.slice(0, 3)],
      );
      for (const order of ['archived_at', '-archived_at']) {
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let i = 0; i < 20; i++) {
          const q = parseListQuery(
            { paginate: 'cursor', per_page: '2', order_by: order, ...(cursor ? { cursor } : {}) },
            SPEC,
          );
          const { rows, envelope } = await runList<{ id: string }>(t.ds, SPEC, q, {
            select: 'p.id',
            from: 'projects p',
            where: ['p.workspace_id = $1'],
            params: new SqlParams([w.workspaceId]),
          });
          const env = envelope(rows.map((r) => r.id)) as { next_cursor: string | null };
          seen.push(...rows.map((r) => r.id));
          if (!env.next_cursor) break;
          cursor = env.next_cursor;
        }
        expect([...seen].sort()).toEqual([...ids].sort());
        // Archived rows first, the NULL tail last.
        expect(new Set(seen.slice(0, 3))).toEqual(new Set(ids.slice(0, 3)));
      }
    });
  });
});
