import { Client } from 'pg';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';
import { WebhookReceiver } from '../helpers/webhook-receiver';

// The receiver is on loopback: allowed for this file (as in webhooks.spec.ts).
Object.assign(process.env, { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });

/**
 * Issue 27, the work item write path: a create is two statements (the prelude, the checked insert) and a PATCH of
 * plain fields one, without an explicit transaction, while no webhook chooses their event; with one, the event is
 * written in the change's transaction as before. History, 404s and the webhook events are what they were.
 */
describe('work item write path', () => {
  let t: TestApp;
  let ten: Tenant;
  let rx: WebhookReceiver;
  let base: string;
  const key = (k = ten.owner.key) => ({ 'X-Api-Key': k });

  /** The work item statements (and transaction control) sent to PostgreSQL while `fn` runs, background jobs aside. */
  const statements = async (fn: () => Promise<unknown>): Promise<string[]> => {
    const proto = Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
    const original = proto.query;
    const seen: string[] = [];
    proto.query = function (this: unknown, ...a: unknown[]) {
      const q = a[0] as string | { text?: string } | undefined;
      const text = typeof q === 'string' ? q : (q?.text ?? '');
      const ours = /work_item|webhook|^\s*(BEGIN|START TRANSACTION|COMMIT|SAVEPOINT)/i.test(text);
      // pg-boss polls (a webhook-deliver worker among them) and credential stamps run beside the request.
      if (ours && !/pgboss|last_used_at/i.test(text)) seen.push(text);
      return original.apply(this, a);
    };
    try {
      await fn();
    } finally {
      proto.query = original;
    }
    return seen;
  };

  const activities = async (id: string) =>
    (await t.http.get(`${base}${id}/activities/`).set(key())).body.data.map(
      (a: { verb: string; field: string | null; new_value: string | null }) => [a.verb, a.field, a.new_value].join(' '),
    );

  const events = (id: string): Promise<Array<{ event: string; previous_attributes: Record<string, unknown> | null }>> =>
    t.ds.query(
      `SELECT event, previous_attributes FROM webhook_events WHERE workspace_id = $1 AND entity_id = $2 ORDER BY created_at`,
      [ten.workspaceId, id],
    );

  beforeAll(async () => {
    rx = await new WebhookReceiver().start();
    t = await createTestApp();
    ten = await t.tenant();
    const pid = (await t.project(ten.slug, ten.owner.key)).id;
    base = `/api/v2/workspaces/${ten.slug}/projects/${pid}/work-items/`;
    // Warm the caches (credential, project) and the prepared statements.
    const warm = await t.http.post(base).set(key()).send({ name: 'warm' });
    await t.http.patch(`${base}${warm.body.id}/`).set(key()).send({ priority: 'low' });
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
  });

  it('without webhooks: a create is two statements, a plain PATCH one, no transaction; history complete', async () => {
    let id = '';
    const create = await statements(async () => {
      const res = await t.http.post(base).set(key()).send({ name: 'Two statements', priority: 'high' });
      expect(res.status).toBe(201);
      id = res.body.id;
    });
    expect(create).toHaveLength(2);
    const patch = await statements(async () => {
      const res = await t.http.patch(`${base}${id}/`).set(key()).send({ name: ' One statement ', priority: 'urgent' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, name: 'One statement', priority: 'urgent', custom_fields: {} });
    });
    expect(patch).toHaveLength(1);
    expect(await activities(id)).toEqual(['created  ', 'updated name One statement', 'updated priority urgent']);
    // The same values again: a write, but no change, so no history.
    await t.http.patch(`${base}${id}/`).set(key()).send({ name: 'One statement', priority: 'urgent' });
    expect(await activities(id)).toHaveLength(3);
    expect(await events(id)).toEqual([]);
    // A PATCH that needs the item as it is (a state) still runs in a transaction.
    const withState = await statements(async () => {
      const res = await t.http.patch(`${base}${id}/`).set(key()).send({ state: 'Done' });
      expect(res.status).toBe(200);
    });
    expect(withState[0]).toMatch(/^\s*(BEGIN|START TRANSACTION)/i);
  });

  it('plain PATCH: blank name 400; archived, deleted, unknown and foreign items 404 with nothing written', async () => {
    const item = (await t.http.post(base).set(key()).send({ name: 'plain' })).body.id;
    expectProblem(await t.http.patch(`${base}${item}/`).set(key()).send({ name: '  ' }), 400, 'validation_error');
    expect((await t.http.post(`${base}${item}/archive/`).set(key())).status).toBe(200);
    expectProblem(await t.http.patch(`${base}${item}/`).set(key()).send({ name: 'x' }), 404, 'resource_not_found');
    expect((await t.http.post(`${base}${item}/unarchive/`).set(key())).status).toBe(200);
    expect((await t.http.delete(`${base}${item}/`).set(key())).status).toBe(204);
    expectProblem(await t.http.patch(`${base}${item}/`).set(key()).send({ name: 'x' }), 404, 'resource_not_found');
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectProblem(await t.http.patch(`${base}${unknown}/`).set(key()).send({ name: 'x' }), 404, 'resource_not_found');
    const other = await t.tenant();
    const op = (await t.project(other.slug, other.owner.key)).id;
    const foreign = (
      await t.http
        .post(`/api/v2/workspaces/${other.slug}/projects/${op}/work-items/`)
        .set(key(other.owner.key))
        .send({ name: 'theirs' })
    ).body.id;
    expectProblem(await t.http.patch(`${base}${foreign}/`).set(key()).send({ name: 'x' }), 404, 'resource_not_found');
    const [row] = await t.ds.query(`SELECT name, archived_at, deleted_at FROM work_items WHERE id = $1`, [item]);
    expect(row.name).toBe('plain');
    const [theirs] = await t.ds.query(`SELECT name FROM work_items WHERE id = $1`, [foreign]);
    expect(theirs.name).toBe('theirs');
  });

  it('with a webhook choosing the events: create and plain PATCH write them with the change', async () => {
    const hook = await t.http
      .post(`/api/v2/workspaces/${ten.slug}/webhooks/`)
      .set(key())
      .send({ url: rx.url('/write-path'), scopes: ['workitem.*'] });
    expect(hook.status).toBe(201);
    let id = '';
    const create = await statements(async () => {
      const res = await t.http.post(base).set(key()).send({ name: 'Hooked' });
      expect(res.status).toBe(201);
      id = res.body.id;
    });
    expect(create.some((s) => /^\s*(BEGIN|START TRANSACTION)/i.test(s))).toBe(true);
    const res = await t.http.patch(`${base}${id}/`).set(key()).send({ name: 'Hooked, renamed' });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Hooked, renamed');
    expect(await events(id)).toEqual([
      { event: 'workitem.created', previous_attributes: null },
      { event: 'workitem.updated', previous_attributes: { name: 'Hooked' } },
    ]);
    expect(await activities(id)).toEqual(['created  ', 'updated name Hooked, renamed']);
    await t.http.delete(`/api/v2/workspaces/${ten.slug}/webhooks/${hook.body.id}/`).set(key());
  });

  /** The Unix milliseconds and the 12-bit sub-millisecond fraction of a version 7 id (RFC 9562 layout). */
  const idTime = (id: string) => {
    const hex = id.replace(/-/g, '');
    return { ms: parseInt(hex.slice(0, 12), 16), fraction: parseInt(hex.slice(13, 16), 16) };
  };

  it('new work items get time-ordered ids (migration WorkItemTimeOrderedIds): version 7 of created_at, increasing', async () => {
    const made: Array<{ id: string; created_at: string }> = [];
    for (const name of ['first', 'second', 'third'])
      made.push((await t.http.post(base).set(key()).send({ name })).body);
    const bulk = await t.http
      .post(`${base}bulk-create/`)
      .set(key())
      .send({ items: [{ name: 'bulk one' }, { name: 'bulk two' }] });
    expect(bulk.status).toBe(200);
    for (const { id } of bulk.body.results as Array<{ id: string }>)
      made.push((await t.http.get(`${base}${id}/`).set(key())).body);
    for (const item of made) {
      // Version 7, variant 10; the id's milliseconds are created_at's (both are of the transaction's now()).
      expect(item.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(idTime(item.id).ms).toBe(Date.parse(item.created_at));
    }
    // Separate requests are separate transactions: each id sorts after the one before (the keys append).
    for (let i = 1; i < 4; i++) expect(made[i].id > made[i - 1].id).toBe(true);
    // The two of one bulk statement share the timestamp bits; their 62 random bits tell them apart.
    expect(made[3].id.slice(0, 18)).toBe(made[4].id.slice(0, 18));
    expect(made[3].id).not.toBe(made[4].id);
    const [fn] = await t.ds.query(
      `SELECT count(DISTINCT id)::int AS n, count(*) FILTER (WHERE get_byte(uuid_send(id), 8) >> 6 <> 2)::int AS bad_variant
         FROM (SELECT wt_uuid_v7_strong(now()) AS id FROM generate_series(1, 10000)) x`,
    );
    expect(fn).toEqual({ n: 10000, bad_variant: 0 });
  });
});
