import { createTestApp, expectProblem, Tenant, TestApp, waitForLockWait } from '../helpers/test-app';
import { waitFor } from '../helpers/wait';

/**
 * Writes racing a delete (or each other) through HTTP: never a 500, a delete happens once, and the rules the
 * locks keep (a guest is never above commenter on a project) hold once the dust settles.
 */
describe('races between writes and deletes', () => {
  let t: TestApp;
  let ten: Tenant;
  let ws: string;
  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    ws = `/api/v2/workspaces/${ten.slug}`;
  });
  afterAll(() => t.close());
  const k = () => ({ 'X-Api-Key': ten.owner.key });
  const statuses = (rs: Array<{ status: number }>) => rs.map((r) => r.status);

  it('a work item PATCH, archive or unarchive racing its DELETE or archive answers 200 with the row it wrote, or 404; never 500', async () => {
    const p = await t.project(ten.slug, ten.owner.key);
    const items = `${ws}/projects/${p.id}/work-items/`;
    for (let round = 0; round < 8; round++) {
      const item = (
        await t.http
          .post(items)
          .set(k())
          .send({ name: `racer ${round}` })
      ).body;
      const rs = await Promise.all([
        ...Array.from({ length: 4 }, (_, i) =>
          t.http
            .patch(`${items}${item.id}/`)
            .set(k())
            .send({ name: `renamed ${i}`, priority: 'high' }),
        ),
        t.http.post(`${items}${item.id}/archive/`).set(k()),
        t.http.post(`${items}${item.id}/unarchive/`).set(k()),
        round % 2 ? t.http.delete(`${items}${item.id}/`).set(k()) : t.http.post(`${items}${item.id}/archive/`).set(k()),
      ]);
      for (const r of rs) {
        expect([200, 204, 404]).toContain(r.status);
        if (r.status === 200) expect(r.body.id).toBe(item.id);
      }
    }
  });

  it('parallel DELETEs of a project or of a project member: one 204, the rest 404, one audit entry; a PATCH racing the delete is 200 or 404', async () => {
    const p = await t.project(ten.slug, ten.owner.key);
    const u = await t.member(ten.slug, 'member');
    const pm = (
      await t.http.post(`${ws}/projects/${p.id}/members/`).set(k()).send({ member_id: u.id, role: 'contributor' })
    ).body;
    const pmDeletes = await Promise.all(
      Array.from({ length: 8 }, () => t.http.delete(`${ws}/projects/${p.id}/members/${pm.id}/`).set(k())),
    );
    expect(statuses(pmDeletes).sort()).toEqual([204, ...Array(7).fill(404)]);
    const rs = await Promise.all([
      ...Array.from({ length: 8 }, () => t.http.delete(`${ws}/projects/${p.id}/`).set(k())),
      ...Array.from({ length: 8 }, (_, i) =>
        t.http
          .patch(`${ws}/projects/${p.id}/`)
          .set(k())
          .send({ name: `Renamed race ${i}` }),
      ),
    ]);
    expect(statuses(rs.slice(0, 8)).filter((s) => s === 204)).toHaveLength(1);
    for (const r of rs) expect([200, 204, 404]).toContain(r.status);
    const entries = await t.ds.query(
      `SELECT event_name FROM audit_logs WHERE target_id IN ($1, $2) AND event_name IN ('project.deleted', 'project_member.removed')`,
      [p.id, pm.id],
    );
    expect(entries.map((e: { event_name: string }) => e.event_name).sort()).toEqual([
      'project.deleted',
      'project_member.removed',
    ]);
  });

  it('deleting an estimate point or a type while work items are written with it leaves no live item linked to it', async () => {
    const p = await t.project(ten.slug, ten.owner.key);
    const pr = `${ws}/projects/${p.id}`;
    await t.http.patch(`${pr}/features/`).set(k()).send({ is_estimates_enabled: true });
    const est = (await t.http.post(`${pr}/estimates/`).set(k()).send({ name: 'Sizes', is_active: true })).body;
    expect((await t.http.post(`${pr}/work-item-types/enable/`).set(k())).status).toBe(200);
    for (let round = 0; round < 6; round++) {
      const pt = (
        await t.http
          .post(`${pr}/estimates/${est.id}/points/`)
          .set(k())
          .send({ value: `v${round}` })
      ).body;
      const type = (
        await t.http
          .post(`${pr}/work-item-types/`)
          .set(k())
          .send({ name: `Kind ${round}` })
      ).body;
      const existing = (await t.http.post(`${pr}/work-items/`).set(k()).send({ name: 'patched' })).body;
      const rs = await Promise.all([
        ...Array.from({ length: 6 }, (_, i) =>
          t.http
            .post(`${pr}/work-items/`)
            .set(k())
            .send({ name: `w${i}`, ...(i % 2 ? { estimate: `v${round}` } : { type_id: type.id }) }),
        ),
        t.http
          .patch(`${pr}/work-items/${existing.id}/`)
          .set(k())
          .send({ estimate_point_id: pt.id, type: `Kind ${round}` }),
        t.http.delete(`${pr}/estimates/${est.id}/points/${pt.id}/`).set(k()),
        t.http.delete(`${pr}/work-item-types/${type.id}/`).set(k()),
      ]);
      for (const r of rs) expect([200, 201, 204, 400, 409]).toContain(r.status);
      const [stale] = await t.ds.query(
        `SELECT count(*)::int AS n FROM work_items w
          WHERE w.project_id = $1 AND w.deleted_at IS NULL
            AND (EXISTS (SELECT 1 FROM estimate_points x WHERE x.id = w.estimate_point_id AND x.deleted_at IS NOT NULL)
              OR EXISTS (SELECT 1 FROM work_item_types x WHERE x.id = w.type_id AND x.deleted_at IS NOT NULL))`,
        [p.id],
      );
      expect(stale.n).toBe(0);
    }
  });

  it('deleting an option or detaching a property while values are written leaves no value of it behind', async () => {
    const p = await t.project(ten.slug, ten.owner.key);
    const pr = `${ws}/projects/${p.id}`;
    expect((await t.http.post(`${pr}/work-item-types/enable/`).set(k())).status).toBe(200);
    const type = (await t.http.post(`${pr}/work-item-types/`).set(k()).send({ name: 'Valued' })).body;
    for (let round = 0; round < 5; round++) {
      const prop = (
        await t.http
          .post(`${pr}/work-item-properties/`)
          .set(k())
          .send({
            display_name: `Colour ${round}`,
            property_type: 'OPTION',
            options: [{ name: 'red' }, { name: 'blue' }],
          })
      ).body;
      const note = (
        await t.http
          .post(`${pr}/work-item-properties/`)
          .set(k())
          .send({ display_name: `Note ${round}`, property_type: 'TEXT' })
      ).body;
      expect(
        (
          await t.http
            .post(`${pr}/work-item-types/${type.id}/properties/`)
            .set(k())
            .send({ properties: [prop.id, note.id] })
        ).status,
      ).toBe(201);
      const red = prop.options.find((o: { name: string }) => o.name === 'red').id;
      const rs = await Promise.all([
        ...Array.from({ length: 8 }, (_, i) =>
          t.http
            .post(`${pr}/work-items/`)
            .set(k())
            .send({ name: `v${i}`, type_id: type.id, custom_fields: { [prop.name]: red, [note.name]: 'kept?' } }),
        ),
        t.http.delete(`${pr}/work-item-properties/${prop.id}/options/${red}/`).set(k()),
        t.http.delete(`${pr}/work-item-types/${type.id}/properties/${note.id}/`).set(k()),
      ]);
      for (const r of rs) expect([201, 204, 400]).toContain(r.status);
      const [left] = await t.ds.query(
        `SELECT count(*)::int AS n FROM work_items WHERE project_id = $1 AND deleted_at IS NULL AND (custom_values ->> $2 = $3 OR custom_values ? $4)`,
        [p.id, prop.id, red, note.id],
      );
      expect(left.n).toBe(0);
    }
  });

  it('a create that names no state lands in the default even while the default moves and the old one is deleted', async () => {
    const p = await t.project(ten.slug, ten.owner.key);
    const pr = `${ws}/projects/${p.id}`;
    for (let round = 0; round < 5; round++) {
      const states = (await t.http.get(`${pr}/states/`).set(k())).body.data as Array<{
        id: string;
        is_default: boolean;
      }>;
      const old = states.find((s) => s.is_default)!;
      const next = (
        await t.http
          .post(`${pr}/states/`)
          .set(k())
          .send({ name: `Next ${round}`, color: '#123456' })
      ).body;
      const creates = Array.from({ length: 6 }, (_, i) =>
        t.http
          .post(`${pr}/work-items/`)
          .set(k())
          .send({ name: `d${i}` }),
      );
      const promote = t.http
        .patch(`${pr}/states/${next.id}/`)
        .set(k())
        .send({ is_default: true })
        .then(() => t.http.delete(`${pr}/states/${old.id}/`).set(k()));
      const rs = await Promise.all([...creates, promote]);
      for (const r of rs.slice(0, 6)) expect(r.status).toBe(201);
      expect([204, 409]).toContain(rs[6].status);
    }
  });

  it('a demotion to guest racing project role writes never leaves the guest above commenter', async () => {
    for (let round = 0; round < 6; round++) {
      const p = await t.project(ten.slug, ten.owner.key);
      const u = await t.member(ten.slug, 'member');
      const url = `${ws}/projects/${p.id}/members/`;
      const pm = (await t.http.post(url).set(k()).send({ member_id: u.id, role: 'commenter' })).body;
      const [wm] = await t.ds.query(
        `SELECT id FROM workspace_members WHERE workspace_id = $1 AND member_id = $2 AND deleted_at IS NULL`,
        [ten.workspaceId, u.id],
      );
      const rs = await Promise.all([
        t.http.patch(`${url}${pm.id}/`).set(k()).send({ role: 'contributor' }),
        t.http.patch(`${ws}/members/${wm.id}/`).set(k()).send({ role: 'guest' }),
        t.http.patch(`${url}${pm.id}/`).set(k()).send({ role: 'admin' }),
      ]);
      for (const r of rs) expect([200, 400, 403, 409]).toContain(r.status);
      const [row] = await t.ds.query(`SELECT role FROM project_members WHERE id = $1`, [pm.id]);
      const [ws2] = await t.ds.query(`SELECT role FROM workspace_members WHERE id = $1`, [wm.id]);
      if (ws2.role === 'guest') expect(['guest', 'commenter']).toContain(row.role);
    }
  });
  it('a type mode switch landing between the mode guard and a type write refuses the write (409), nothing written', async () => {
    const p = await t.project(ten.slug, ten.owner.key);
    const pr = `${ws}/projects/${p.id}`;
    expect((await t.http.get(`${ws}/features/`).set(k())).body.is_work_item_types_enabled).toBe(false);
    // Hold the features row as a switch does, let the write pass the guard (project mode), then switch the
    // mode in the held transaction: the write's in-transaction check must see workspace mode.
    const qr = t.ds.createQueryRunner();
    await qr.connect();
    await qr.startTransaction();
    try {
      await qr.query(`SELECT id FROM workspace_features WHERE workspace_id = $1 FOR UPDATE`, [ten.workspaceId]);
      const pending = t.http
        .post(`${pr}/work-item-types/`)
        .set(k())
        .send({ name: 'Raced kind' })
        .then((r) => r);
      await waitForLockWait(t.ds, '%FROM workspace_features%FOR SHARE%');
      await qr.query(`UPDATE workspace_features SET is_work_item_types_enabled = true WHERE workspace_id = $1`, [
        ten.workspaceId,
      ]);
      await qr.commitTransaction();
      expectProblem(await pending, 409, 'work_item_types_managed_at_workspace');
    } finally {
      if (qr.isTransactionActive) await qr.rollbackTransaction();
      await qr.release();
    }
    expect((await t.ds.query(`SELECT count(*)::int AS n FROM work_item_types WHERE name = 'Raced kind'`))[0].n).toBe(0);
    const trail = await t.ds.query(
      `SELECT reason, metadata FROM audit_logs WHERE workspace_id = $1 AND event_name = 'work_item_types.surface_conflict'`,
      [ten.workspaceId],
    );
    expect(trail).toEqual([
      expect.objectContaining({
        reason: 'work_item_types_managed_at_workspace',
        metadata: expect.objectContaining({ surface: 'project', mode: 'workspace' }),
      }),
    ]);
    await t.ds.query(`UPDATE workspace_features SET is_work_item_types_enabled = false WHERE workspace_id = $1`, [
      ten.workspaceId,
    ]);
  });

  it('a PATCH that PostgreSQL picks as a deadlock victim is run again and answers 200, not 409', async () => {
    const p = await t.project(ten.slug, ten.owner.key);
    const items = `${ws}/projects/${p.id}/work-items/`;
    const item = (
      await t.http
        .post(items)
        .set(k())
        .send({ name: 'victim', assignee_ids: [ten.owner.id] })
    ).body;
    const deadlocks = async (): Promise<number> =>
      (await t.ds.query(`SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()`))[0].n;
    const before = await deadlocks();
    const other = t.ds.createQueryRunner();
    await other.connect();
    try {
      // The other side holds the item's assignee link, which a priority PATCH rewrites after locking the item, then
      // asks for the item: a cycle. Its own deadlock check waits 30 s, so the PATCH's backend finds the cycle first.
      await other.query('BEGIN');
      await other.query(`SET LOCAL deadlock_timeout = '30s'`);
      await other.query(`SELECT 1 FROM work_item_assignees WHERE work_item_id = $1 FOR UPDATE`, [item.id]);
      const patch = t.http
        .patch(`${items}${item.id}/`)
        .set(k())
        .send({ priority: 'high' })
        .then((r) => r);
      await waitForLockWait(t.ds, '%jsonb_to_recordset%');
      await other.query(`UPDATE work_items SET name = 'other side' WHERE id = $1`, [item.id]);
      await other.query('COMMIT');
      const res = await patch;
      expect([res.status, res.body.priority, res.body.name]).toEqual([200, 'high', 'other side']);
    } finally {
      if (other.isTransactionActive) await other.query('ROLLBACK');
      await other.release();
    }
    // PostgreSQL did break a deadlock (its statistics arrive within a second or so).
    await waitFor('the deadlock in pg_stat_database', async () => (await deadlocks()) > before, 5_000);
  });
});
