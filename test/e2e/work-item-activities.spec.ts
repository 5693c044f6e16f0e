import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';
import { expectedUserRef } from '../helpers/user-ref';
import { oneEntrySql } from '../../src/work-item-activities/work-item-activities.repository';
import { entryCreatedAt } from '../../src/work-item-activities/entry-time';

type User = { id: string; email: string; key: string };
type Activity = {
  id: string;
  verb: string;
  field: string | null;
  old_value: string | null;
  new_value: string | null;
  old_identifier_id: string | null;
  new_identifier_id: string | null;
  actor_id: string | null;
  epoch: number;
};

describe('work item activity history', () => {
  let t: TestApp;
  let ten: Tenant;
  let pid: string;
  let contributor: User;
  let commenter: User;
  let guest: User;
  let states: Array<{ id: string; name: string }>;
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });
  const proj = () => `/api/v2/workspaces/${ten.slug}/projects/${pid}`;
  const items = () => `${proj()}/work-items/`;
  const acts = (item: string) => `${items()}${item}/activities/`;
  const history = async (item: string, query = ''): Promise<Activity[]> => {
    const res = await t.http.get(`${acts(item)}?per_page=200${query}`).set(key());
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const newItem = async (body: Record<string, unknown> = {}, k = ten.owner.key) => {
    const res = await t.http
      .post(items())
      .set(key(k))
      .send({ name: 'Tracked', ...body });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const summary = (a: Activity[]) => a.map((x) => [x.verb, x.field, x.old_value, x.new_value]);

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    pid = (await t.project(ten.slug, ten.owner.key)).id;
    const add = async (role: string) => {
      const u = await t.member(ten.slug, 'member');
      await t.http.post(`${proj()}/members/`).set(key()).send({ member_id: u.id, role });
      return u;
    };
    contributor = await add('contributor');
    commenter = await add('commenter');
    guest = await add('guest');
    states = (await t.http.get(`${proj()}/states/`).set(key())).body.data;
  });
  afterAll(() => t.close());

  it('create: one entry, verb created, by the creator; the v2 shape', async () => {
    const id = await newItem({ assignee_ids: [contributor.id], priority: 'high' }, contributor.key);
    const list = await t.http.get(acts(id)).set(key());
    expect(list.body.total_count).toBe(1);
    expect(list.body.data[0]).toEqual({
      id: expect.any(String),
      work_item_id: id,
      verb: 'created',
      field: null,
      old_value: null,
      new_value: null,
      old_identifier_id: null,
      new_identifier_id: null,
      issue_comment_id: null,
      actor_id: contributor.id,
      comment: 'created the work item',
      epoch: expect.any(Number),
      external_id: null,
      external_source: null,
      created_at: expect.any(String),
    });
    const one = await t.http.get(`${acts(id)}${list.body.data[0].id}/`).set(key());
    expect(one.body).toEqual(list.body.data[0]);
  });

  it('PATCH: every changed field once, with old and new values, in one epoch; unchanged fields and no-op PATCHes add nothing', async () => {
    const label = (await t.http.post(`${proj()}/labels/`).set(key()).send({ name: 'hist-label' })).body.id;
    const id = await newItem({ name: 'Before', priority: 'low', state_id: states[0].id });
    const res = await t.http
      .patch(`${items()}${id}/`)
      .set(key(contributor.key))
      .send({
        name: 'After',
        priority: 'urgent',
        state_id: states[1].id,
        start_date: '2026-01-02',
        description_html: '<p>New text</p>',
        assignee_ids: [contributor.id, ten.owner.id],
        label_ids: [label],
      });
    expect([res.status, res.body.detail]).toEqual([200, undefined]);
    const changes = (await history(id)).slice(1);
    expect(changes.every((a) => a.actor_id === contributor.id && a.epoch === changes[0].epoch)).toBe(true);
    expect(summary(changes).sort()).toEqual(
      [
        ['updated', 'name', 'Before', 'After'],
        ['updated', 'priority', 'low', 'urgent'],
        ['updated', 'state', states[0].id, states[1].id],
        ['updated', 'start_date', null, '2026-01-02'],
        ['updated', 'description', '', '<p>New text</p>'],
        ['updated', 'assignees', null, contributor.id],
        ['updated', 'assignees', null, ten.owner.id],
        ['updated', 'labels', null, label],
      ].sort(),
    );
    expect(changes.find((a) => a.field === 'state')).toMatchObject({
      old_identifier_id: states[0].id,
      new_identifier_id: states[1].id,
    });
    // The same values again, and fields sent unchanged, write nothing.
    await t.http
      .patch(`${items()}${id}/`)
      .set(key())
      .send({ name: 'After', priority: 'urgent', label_ids: [label] });
    expect(await history(id)).toHaveLength(changes.length + 1);
    // Removing an assignee and clearing a date.
    await t.http
      .patch(`${items()}${id}/`)
      .set(key())
      .send({ assignee_ids: [contributor.id], start_date: null });
    expect(summary((await history(id)).slice(changes.length + 1)).sort()).toEqual(
      [
        ['updated', 'assignees', ten.owner.id, null],
        ['updated', 'start_date', '2026-01-02', null],
      ].sort(),
    );
  });

  it('comments, links, relations, cycle and module membership, archive and unarchive are recorded, by whoever did them', async () => {
    const id = await newItem();
    const other = await newItem({ name: 'Other' });
    const c = (
      await t.http.post(`${items()}${id}/comments/`).set(key(commenter.key)).send({ comment_html: '<p>hi</p>' })
    ).body.id;
    await t.http
      .patch(`${items()}${id}/comments/${c}/`)
      .set(key(contributor.key))
      .send({ comment_html: '<p>hello</p>' });
    await t.http.delete(`${items()}${id}/comments/${c}/`).set(key(commenter.key));
    const link = (await t.http.post(`${items()}${id}/links/`).set(key()).send({ url: 'https://h.example/' })).body.id;
    await t.http.delete(`${items()}${id}/links/${link}/`).set(key(contributor.key));
    const blocks = (await t.http.get(`/api/v2/workspaces/${ten.slug}/work-item-relation-definitions/`).set(key())).body
      .data[0];
    await t.http
      .post(`${items()}${id}/relations/`)
      .set(key())
      .send({ relation_definition_id: blocks.id, direction: 'blocks', work_item_ids: [other] });
    await t.http.delete(`${items()}${other}/relations/${id}/`).set(key(contributor.key));
    await t.http
      .post(`${items()}${id}/dependencies/`)
      .set(key())
      .send({ relation_type: 'start_after', work_item_ids: [other] });
    const cycle = (await t.http.post(`${proj()}/cycles/`).set(key()).send({ name: 'C1' })).body.id;
    await t.http
      .post(`${proj()}/cycles/${cycle}/work-items/`)
      .set(key(contributor.key))
      .send({ add: [id] });
    const mod = (await t.http.post(`${proj()}/modules/`).set(key()).send({ name: 'M1' })).body.id;
    await t.http
      .post(`${proj()}/modules/${mod}/work-items/`)
      .set(key(contributor.key))
      .send({ add: [id] });
    await t.http
      .post(`${proj()}/modules/${mod}/work-items/`)
      .set(key())
      .send({ remove: [id] });
    await t.http.post(`${items()}${id}/archive/`).set(key());
    await t.http.post(`${items()}${id}/unarchive/`).set(key(contributor.key));
    const h = await history(id);
    const o = ten.owner.id;
    expect(h.map((a) => [a.verb, a.field, a.actor_id])).toEqual([
      ['created', null, o],
      ['created', 'comment', commenter.id],
      ['updated', 'comment', contributor.id],
      ['deleted', 'comment', commenter.id],
      ['created', 'link', o],
      ['deleted', 'link', contributor.id],
      ['created', 'relation', o],
      ['deleted', 'relation', contributor.id],
      ['created', 'dependency', o],
      ['updated', 'cycle', contributor.id],
      ['updated', 'modules', contributor.id],
      ['updated', 'modules', o],
      ['archived', 'archived_at', o],
      ['unarchived', 'archived_at', contributor.id],
    ]);
    expect(h.find((a) => a.field === 'relation')).toMatchObject({ new_value: 'blocks', new_identifier_id: other });
    expect(h.find((a) => a.field === 'dependency')).toMatchObject({
      new_value: 'start_after',
      new_identifier_id: other,
    });
    expect(h.find((a) => a.field === 'comment')).toMatchObject({ new_value: 'hi' });
    // The other end of the relation has its own entries, with its own label.
    const otherRel = (await history(other)).filter((a) => a.field === 'relation' || a.field === 'dependency');
    expect(summary(otherRel)).toEqual([
      ['created', 'relation', null, 'is blocked by'],
      ['deleted', 'relation', 'is blocked by', null],
      ['created', 'dependency', null, 'start_before'],
    ]);
  });

  it('a rolled-back change leaves no history; a committed one always has it (same transaction)', async () => {
    const id = await newItem();
    const before = (await history(id)).length;
    const qr = t.ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.startTransaction();
      await qr.query(`UPDATE work_items SET name = 'rolled back', priority = 'urgent' WHERE id = $1`, [id]);
      const inside = await qr.query(`SELECT count(*)::int AS n FROM work_item_activities WHERE work_item_id = $1`, [
        id,
      ]);
      expect(inside[0].n).toBe(before + 2);
      await qr.rollbackTransaction();
    } finally {
      await qr.release();
    }
    expect(await history(id)).toHaveLength(before);
    // A request that fails after its first write (a label of another project) rolls back the whole change.
    const foreignProject = (await t.project(ten.slug, ten.owner.key)).id;
    const foreignLabel = (
      await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${foreignProject}/labels/`)
        .set(key())
        .send({ name: 'x' })
    ).body.id;
    const bad = await t.http
      .patch(`${items()}${id}/`)
      .set(key())
      .send({ name: 'never', label_ids: [foreignLabel] });
    expect(bad.status).toBe(400);
    expect(await history(id)).toHaveLength(before);
    // A set-based UPDATE of many items records each one.
    const ids = [await newItem(), await newItem(), await newItem()];
    await t.ds.query(`UPDATE work_items SET priority = 'high' WHERE id = ANY($1::uuid[])`, [ids]);
    for (const x of ids)
      expect(summary((await history(x)).slice(1))).toEqual([['updated', 'priority', 'none', 'high']]);
  });

  /** An item's entries after its `created` one, with the values that matter for a comparison across writers. */
  const changesOf = async (item: string) =>
    (await history(item))
      .slice(1)
      .map((a) => [a.verb, a.field, a.old_value, a.new_value, a.old_identifier_id, a.new_identifier_id]);

  it("every writer records a change alike: a PATCH, a bulk-update and an operator's SQL UPDATE", async () => {
    const parent = await newItem({ name: 'Parent' });
    const initial = { name: 'Same', priority: 'low', state_id: states[0].id };
    const [a, b, c] = [await newItem(initial), await newItem(initial), await newItem(initial)];
    const change = {
      name: 'Changed',
      description_html: '<p>Described</p>',
      priority: 'urgent',
      state_id: states[1].id,
      parent_id: parent,
      start_date: '2026-03-04',
      target_date: '2026-03-05',
      external_source: 'jira',
      external_id: `J-${a}`,
    };
    expect((await t.http.patch(`${items()}${a}/`).set(key()).send(change)).status).toBe(200);
    const bulk = await t.http
      .post(`${items()}bulk-update/`)
      .set(key())
      .send({ items: [{ id: b, ...change, external_id: `J-${b}` }] });
    expect(bulk.body.succeeded).toBe(1);
    // The same stored values, written by an operator's UPDATE: recorded by the history trigger.
    await t.ds.query(
      `UPDATE work_items c SET name = a.name, description_html = a.description_html, description_stripped = a.description_stripped,
              priority = a.priority, state_id = a.state_id, parent_id = a.parent_id, start_date = a.start_date,
              target_date = a.target_date, external_source = a.external_source, external_id = 'J-' || c.id, updated_by_id = $3
         FROM work_items a WHERE a.workspace_id = $1 AND a.id = $2 AND c.workspace_id = $1 AND c.id = $4`,
      [ten.workspaceId, a, ten.owner.id, c],
    );
    const expected = [
      ['updated', 'name', 'Same', 'Changed', null, null],
      ['updated', 'description', '', '<p>Described</p>', null, null],
      ['updated', 'priority', 'low', 'urgent', null, null],
      ['updated', 'state', states[0].id, states[1].id, states[0].id, states[1].id],
      ['updated', 'parent', null, parent, null, parent],
      ['updated', 'start_date', null, '2026-03-04', null, null],
      ['updated', 'target_date', null, '2026-03-05', null, null],
      ['updated', 'external_id', null, 'J-<id>', null, null],
      ['updated', 'external_source', null, 'jira', null, null],
    ];
    for (const [item, writer] of [
      [a, 'PATCH'],
      [b, 'bulk-update'],
      [c, 'UPDATE'],
    ]) {
      const got = (await changesOf(item)).map((e) => e.map((v) => (v === `J-${item}` ? 'J-<id>' : v)));
      expect([writer, got]).toEqual([writer, expected]);
    }
  });

  it('concurrent PATCHes of one item: each entry holds the value its change replaced, so the entries chain up', async () => {
    const id = await newItem({ name: 'Start' });
    const holder = t.ds.createQueryRunner();
    await holder.connect();
    try {
      await holder.startTransaction();
      await holder.query(`UPDATE work_items SET name = 'Held' WHERE workspace_id = $1 AND id = $2`, [
        ten.workspaceId,
        id,
      ]);
      // Both PATCHes start now and wait for the row: one plain (one statement, no transaction), one in a
      // transaction (a state change reads the item FOR UPDATE first). An entry written from the statement's snapshot
      // (not from the row version the UPDATE replaced) would say 'Start' where the chain needs 'Held'.
      const plain = t.http
        .patch(`${items()}${id}/`)
        .set(key())
        .send({ name: 'Plain' })
        .then((r) => r);
      const other = t.http
        .patch(`${items()}${id}/`)
        .set(key(contributor.key))
        .send({ name: 'Transactional', state_id: states[1].id })
        .then((r) => r);
      for (let i = 0; ; i++) {
        const [{ n }] = await t.ds.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%work_items%'`,
        );
        if (n >= 2) break;
        if (i > 250) throw new Error('the two PATCHes did not both wait for the row');
        await new Promise((r) => setTimeout(r, 20));
      }
      await holder.commitTransaction();
      expect([(await plain).status, (await other).status]).toEqual([200, 200]);
    } finally {
      if (holder.isTransactionActive) await holder.rollbackTransaction();
      await holder.release();
    }
    const names = (await history(id)).filter((a) => a.field === 'name');
    expect(names).toHaveLength(3);
    expect(names[0]).toMatchObject({ old_value: 'Start', new_value: 'Held' });
    for (let i = 1; i < names.length; i++) expect(names[i].old_value).toBe(names[i - 1].new_value);
    const final = (await t.http.get(`${items()}${id}/`).set(key())).body.name;
    expect(names[2].new_value).toBe(final);
    expect(['Plain', 'Transactional']).toContain(names[1].new_value);
  });

  it("a delete is recorded (verb deleted, by whoever deleted it); the deleted item's history is then 404", async () => {
    const id = await newItem({}, contributor.key);
    expect((await t.http.delete(`${items()}${id}/`).set(key())).status).toBe(204);
    const rows: Array<{ verb: string; field: string | null; actor_id: string }> = await t.ds.query(
      `SELECT verb, field, actor_id FROM work_item_activities WHERE workspace_id = $1 AND work_item_id = $2
        ORDER BY created_at, id`,
      [ten.workspaceId, id],
    );
    expect(rows.map((r) => [r.verb, r.field, r.actor_id])).toEqual([
      ['created', null, contributor.id],
      ['deleted', null, ten.owner.id],
    ]);
    expectProblem(await t.http.get(acts(id)).set(key()), 404, 'resource_not_found');
  });

  it('list: oldest first by default, newest first on request, filters, search, both pagination modes', async () => {
    const id = await newItem({ name: 'n0' });
    for (let i = 1; i <= 4; i++)
      await t.http
        .patch(`${items()}${id}/`)
        .set(key())
        .send({ name: `n${i}` });
    await t.http.patch(`${items()}${id}/`).set(key(contributor.key)).send({ priority: 'low' });
    const asc = await history(id);
    expect(asc.map((a) => a.new_value)).toEqual([null, 'n1', 'n2', 'n3', 'n4', 'low']);
    const desc = await history(id, '&order_by=-created_at');
    expect(desc.map((a) => a.id)).toEqual(asc.map((a) => a.id).reverse());
    expect((await history(id, '&field=name')).map((a) => a.new_value)).toEqual(['n1', 'n2', 'n3', 'n4']);
    expect((await history(id, '&field__in=name,priority')).length).toBe(5);
    expect((await history(id, '&verb=created')).length).toBe(1);
    expect((await history(id, `&actor_id=${contributor.id}`)).map((a) => a.field)).toEqual(['priority']);
    // Search matches old and new values: n3 is the new value of one entry and the old value of the next.
    expect((await history(id, '&search=n3')).map((a) => a.new_value)).toEqual(['n3', 'n4']);
    expect(
      (await history(id, `&created_at__gte=${encodeURIComponent(new Date(Date.now() + 60000).toISOString())}`)).length,
    ).toBe(0);
    const p1 = await t.http.get(`${acts(id)}?paginate=cursor&per_page=4&order_by=-created_at`).set(key());
    expect(p1.body.has_more).toBe(true);
    const p2 = await t.http.get(`${acts(id)}?cursor=${p1.body.next_cursor}&per_page=4&order_by=-created_at`).set(key());
    expect([...p1.body.data, ...p2.body.data].map((a: Activity) => a.id)).toEqual(desc.map((a) => a.id));
    const off = await t.http.get(`${acts(id)}?per_page=2&offset=2`).set(key());
    expect(off.body).toMatchObject({ total_count: 6, next: 4, previous: 0 });
    expectProblem(await t.http.get(`${acts(id)}?verb=exploded`).set(key()), 400, 'validation_error');
  });

  it('entry ids are version 7 UUIDs of the entry time: they increase with time and order_by=id is creation order', async () => {
    const id = await newItem({ name: 'v0' });
    await t.http.patch(`${items()}${id}/`).set(key()).send({ name: 'v1', priority: 'high' });
    await t.http.post(`${items()}${id}/comments/`).set(key()).send({ comment_html: '<p>c</p>' });
    await t.http.post(`${items()}${id}/links/`).set(key()).send({ url: 'https://example.com/v7' });
    await t.http.patch(`${items()}${id}/`).set(key()).send({ priority: 'low' });
    const asc = await history(id);
    expect(asc.map((a) => [a.field, a.new_value])).toEqual([
      [null, null],
      ['name', 'v1'],
      ['priority', 'high'],
      ['comment', 'c'],
      ['link', 'https://example.com/v7'],
      ['priority', 'low'],
    ]);
    const ids = asc.map((a) => a.id);
    for (const x of ids) expect(x).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Strictly increasing (uuid order is byte order, so hex string order), also within one PATCH's two entries.
    expect(ids.every((x, i) => i === 0 || ids[i - 1] < x)).toBe(true);
    // order_by=id reads the created_at index (migration ActivityIdOrderIsCreationOrder): same rows, same order, both
    // directions, cursor pages included.
    expect((await history(id, '&order_by=id')).map((a) => a.id)).toEqual(ids);
    expect((await history(id, '&order_by=-id')).map((a) => a.id)).toEqual([...ids].reverse());
    const c1 = await t.http.get(`${acts(id)}?paginate=cursor&per_page=4&order_by=id`).set(key());
    const c2 = await t.http.get(`${acts(id)}?cursor=${c1.body.next_cursor}&per_page=4&order_by=id`).set(key());
    expect([...c1.body.data, ...c2.body.data].map((a: Activity) => a.id)).toEqual(ids);
    // The id carries created_at: its Unix milliseconds, then the microseconds within it scaled to 12 bits.
    const rows: Array<{ id: string; ms: string; us: number }> = await t.ds.query(
      `SELECT id, floor(extract(epoch FROM created_at) * 1000)::bigint::text AS ms,
              (floor(extract(epoch FROM created_at) * 1000000)::bigint % 1000)::int AS us
         FROM work_item_activities WHERE work_item_id = $1`,
      [id],
    );
    expect(rows).toHaveLength(6);
    for (const r of rows) {
      const hex = r.id.replace(/-/g, '');
      expect(BigInt(`0x${hex.slice(0, 12)}`).toString()).toBe(r.ms);
      expect(parseInt(hex.slice(13, 16), 16)).toBe(Math.floor((r.us * 4096) / 1000));
    }
    // A writer other than the triggers gets a time-ordered id too (the column default, of its transaction's time).
    const qr = t.ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.startTransaction();
      const [other] = await qr.query(
        `INSERT INTO work_item_activities (workspace_id, project_id, work_item_id, verb, epoch, xact_id)
         SELECT workspace_id, project_id, id, 'updated', 0, 0 FROM work_items WHERE id = $1 RETURNING id::text`,
        [id],
      );
      expect(other.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      expect(other.id > ids[5]).toBe(true);
    } finally {
      await qr.rollbackTransaction();
      await qr.release();
    }
  });

  it('wt_uuid_v7 (migration CheaperActivityStamps): the same timestamp bits as the numeric formula, version 7, variant 10, distinct', async () => {
    // A million microseconds of one second (every microsecond of the millisecond), a leap day, the Unix epoch and
    // a date past 2038, each checked against the formula ActivityTimeOrderedIds wrote (numeric extract).
    const [r] = await t.ds.query(`
      WITH ts AS (
        SELECT '2026-11-27 13:00:00+00'::timestamptz + make_interval(secs => g / 1000000.0) AS ts
          FROM generate_series(0, 999999, 7) g
        UNION ALL SELECT unnest(ARRAY['2024-02-29 23:59:59.999999+00', '1970-01-01 00:00:00+00',
                                      '2100-06-30 12:34:56.000001+00']::timestamptz[])),
      ids AS (SELECT ts, wt_uuid_v7(ts) AS id FROM ts)
      SELECT count(*)::int AS n, count(DISTINCT id)::int AS distinct_ids,
             count(*) FILTER (WHERE substring(uuid_send(id) FROM 1 FOR 8) <> int8send(
               (floor(extract(epoch FROM ts) * 1000)::bigint << 16) | 28672
               | (floor(extract(epoch FROM ts) * 1000000)::bigint % 1000 * 4096 / 1000)))::int AS wrong_time,
             count(*) FILTER (WHERE get_byte(uuid_send(id), 8) >> 6 <> 2)::int AS wrong_variant,
             -- The random bits reach the last byte (one random() draw has 52 random bits, not 62).
             count(DISTINCT get_byte(uuid_send(id), 15))::int AS last_bytes,
             count(DISTINCT get_byte(uuid_send(id), 8) & 63)::int AS first_random_bytes
        FROM ids`);
    expect(r).toEqual({
      n: 142861,
      distinct_ids: 142861,
      wrong_time: 0,
      wrong_variant: 0,
      last_bytes: 256,
      first_random_bytes: 64,
    });
  });

  it("one statement's entries share the transaction's epoch, xact_id and wt.actor_id (computed once per statement)", async () => {
    const a = await newItem();
    const b = await newItem();
    const qr = t.ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.startTransaction();
      await qr.query(`SELECT set_config('wt.actor_id', $1, true)`, [commenter.id]);
      await qr.query(`UPDATE work_items SET name = name || '!', priority = 'low' WHERE id = ANY($1::uuid[])`, [[a, b]]);
      const [tx] = await qr.query(
        `SELECT pg_current_xact_id()::text::bigint::text AS xact, (extract(epoch FROM now()) * 1000)::bigint::text AS epoch`,
      );
      const rows: Array<{ xact_id: string; epoch: string; actor_id: string }> = await qr.query(
        `SELECT xact_id::text, epoch::text, actor_id FROM work_item_activities
          WHERE work_item_id = ANY($1::uuid[]) AND verb = 'updated' ORDER BY created_at, id`,
        [[a, b]],
      );
      await qr.commitTransaction();
      expect(rows).toHaveLength(4);
      for (const x of rows) expect(x).toMatchObject({ xact_id: tx.xact, epoch: tx.epoch, actor_id: commenter.id });
    } finally {
      await qr.release();
    }
  });

  it('an entry costs one index: the primary key (workspace_id, work_item_id, created_at, id) serves the list and the one-entry read', async () => {
    const indexes: Array<{ def: string }> = await t.ds.query(
      `SELECT pg_get_indexdef(indexrelid) AS def FROM pg_index WHERE indrelid = 'work_item_activities'::regclass`,
    );
    expect(indexes.map((i) => i.def)).toEqual([
      expect.stringContaining(
        '"PK_work_item_activities" ON public.work_item_activities USING btree (workspace_id, work_item_id, created_at, id)',
      ),
    ]);
    const id = await newItem();
    await t.http.patch(`${items()}${id}/`).set(key()).send({ name: 'planned', priority: 'low' });
    const [entry] = await history(id);
    const [ws] = await t.ds.query(`SELECT workspace_id FROM work_items WHERE id = $1`, [id]);
    // A small table: without seqscans the planner shows which index it would read.
    const qr = t.ds.createQueryRunner();
    await qr.connect();
    const plan = async (sql: string, params: unknown[]) => {
      await qr.query('SET enable_seqscan = off');
      const rows: Array<{ 'QUERY PLAN': string }> = await qr.query(`EXPLAIN (COSTS OFF) ${sql}`, params);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    };
    const where = `a.work_item_id = $2 AND a.workspace_id = $1 AND a.project_id = $3`;
    try {
      for (const order of ['a.created_at, a.id', 'a.created_at DESC, a.id DESC']) {
        const p = await plan(`SELECT a.id FROM work_item_activities a WHERE ${where} ORDER BY ${order} LIMIT 51`, [
          ws.workspace_id,
          id,
          pid,
        ]);
        expect(p).toMatch(/Index Scan( Backward)? using "PK_work_item_activities"/);
        expect(p).not.toMatch(/Sort/);
      }
      const one = await plan(`SELECT a.id FROM work_item_activities a WHERE ${where} AND a.id = $4`, [
        ws.workspace_id,
        id,
        pid,
        entry.id,
      ]);
      expect(one).toMatch(
        /using "PK_work_item_activities"[\s\S]*Index Cond: .*workspace_id = .*work_item_id = .*\bid = /,
      );
    } finally {
      await qr.query('RESET enable_seqscan');
      await qr.release();
    }
    expect((await t.http.get(`${acts(id)}${entry.id}/`).set(key())).body.id).toBe(entry.id);
  });

  it('one entry is read by its whole key (the id carries created_at); random-id entries and missing ids still answer right', async () => {
    const id = await newItem();
    await t.http.patch(`${items()}${id}/`).set(key()).send({ name: 'keyed', priority: 'high' });
    const entries = await history(id);
    const [ws] = await t.ds.query(`SELECT workspace_id FROM work_items WHERE id = $1`, [id]);
    // Every entry's id gives back its created_at to the microsecond (else the read would fall back to the scan).
    const stored: Array<{ id: string; at: string }> = await t.ds.query(
      `SELECT id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at
         FROM work_item_activities WHERE workspace_id = $1 AND work_item_id = $2`,
      [ws.workspace_id, id],
    );
    expect(stored.length).toBe(entries.length);
    for (const e of stored) expect(entryCreatedAt(e.id)).toBe(e.at);
    const qr = t.ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.query('SET enable_seqscan = off');
      const params = [ws.workspace_id, pid, id, entries[1].id, entryCreatedAt(entries[1].id)];
      const plan = (await qr.query(`EXPLAIN (COSTS OFF) ${oneEntrySql(false)}`, params))
        .map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN'])
        .join('\n');
      expect(plan).toMatch(/CTE exact[\s\S]*Index Cond: .*work_item_id = .*created_at = .*\bid = /);
      expect(plan).toMatch(/One-Time Filter: \(NOT/);
    } finally {
      await qr.query('RESET enable_seqscan');
      await qr.release();
    }
    expect((await t.http.get(`${acts(id)}${entries[1].id}/`).set(key())).body).toMatchObject({ id: entries[1].id });
    // An entry written before time-ordered ids has a random id: found by the scan.
    const [old] = await t.ds.query(
      `INSERT INTO work_item_activities (id, workspace_id, project_id, work_item_id, verb, epoch, xact_id, created_at)
       VALUES (gen_random_uuid(), $1, $2, $3, 'updated', 1, 1, now() - interval '1 day') RETURNING id`,
      [ws.workspace_id, pid, id],
    );
    expect((await t.http.get(`${acts(id)}${old.id}/`).set(key())).body).toMatchObject({ id: old.id });
    // A version 7 id of no entry (its time from a real one, other random bits) is 404.
    const missing = `${entries[1].id.slice(0, 19)}8000-000000000000`;
    expectProblem(await t.http.get(`${acts(id)}${missing}/`).set(key()), 404, 'resource_not_found');
  });

  it('?expand=actor adds who made each change, on the list and on one entry; null when no user made it', async () => {
    const id = await newItem({}, contributor.key);
    const actor = await expectedUserRef(t, contributor);
    const list = await t.http.get(`${acts(id)}?expand=actor`).set(key());
    expect(list.status).toBe(200);
    expect(list.body.data[0]).toMatchObject({ verb: 'created', actor_id: contributor.id, actor });
    const one = await t.http.get(`${acts(id)}${list.body.data[0].id}/?expand=actor`).set(key());
    expect(one.body).toEqual(list.body.data[0]);
    // Without the expansion the entry carries the id only.
    expect((await history(id))[0]).not.toHaveProperty('actor');
    // An entry without a user (actor_id is nullable: a system change) expands to null.
    await t.ds.query('UPDATE work_item_activities SET actor_id = NULL WHERE id = $1', [list.body.data[0].id]);
    const orphan = await t.http.get(`${acts(id)}?expand=actor`).set(key());
    expect(orphan.body.data[0]).toMatchObject({ verb: 'created', actor_id: null, actor: null });
    const bad = await t.http.get(`${acts(id)}?expand=state`).set(key());
    expectProblem(bad, 400, 'validation_error');
  });

  it('roles, scopes and the tenant wall', async () => {
    const id = await newItem();
    const entry = (await history(id))[0].id;
    expect((await t.http.get(acts(id)).set(key(commenter.key))).status).toBe(200);
    expectProblem(await t.http.get(acts(id)).set(key(guest.key)), 403, 'forbidden');
    const tok = await t.token(ten.owner.email, ['projects.work_items.activities:read']);
    expect((await t.http.get(acts(id)).set({ Authorization: `Bearer ${tok}` })).status).toBe(200);
    const other = await t.token(ten.owner.email, ['projects.work_items.comments:read']);
    expectProblem(await t.http.get(acts(id)).set({ Authorization: `Bearer ${other}` }), 403, 'forbidden');
    expectProblem(await t.http.post(acts(id)).set(key()).send({}), 405, 'method_not_allowed');
    const second = await newItem();
    expectProblem(await t.http.get(`${acts(second)}${entry}/`).set(key()), 404, 'resource_not_found');
    const foreign = await t.tenant();
    const fp = (await t.project(foreign.slug, foreign.owner.key)).id;
    const fwi = (
      await t.http
        .post(`/api/v2/workspaces/${foreign.slug}/projects/${fp}/work-items/`)
        .set(key(foreign.owner.key))
        .send({ name: 'F' })
    ).body.id;
    expectProblem(await t.http.get(acts(fwi)).set(key()), 404, 'resource_not_found');
    expectProblem(
      await t.http.get(`/api/v2/workspaces/${foreign.slug}/projects/${fp}/work-items/${fwi}/activities/`).set(key()),
      404,
      'resource_not_found',
    );
  });
});
