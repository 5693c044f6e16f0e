import { connect } from 'node:net';
import { Client } from 'pg';
import { adminUrl } from '../helpers/database';
import { createTestApp, expectProblem, Tenant, TestApp, waitForLockWait } from '../helpers/test-app';

describe('spec conventions (central mechanisms)', () => {
  let t: TestApp;
  let ten: Tenant;
  let projectId: string;
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    projectId = (await t.project(ten.slug, ten.owner.key)).id;
  });
  afterAll(() => t.close());

  const key = () => ({ 'X-Api-Key': ten.owner.key });

  it('serves v2 paths only with the trailing slash; without it is a 404 problem', async () => {
    expect((await t.http.get('/api/v2/users/me/').set(key())).status).toBe(200);
    expectProblem(await t.http.get('/api/v2/users/me').set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.get(`/api/v2/workspaces/${ten.slug}/projects`).set(key()), 404, 'resource_not_found');
  });

  it('answers PUT and other unsupported methods with 405 method_not_allowed and Allow', async () => {
    const res = await t.http
      .put(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/`)
      .set(key())
      .send({ name: 'x' });
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toContain('PATCH');
    expectProblem(await t.http.put('/api/v2/users/me/').set(key()), 405, 'method_not_allowed');
    expectProblem(await t.http.delete('/api/v2/users/me/').set(key()), 405, 'method_not_allowed');
  });

  it('a method a literal segment lacks is 405 there, not a run of the {pk} route beside it', async () => {
    const types = `/api/v2/workspaces/${ten.slug}/projects/${projectId}/work-item-types`;
    for (const literal of ['enable', 'import']) {
      for (const method of ['get', 'patch', 'delete'] as const) {
        const res = expectProblem(await t.http[method](`${types}/${literal}/`).set(key()), 405, 'method_not_allowed');
        expect(res.status).toBe(405);
      }
      const allow = (await t.http.get(`${types}/${literal}/`).set(key())).headers.allow;
      expect(allow).toBe('POST');
    }
    // The {pk} routes themselves still run: a malformed pk is 400, an unknown one 404.
    expectProblem(await t.http.get(`${types}/not-a-uuid/`).set(key()), 400, 'validation_error');
    expectProblem(
      await t.http.get(`${types}/00000000-0000-4000-8000-000000000000/`).set(key()),
      404,
      'resource_not_found',
    );
  });

  it('answers unknown routes with a 404 problem', async () => {
    expectProblem(await t.http.get('/api/v2/nothing-here/').set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.get('/elsewhere'), 404, 'resource_not_found');
  });

  it('a path segment longer than any id, slug or identifier is a 404 problem; a malformed escape in the path a 400 problem', async () => {
    const long = 'A'.repeat(101);
    for (const path of [
      `/api/v2/workspaces/${ten.slug}/work-items/${long}-1/`,
      `/api/v2/workspaces/${long.toLowerCase()}/projects/`,
    ]) {
      for (const req of [t.http.get(path).set(key()), t.http.get(path)]) {
        const res = expectProblem(await req, 404, 'resource_not_found');
        expect(res.status).toBe(404);
      }
    }
    expectProblem(await t.http.get(`/api/v2/workspaces/%E0%A4%A/projects/`).set(key()), 400, 'validation_error');
  });

  it('rejects malformed JSON, a non-object body and a wrong content type', async () => {
    const url = `/api/v2/workspaces/${ten.slug}/projects/`;
    const bad = await t.http.post(url).set(key()).set('Content-Type', 'application/json').send('{"name": ');
    expect(expectProblem(bad, 400, 'validation_error').errors[0].field).toBe('body');
    expectProblem(await t.http.post(url).set(key()).send([1, 2]), 400, 'validation_error');
    expectProblem(
      await t.http.post(url).set(key()).set('Content-Type', 'text/plain').send('name=x'),
      415,
      'unsupported_media_type',
    );
    // JSON only: a form body is refused, not parsed (Nest's own parsers are off).
    expectProblem(
      await t.http.post(url).set(key()).type('form').send('name=x&identifier=FORM'),
      415,
      'unsupported_media_type',
    );
    // An empty body with a JSON content type is no body: the required fields are named, nothing crashes.
    const empty = expectProblem(
      await t.http.post(url).set(key()).set('Content-Type', 'application/json').send(''),
      400,
      'validation_error',
    );
    expect(empty.errors.map((e: { field: string }) => e.field)).toContain('name');
  });

  it('answers a request the HTTP parser rejects (bad header bytes) with a problem too', async () => {
    const app = await createTestApp();
    try {
      await app.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.app.getHttpServer().address() as { port: number };
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.write('GET /api/v2/users/me/ HTTP/1.1\r\nHost: x\r\nX-Api-Key: a\u0001b\r\n\r\n'),
        );
        let data = '';
        socket.on('data', (c) => (data += c.toString()));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
      const [head, body] = raw.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(head.toLowerCase()).toContain('content-type: application/problem+json');
      expect(JSON.parse(body)).toMatchObject({
        status: 400,
        code: 'validation_error',
        title: expect.any(String),
        detail: expect.any(String),
      });
    } finally {
      await app.close();
    }
  });

  it('input PostgreSQL cannot store or the validators cannot walk is a 400 naming it, never a 500', async () => {
    const items = `/api/v2/workspaces/${ten.slug}/projects/${projectId}/work-items/`;
    const field = async (res: any) => expectProblem(res, 400, 'validation_error').errors.map((e: any) => e.field);
    // NUL in a body string (top level or nested), a query parameter and a path parameter.
    expect(await field(await t.http.post(items).set(key()).send({ name: 'a\u0000b' }))).toEqual(['name']);
    expect(
      await field(
        await t.http
          .post(items)
          .set(key())
          .send({ name: 'ok', labels: ['x', 'y\u0000'] }),
      ),
    ).toEqual(['labels[1]']);
    expect(await field(await t.http.get(`${items}?search=%00`).set(key()))).toEqual(['search']);
    expect(await field(await t.http.get(`${items}?external_id=a%00`).set(key()))).toEqual(['external_id']);
    // A slug PostgreSQL cannot even bind names no workspace.
    expectProblem(await t.http.get(`/api/v2/workspaces/a%00b/projects/`).set(key()), 404, 'resource_not_found');
    // Nesting deeper than any body the API defines, even in a field that would be ignored.
    const deep = JSON.parse('['.repeat(1500) + ']'.repeat(1500));
    const nested = await t.http.post(items).set(key()).send({ name: 'x', bogus: deep });
    expect((await field(nested))[0]).toMatch(/^bogus(\[0\])+$/);
    // Unpaired surrogates (PostgreSQL text and json cannot hold them): 400 naming the field, in bodies and queries.
    expect(await field(await t.http.post(items).set(key()).send({ name: 'sur\ud800' }))).toEqual(['name']);
    expect(
      await field(
        await t.http
          .post(items)
          .set(key())
          .send({ name: 'ok', custom_fields: { x: 'a\udfff' } }),
      ),
    ).toEqual(['custom_fields.x']);
    expect((await t.http.post(items).set(key()).send({ name: 'emoji \ud83d\ude00 pairs are fine' })).status).toBe(201);
    // A body wider than any the API defines is refused before the validators walk it.
    const wide = Object.fromEntries(Array.from({ length: 20000 }, (_, i) => [`k${i}`, 0]));
    const startedWide = Date.now();
    expect(
      await field(
        await t.http
          .post(items)
          .set(key())
          .send({ name: 'wide', ...wide }),
      ),
    ).toEqual(['body']);
    expect(Date.now() - startedWide).toBeLessThan(2000);
    // Values that pass the shape check but are out of PostgreSQL's range.
    expect(await field(await t.http.get(`${items}?sequence_id=2147483648`).set(key()))).toEqual(['sequence_id']);
    expect(await field(await t.http.get(`${items}?created_at__gte=2026-02-30T00:00:00Z`).set(key()))).toEqual([
      'created_at__gte',
    ]);
    expect(await field(await t.http.get(`${items}?created_at__gte=0000-01-01T00:00:00Z`).set(key()))).toEqual([
      'created_at__gte',
    ]);
    // Offsets past PostgreSQL's 15:59 and instants past year 9999 UTC.
    expect(await field(await t.http.get(`${items}?created_at__gte=2026-11-22T19:37:02%2B16:00`).set(key()))).toEqual([
      'created_at__gte',
    ]);
    expect(await field(await t.http.get(`${items}?updated_at__lte=2026-11-22T19:37:02-23:59`).set(key()))).toEqual([
      'updated_at__lte',
    ]);
    expect(await field(await t.http.get(`${items}?created_at__gte=9999-12-31T23:00:00-05:00`).set(key()))).toEqual([
      'created_at__gte',
    ]);
    expect(await field(await t.http.get(`${items}?start_date__gte=0000-01-01`).set(key()))).toEqual([
      'start_date__gte',
    ]);
    expect(await field(await t.http.post(items).set(key()).send({ name: 'd', start_date: '0000-01-01' }))).toEqual([
      'start_date',
    ]);
    // The valid neighbours still work.
    expect(
      (
        await t.http
          .get(`${items}?sequence_id=2147483647&created_at__gte=2026-02-28T00:00:00Z&start_date__gte=0001-01-01`)
          .set(key())
      ).status,
    ).toBe(200);
    expect(
      (
        await t.http
          .get(`${items}?created_at__gte=2026-11-22T19:37:02%2B15:59&created_at__lte=9999-12-31T23:59:59Z`)
          .set(key())
      ).status,
    ).toBe(200);
    expect(
      (
        await t.http
          .post(items)
          .set(key())
          .send({ name: 'x', bogus: JSON.parse('['.repeat(20) + ']'.repeat(20)) })
      ).status,
    ).toBe(201);
  });

  it('input problems come after credentials (401), the tenant wall (404) and the role (403)', async () => {
    const states = `/api/v2/workspaces/${ten.slug}/projects/${projectId}/states/`;
    const items = `/api/v2/workspaces/${ten.slug}/projects/${projectId}/work-items/`;
    const json = (r: any) => r.set('Content-Type', 'application/json');
    // No credentials: 401 whatever is wrong with the input.
    expectProblem(await json(t.http.post(states)).send('{bad'), 401, 'unauthorized');
    expectProblem(await t.http.post(states).set('Content-Type', 'text/plain').send('x'), 401, 'unauthorized');
    expectProblem(await t.http.get(`${items}?search=a%00b`), 401, 'unauthorized');
    expectProblem(await t.http.post(items).send({ name: 'a\u0000' }), 401, 'unauthorized');
    // A stranger to the workspace: 404.
    const stranger = await t.user();
    expectProblem(
      await json(t.http.post(states).set('X-Api-Key', stranger.key)).send('{bad'),
      404,
      'resource_not_found',
    );
    expectProblem(await t.http.get(`${items}?search=a%00b`).set('X-Api-Key', stranger.key), 404, 'resource_not_found');
    // A workspace guest (no project write role): 403 before the malformed body.
    const guest = await t.member(ten.slug, 'guest');
    expectProblem(await json(t.http.post(items).set('X-Api-Key', guest.key)).send('{bad'), 403, 'forbidden');
    // With access, the input problem itself.
    expectProblem(await json(t.http.post(states).set(key())).send('{bad'), 400, 'validation_error');
    expectProblem(
      await t.http.post(states).set(key()).set('Content-Type', 'text/plain').send('x'),
      415,
      'unsupported_media_type',
    );
  });

  it('bodyless routes ignore any body, of any content type; other routes still refuse it', async () => {
    const items = `/api/v2/workspaces/${ten.slug}/projects/${projectId}/work-items/`;
    const item = (await t.http.post(items).set(key()).send({ name: 'bodyless' })).body;
    const archive = await t.http
      .post(`${items}${item.id}/archive/`)
      .set(key())
      .set('Content-Type', 'text/plain')
      .send('x');
    expect(archive.status).toBe(200);
    expect(archive.body.archived_at).not.toBeNull();
    const unarchive = await t.http
      .post(`${items}${item.id}/unarchive/`)
      .set(key())
      .set('Content-Type', 'application/json')
      .send('x');
    expect(unarchive.status).toBe(200);
    expect(unarchive.body.archived_at).toBeNull();
    expect(
      (await t.http.post(`${items}${item.id}/archive/`).set(key()).send({ archived_at: null, name: 'ignored' })).body
        .name,
    ).toBe('bodyless');
    const enable = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/work-item-types/enable/`)
      .set(key())
      .set('Content-Type', 'application/xml')
      .send('<x/>');
    expect(enable.status).toBe(200);
    // A route with a body keeps JSON-only parsing.
    expectProblem(
      await t.http.post(items).set(key()).set('Content-Type', 'text/plain').send('x'),
      415,
      'unsupported_media_type',
    );
    expectProblem(
      await t.http.post(items).set(key()).set('Content-Type', 'application/json').send('x'),
      400,
      'validation_error',
    );
  });

  it('rejects an oversized body with 413', async () => {
    const big = { name: 'x', description: 'a'.repeat(1024 * 1024 + 10) };
    expectProblem(
      await t.http.post(`/api/v2/workspaces/${ten.slug}/projects/`).set(key()).send(big),
      413,
      'payload_too_large',
    );
  });

  it('validation errors name each offending field', async () => {
    const res = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/projects/`)
      .set(key())
      .send({ name: 'x'.repeat(256), identifier: '1AB' });
    const body = expectProblem(res, 400, 'validation_error');
    const fields = body.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['identifier', 'name']);
  });

  it('a malformed path id is a 400 naming the parameter; a foreign one is 404', async () => {
    const res = await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/not-a-uuid/`).set(key());
    expect(expectProblem(res, 400, 'validation_error').errors[0].field).toBe('project_id');
    expectProblem(
      await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/00000000-0000-4000-8000-000000000000/`).set(key()),
      404,
      'resource_not_found',
    );
    const other = await t.tenant();
    const otherProject = await t.project(other.slug, other.owner.key);
    expectProblem(
      await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/${otherProject.id}/`).set(key()),
      404,
      'resource_not_found',
    );
    expectProblem(await t.http.get(`/api/v2/workspaces/${other.slug}/projects/`).set(key()), 404, 'resource_not_found');
  });

  it('echoes the request id and sets security headers', async () => {
    const res = await t.http.get('/api/v2/users/me/').set(key()).set('X-Request-Id', 'abc-123');
    expect(res.headers['x-request-id']).toBe('abc-123');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const gen = await t.http.get('/api/v2/users/me/').set(key());
    expect(gen.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sets the same security headers on every response: success, 401, 404, the early 405 and 413, the schema', async () => {
    const responses = [
      await t.http.get('/api/v2/users/me/').set(key()),
      await t.http.get('/api/v2/users/me/'),
      await t.http.get('/api/v2/nothing-here/').set(key()),
      await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/work-item-types/enable/`).set(key()),
      await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/`)
        .set(key())
        .set('Content-Type', 'application/json')
        .send(`{"name":"${'x'.repeat(1_100_000)}"}`),
      await t.http.get('/api/v2/schema/'),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 401, 404, 405, 413, 200]);
    for (const res of responses) {
      expect(res.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'SAMEORIGIN',
        'referrer-policy': 'no-referrer',
        'cross-origin-resource-policy': 'same-origin',
      });
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.headers['content-security-policy']).toContain("object-src 'none'");
    }
  });

  it('rejects ?expand= on resources that accept none, and unknown values where allowed', async () => {
    const res = await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/?expand=state`).set(key());
    expect(expectProblem(res, 400, 'validation_error').errors[0].field).toBe('expand');
    const m = await t.http.get(`/api/v2/workspaces/${ten.slug}/members/?expand=user`).set(key());
    expect(expectProblem(m, 400, 'validation_error').errors[0].message).toContain('member');
  });

  it('ignores audit and read-only fields on input', async () => {
    const res = await t.http.post(`/api/v2/workspaces/${ten.slug}/projects/`).set(key()).send({
      name: 'Audit fields',
      id: '00000000-0000-4000-8000-000000000001',
      created_at: '2000-01-01T00:00:00Z',
      created_by_id: '00000000-0000-4000-8000-000000000002',
    });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe('00000000-0000-4000-8000-000000000001');
    expect(res.body.created_by_id).toBe(ten.owner.id);
    expect(res.body.created_at).not.toContain('2000-01-01');
  });

  it('PATCH is partial and null clears; DELETE is 204 empty, soft, and a repeat is 404', async () => {
    const p = await t.project(ten.slug, ten.owner.key, { description: 'keep me', external_id: 'E1' });
    const url = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/`;
    const a = await t.http.patch(url).set(key()).send({ name: 'Renamed project' });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ name: 'Renamed project', description: 'keep me', external_id: 'E1' });
    const b = await t.http.patch(url).set(key()).send({ external_id: null });
    expect(b.body.external_id).toBeNull();
    expect(b.body.name).toBe('Renamed project');
    expectProblem(await t.http.patch(url).set(key()).send({ name: null }), 400, 'validation_error');
    const d = await t.http.delete(url).set(key());
    expect(d.status).toBe(204);
    expect(d.text).toBe('');
    expectProblem(await t.http.delete(url).set(key()), 404, 'resource_not_found');
    expectProblem(await t.http.get(url).set(key()), 404, 'resource_not_found');
    const rows = await t.ds.query(`SELECT deleted_at FROM projects WHERE id = $1`, [p.id]);
    expect(rows[0].deleted_at).not.toBeNull();
  });

  it('turns a unique violation into 409 conflict', async () => {
    await t.project(ten.slug, ten.owner.key, { name: 'Dup name', identifier: 'DUPA' });
    expectProblem(
      await t.http.post(`/api/v2/workspaces/${ten.slug}/projects/`).set(key()).send({ name: 'Dup name' }),
      409,
      'conflict',
    );
    expectProblem(
      await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/`)
        .set(key())
        .send({ name: 'Other', identifier: 'dupa' }),
      409,
      'conflict',
    );
  });

  it('serves health and readiness probes', async () => {
    expect((await t.http.get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await t.http.get('/readyz')).body).toMatchObject({ database: 'up' });
  });
  it('an (external_source, external_id) pair names one live state, label, workspace label, cycle or module per scope: reuse is 409 naming it', async () => {
    const other = (await t.project(ten.slug, ten.owner.key)).id;
    const ws = `/api/v2/workspaces/${ten.slug}`;
    const collections = (p: string) => [
      `${ws}/projects/${p}/states/`,
      `${ws}/projects/${p}/labels/`,
      `${ws}/labels/`,
      `${ws}/projects/${p}/cycles/`,
      `${ws}/projects/${p}/modules/`,
    ];
    const body = (url: string, name: string, extra: Record<string, unknown> = {}) => ({
      name,
      ...(url.includes('/states/') ? { color: '#123456' } : {}),
      ...extra,
    });
    const pair = { external_source: 'jira', external_id: 'EXT-1' };
    const post = (url: string, b: Record<string, unknown>) => t.http.post(url).set(key()).send(b);
    const mine = collections(projectId);
    for (const [i, url] of mine.entries()) {
      const first = await post(url, body(url, `Imported ${i}`, pair));
      expect([url, first.status]).toEqual([url, 201]);
      const again = expectProblem(await post(url, body(url, `Imported again ${i}`, pair)), 409, 'conflict');
      expect(again.detail).toContain(first.body.id);
      // Half a pair names nothing; another project (or, for the workspace label, nothing else) is another scope.
      expect((await post(url, body(url, `Half ${i}`, { external_id: 'EXT-1' }))).status).toBe(201);
      if (!url.startsWith(`${ws}/labels/`))
        expect((await post(collections(other)[mine.indexOf(url)], body(url, `Elsewhere ${i}`, pair))).status).toBe(201);
      // PATCH: taking the pair of another record is 409; resending one's own pair is fine.
      const second = (await post(url, body(url, `Second ${i}`, { external_source: 'jira', external_id: 'EXT-2' })))
        .body;
      expectProblem(
        await t.http.patch(`${url}${second.id}/`).set(key()).send({ external_id: 'EXT-1' }),
        409,
        'conflict',
      );
      expect(
        (
          await t.http
            .patch(`${url}${first.body.id}/`)
            .set(key())
            .send({ ...pair, name: `Renamed ${i}` })
        ).status,
      ).toBe(200);
      // Parallel creates of one new pair: exactly one wins.
      const racers = await Promise.all(
        Array.from({ length: 5 }, (_, k) =>
          post(url, body(url, `Racer ${i}.${k}`, { external_source: 'jira', external_id: 'EXT-9' })),
        ),
      );
      expect(racers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    }
    // Once the record is deleted its pair is free again.
    const [stateUrl] = mine;
    const holder = (await t.http.get(`${stateUrl}?external_source=jira&external_id=EXT-2`).set(key())).body.data[0];
    expect((await t.http.delete(`${stateUrl}${holder.id}/`).set(key())).status).toBe(204);
    expect(
      (await post(stateUrl, body(stateUrl, 'Reborn', { external_source: 'jira', external_id: 'EXT-2' }))).status,
    ).toBe(201);
  });
  it('a statement the database cancels (statement_timeout, lock_timeout, an administrator) is 503 with Retry-After and changes nothing, never a 500', async () => {
    const items = `/api/v2/workspaces/${ten.slug}/projects/${projectId}/work-items/`;
    const item = (await t.http.post(items).set(key()).send({ name: 'Before the cancel' })).body;
    expect(item.id).toBeDefined();
    const locker = new Client({ connectionString: t.dbUrl });
    await locker.connect();
    // The cancel of the waiting statement: what statement_timeout or lock_timeout does to a slow one. Only the
    // request can wait here (the locker holds the lock). A prepared statement blocked while binding still shows
    // its connection's previous query text, so the waiter is found by its wait, not its text.
    const cancelWaiter = async () => {
      await waitForLockWait(t.ds, '%');
      await locker.query(
        `SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
    };
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE work_items IN ACCESS EXCLUSIVE MODE');
      const [read] = await Promise.all([t.http.get(items).set(key()), cancelWaiter()]);
      expectProblem(read, 503, 'service_unavailable');
      expect(read.headers['retry-after']).toBe('5');
      expect(read.body.detail).toMatch(/did not complete/);
      const [write] = await Promise.all([
        t.http.patch(`${items}${item.id}/`).set(key()).send({ name: 'After the cancel' }),
        cancelWaiter(),
      ]);
      expectProblem(write, 503, 'service_unavailable');
      await locker.query('ROLLBACK');
      // The canceled PATCH wrote nothing, and the service answers normally again.
      const after = await t.http.get(`${items}${item.id}/`).set(key());
      expect(after.status).toBe(200);
      expect(after.body.name).toBe('Before the cancel');
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
  });
  it('a database that cannot be reached is 503 service_unavailable with Retry-After (temporary), never a 500; /readyz says so', async () => {
    const app = await createTestApp();
    const tenant = await app.tenant();
    const db = new URL(app.dbUrl).pathname.slice(1);
    const admin = new Client({ connectionString: adminUrl() });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE ${db} ALLOW_CONNECTIONS false`);
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [db]);
      const url = `/api/v2/workspaces/${tenant.slug}/projects/`;
      let res = await app.http.get(url).set('X-Api-Key', tenant.owner.key);
      // The first use of a terminated pooled connection may fail on it; the next one cannot connect at all.
      if (res.status !== 503) res = await app.http.get(url).set('X-Api-Key', tenant.owner.key);
      expectProblem(res, 503, 'service_unavailable');
      expect(res.headers['retry-after']).toBe('5');
      expect((await app.http.get('/readyz')).status).toBe(503);
      await admin.query(`ALTER DATABASE ${db} ALLOW_CONNECTIONS true`);
      expect((await app.http.get(url).set('X-Api-Key', tenant.owner.key)).status).toBe(200);
    } finally {
      await admin.query(`ALTER DATABASE ${db} ALLOW_CONNECTIONS true`).catch(() => undefined);
      await admin.end();
      await app.close();
    }
  });
});
