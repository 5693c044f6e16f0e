import { Client } from 'pg';
import { ifMatchVersions, noneMatchHits } from '../../src/common/http/conditional';
import { createTestApp, expectProblem, Tenant, TestApp, waitForLockWait } from '../helpers/test-app';

/** ETags on GET (304 for If-None-Match) and If-Match on PATCH and DELETE (412, atomic with the write). */
describe('ETag and conditional requests', () => {
  let t: TestApp;
  let ten: Tenant;
  let ws: string;
  let items: string;
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    ws = `/api/v2/workspaces/${ten.slug}`;
    const p = await t.project(ten.slug, ten.owner.key);
    items = `${ws}/projects/${p.id}/work-items/`;
  });
  afterAll(() => t.close());
  const k = () => ({ 'X-Api-Key': ten.owner.key });
  const create = async (name: string) => (await t.http.post(items).set(k()).send({ name })).body as { id: string };
  const nameOf = async (id: string) =>
    (await t.ds.query(`SELECT name FROM work_items WHERE id = $1`, [id]))[0].name as string;

  it('a single record has a strong ETag from its version; If-None-Match with it is 304 with no body until it changes', async () => {
    const item = await create('etag');
    const got = await t.http.get(`${items}${item.id}/`).set(k());
    expect(got.status).toBe(200);
    const tag = got.headers.etag;
    expect(tag).toMatch(/^"1-[A-Za-z0-9_-]+"$/);
    // Stable while nothing changes.
    expect((await t.http.get(`${items}${item.id}/`).set(k())).headers.etag).toBe(tag);
    const unchanged = await t.http.get(`${items}${item.id}/`).set(k()).set('If-None-Match', tag);
    expect(unchanged.status).toBe(304);
    expect(unchanged.text ?? '').toBe('');
    expect(unchanged.headers.etag).toBe(tag);
    // In a list of tags, and compared weakly (RFC 9110: If-None-Match uses the weak comparison).
    const listed = await t.http.get(`${items}${item.id}/`).set(k()).set('If-None-Match', `"0-x", W/${tag}`);
    expect(listed.status).toBe(304);
    // The identifier route serves the same representation: the same tag. ?fields= keeps a strong tag of its own.
    const project = (await t.http.get(items.replace(/work-items\/$/, '')).set(k())).body as { identifier: string };
    const viaIdentifier = await t.http.get(`${ws}/work-items/${project.identifier}-${got.body.sequence_id}/`).set(k());
    expect(viaIdentifier.status).toBe(200);
    expect(viaIdentifier.headers.etag).toBe(tag);
    const trimmed = await t.http.get(`${items}${item.id}/?fields=id,name`).set(k());
    expect(trimmed.headers.etag).toMatch(/^"1-/);
    expect(trimmed.headers.etag).not.toBe(tag);
    // Another representation of the same version (expand) has its own tag.
    const expanded = await t.http.get(`${items}${item.id}/?expand=state`).set(k());
    expect(expanded.headers.etag).toMatch(/^"1-/);
    expect(expanded.headers.etag).not.toBe(tag);
    await t.http.patch(`${items}${item.id}/`).set(k()).send({ priority: 'low' });
    const changed = await t.http.get(`${items}${item.id}/`).set(k()).set('If-None-Match', tag);
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).toMatch(/^"2-/);
    expect(changed.body.priority).toBe('low');
  });

  it('any write path bumps the version: an archive and an unarchive change the tag too', async () => {
    const item = await create('archived etag');
    const before = (await t.http.get(`${items}${item.id}/`).set(k())).headers.etag;
    await t.http.post(`${items}${item.id}/archive/`).set(k());
    await t.http.post(`${items}${item.id}/unarchive/`).set(k());
    const after = (await t.http.get(`${items}${item.id}/`).set(k())).headers.etag;
    expect(after).toMatch(/^"3-/);
    expect(after).not.toBe(before);
  });

  it('lists carry a weak ETag over the page: 304 while the page is the same, 200 once it changes', async () => {
    await create('list etag');
    const page = await t.http.get(items).set(k());
    const tag = page.headers.etag;
    expect(tag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    expect((await t.http.get(items).set(k()).set('If-None-Match', tag)).status).toBe(304);
    await create('list etag 2');
    const next = await t.http.get(items).set(k()).set('If-None-Match', tag);
    expect(next.status).toBe(200);
    expect(next.headers.etag).not.toBe(tag);
  });

  it('PATCH with the current If-Match writes and answers the new ETag; a stale or weak tag is 412 and writes nothing', async () => {
    const item = await create('if-match');
    const tag = (await t.http.get(`${items}${item.id}/`).set(k())).headers.etag;
    const ok = await t.http.patch(`${items}${item.id}/`).set(k()).set('If-Match', tag).send({ name: 'if-match 2' });
    expect(ok.status).toBe(200);
    const fresh = (await t.http.get(`${items}${item.id}/`).set(k())).headers.etag;
    expect(ok.headers.etag).toBe(fresh);
    expect(fresh).not.toBe(tag);
    const stale = await t.http.patch(`${items}${item.id}/`).set(k()).set('If-Match', tag).send({ name: 'lost update' });
    expectProblem(stale, 412, 'precondition_failed');
    expect(await nameOf(item.id)).toBe('if-match 2');
    expect((await t.http.get(`${items}${item.id}/`).set(k())).headers.etag).toBe(fresh);
    for (const bad of [`W/${fresh}`, 'garbage', '"1"']) {
      const res = await t.http.patch(`${items}${item.id}/`).set(k()).set('If-Match', bad).send({ name: 'bad tag' });
      expectProblem(res, 412, 'precondition_failed');
    }
    // A list of tags matches when one is current; `*` matches any existing record; no If-Match is today's PATCH.
    const listed = await t.http
      .patch(`${items}${item.id}/`)
      .set(k())
      .set('If-Match', `${tag}, ${fresh}`)
      .send({ name: 'listed' });
    expect(listed.status).toBe(200);
    expect(
      (await t.http.patch(`${items}${item.id}/`).set(k()).set('If-Match', '*').send({ name: 'star' })).status,
    ).toBe(200);
    expect((await t.http.patch(`${items}${item.id}/`).set(k()).send({ name: 'plain' })).status).toBe(200);
    expect(await nameOf(item.id)).toBe('plain');
  });

  it('two PATCHes with the same If-Match at once: exactly one succeeds, the other is 412 and wrote nothing', async () => {
    for (let round = 0; round < 4; round++) {
      const item = await create(`race ${round}`);
      const tag = (await t.http.get(`${items}${item.id}/`).set(k())).headers.etag;
      // Both requests are held at the version check by a row lock the test holds, then released together.
      const locker = new Client({ connectionString: t.dbUrl });
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM work_items WHERE id = $1 FOR UPDATE', [item.id]);
      const send = (name: string) =>
        t.http.patch(`${items}${item.id}/`).set(k()).set('If-Match', tag).send({ name, priority: 'urgent' });
      const racing = Promise.all([send(`winner A ${round}`), send(`winner B ${round}`)]);
      await waitForLockWait(t.ds, 'UPDATE work_items SET version%');
      await locker.query('COMMIT');
      await locker.end();
      const rs = await racing;
      expect(rs.map((r) => r.status).sort()).toEqual([200, 412]);
      const winner = rs.find((r) => r.status === 200)!;
      expectProblem(
        rs.find((r) => r.status === 412)!,
        412,
        'precondition_failed',
      );
      expect(await nameOf(item.id)).toBe(winner.body.name);
      const [{ version }] = await t.ds.query(`SELECT version FROM work_items WHERE id = $1`, [item.id]);
      expect(winner.headers.etag).toMatch(new RegExp(`^"${version}-`));
    }
  });

  it('DELETE honours If-Match: stale is 412 and the record stays, current deletes it', async () => {
    const item = await create('delete me');
    const tag = (await t.http.get(`${items}${item.id}/`).set(k())).headers.etag;
    await t.http.patch(`${items}${item.id}/`).set(k()).send({ priority: 'medium' });
    expectProblem(await t.http.delete(`${items}${item.id}/`).set(k()).set('If-Match', tag), 412, 'precondition_failed');
    const now = (await t.http.get(`${items}${item.id}/`).set(k())).headers.etag;
    expect((await t.http.delete(`${items}${item.id}/`).set(k()).set('If-Match', now)).status).toBe(204);
    expect((await t.http.get(`${items}${item.id}/`).set(k())).status).toBe(404);
  });

  it("another tenant's record is 404 with any If-Match (never 412), and a failed write under a matching tag changes nothing", async () => {
    const item = await create('mine');
    const tag = (await t.http.get(`${items}${item.id}/`).set(k())).headers.etag;
    const other = await t.tenant();
    const theirs = await t.project(other.slug, other.owner.key);
    const foreign = `/api/v2/workspaces/${other.slug}/projects/${theirs.id}/work-items/${item.id}/`;
    for (const tagSent of [tag, '"99-x"']) {
      const res = await t.http.patch(foreign).set('X-Api-Key', other.owner.key).set('If-Match', tagSent).send({});
      expectProblem(res, 404, 'resource_not_found');
    }
    // A matching tag with an invalid body: 400, and the version is untouched (the check rolled back with it).
    const bad = await t.http.patch(`${items}${item.id}/`).set(k()).set('If-Match', tag).send({ name: '' });
    expectProblem(bad, 400, 'validation_error');
    expect((await t.http.get(`${items}${item.id}/`).set(k())).headers.etag).toBe(tag);
  });

  it('every versioned resource: strong ETag on GET, 412 for a stale If-Match on PATCH (states, labels, cycles, relation definitions, links, projects)', async () => {
    const p = await t.project(ten.slug, ten.owner.key);
    const base = `${ws}/projects/${p.id}`;
    const cases: Array<[string, object, object]> = [
      [`${base}/states/`, { name: 'Doing', color: '#aabbcc' }, { name: 'Doing now' }],
      [`${base}/labels/`, { name: 'bug' }, { name: 'defect' }],
      [`${base}/cycles/`, { name: 'Sprint' }, { name: 'Sprint 2' }],
      [`${ws}/labels/`, { name: 'ws label' }, { name: 'ws label 2' }],
      [
        `${ws}/work-item-relation-definitions/`,
        { name: 'Clones', outward: 'clones', inward: 'is cloned by' },
        { name: 'Cloned from' },
      ],
    ];
    const item = (await t.http.post(`${base}/work-items/`).set(k()).send({ name: 'Linked' })).body;
    cases.push([`${base}/work-items/${item.id}/links/`, { url: 'https://example.com/a' }, { title: 'A' }]);
    for (const [list, body, change] of cases) {
      const created = await t.http.post(list).set(k()).send(body);
      expect(created.status).toBe(201);
      const url = `${list}${created.body.id}/`;
      const tag = (await t.http.get(url).set(k())).headers.etag;
      expect(tag).toMatch(/^"1-/);
      expect((await t.http.patch(url).set(k()).set('If-Match', tag).send(change)).status).toBe(200);
      expectProblem(await t.http.patch(url).set(k()).set('If-Match', tag).send(body), 412, 'precondition_failed');
    }
    const projectUrl = `${ws}/projects/${p.id}/`;
    const ptag = (await t.http.get(projectUrl).set(k())).headers.etag;
    expect(ptag).toMatch(/^"\d+-/);
    await t.http.patch(projectUrl).set(k()).send({ description: 'changed' });
    expectProblem(
      await t.http.patch(projectUrl).set(k()).set('If-Match', ptag).send({ description: 'lost' }),
      412,
      'precondition_failed',
    );
  });

  it('memberships are versioned too: workspace and project member GET/PATCH, project member DELETE', async () => {
    const user = await t.member(ten.slug, 'member');
    const wsMember = (await t.http.get(`${ws}/members/?search=${encodeURIComponent(user.email)}`).set(k())).body
      .data[0];
    const wsUrl = `${ws}/members/${wsMember.id}/`;
    const wsTag = (await t.http.get(wsUrl).set(k())).headers.etag;
    expect(wsTag).toMatch(/^"1-/);
    expect((await t.http.get(wsUrl).set(k()).set('If-None-Match', wsTag)).status).toBe(304);
    expect((await t.http.patch(wsUrl).set(k()).set('If-Match', wsTag).send({ role: 'guest' })).status).toBe(200);
    expectProblem(
      await t.http.patch(wsUrl).set(k()).set('If-Match', wsTag).send({ role: 'member' }),
      412,
      'precondition_failed',
    );
    expect((await t.http.get(wsUrl).set(k())).body.role).toBe('guest');
    await t.http.patch(wsUrl).set(k()).send({ role: 'member' });

    const p = await t.project(ten.slug, ten.owner.key);
    const members = `${ws}/projects/${p.id}/members/`;
    const added = await t.http.post(members).set(k()).send({ member_id: user.id, role: 'contributor' });
    expect(added.status).toBe(201);
    const url = `${members}${added.body.id}/`;
    const tag = (await t.http.get(url).set(k())).headers.etag;
    expect(tag).toMatch(/^"1-/);
    expect((await t.http.patch(url).set(k()).set('If-Match', tag).send({ role: 'commenter' })).status).toBe(200);
    expectProblem(
      await t.http.patch(url).set(k()).set('If-Match', tag).send({ role: 'guest' }),
      412,
      'precondition_failed',
    );
    expectProblem(await t.http.delete(url).set(k()).set('If-Match', tag), 412, 'precondition_failed');
    const current = (await t.http.get(url).set(k())).headers.etag;
    expect((await t.http.get(url).set(k())).body.role).toBe('commenter');
    expect((await t.http.delete(url).set(k()).set('If-Match', current)).status).toBe(204);
    expectProblem(await t.http.get(url).set(k()), 404, 'resource_not_found');
  });

  it('features and type-property links are versioned: records addressed without an id of their own', async () => {
    const p = await t.project(ten.slug, ten.owner.key);
    for (const url of [`${ws}/features/`, `${ws}/projects/${p.id}/features/`]) {
      await t.http.get(url).set(k()); // the first read creates the row
      const tag = (await t.http.get(url).set(k())).headers.etag;
      expect(tag).toMatch(/^"\d+-/);
      expect((await t.http.get(url).set(k()).set('If-None-Match', tag)).status).toBe(304);
      const flag = url.includes('/projects/') ? { cycles: false } : { is_custom_properties_enabled: true };
      expect((await t.http.patch(url).set(k()).set('If-Match', tag).send(flag)).status).toBe(200);
      expectProblem(await t.http.patch(url).set(k()).set('If-Match', tag).send(flag), 412, 'precondition_failed');
    }
    const pr = `${ws}/projects/${p.id}`;
    const type = (await t.http.post(`${pr}/work-item-types/`).set(k()).send({ name: 'Bug' })).body;
    const prop = (
      await t.http
        .post(`${pr}/work-item-properties/`)
        .set(k())
        .send({ display_name: 'Points', property_type: 'DECIMAL' })
    ).body;
    const attached = await t.http
      .post(`${pr}/work-item-types/${type.id}/properties/`)
      .set(k())
      .send({ properties: [prop.id] });
    expect(attached.status).toBe(201);
    const link = `${pr}/work-item-types/${type.id}/properties/${prop.id}/`;
    const tag = (await t.http.get(link).set(k())).headers.etag;
    expect(tag).toMatch(/^"1-/);
    expectProblem(await t.http.delete(link).set(k()).set('If-Match', '"7-stale"'), 412, 'precondition_failed');
    expect((await t.http.get(link).set(k())).status).toBe(200);
    expect((await t.http.delete(link).set(k()).set('If-Match', tag)).status).toBe(204);
    expectProblem(await t.http.get(link).set(k()), 404, 'resource_not_found');
  });

  it('parses tags as RFC 9110 lists', () => {
    expect(ifMatchVersions('"3-abc"')).toEqual([3]);
    expect(ifMatchVersions('"3-abc", W/"4-def", "x", "5-g_h"')).toEqual([3, 5]);
    expect(ifMatchVersions(' * ')).toBeNull();
    expect(ifMatchVersions('3-abc')).toEqual([]);
    expect(noneMatchHits('W/"a", "b"', '"b"')).toBe(true);
    expect(noneMatchHits('"a"', 'W/"a"')).toBe(true);
    expect(noneMatchHits('"a"', '"b"')).toBe(false);
    expect(noneMatchHits('*', '"b"')).toBe(true);
  });
});
