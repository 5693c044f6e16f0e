import { WorkItemsRepository } from '../../src/work-items/work-items.repository';
import { createTestApp, Tenant, TestApp } from '../helpers/test-app';

/**
 * Offset pages start from remembered positions (OffsetAnchors) while the project's live set is unchanged. Whatever
 * happens between two requests (creates, archives, unarchives, deletes, edits, writes in plain SQL), every page
 * must be the slice of the whole list that its offset names.
 */
describe('work item offset pages through remembered positions', () => {
  let t: TestApp;
  let ten: Tenant;
  let pid: string;
  let base: string;
  let states: string[];
  const key = () => ({ 'X-Api-Key': ten.owner.key });
  const ORDERS: Record<string, string> = {
    '-created_at': 'created_at DESC, id DESC',
    created_at: 'created_at ASC, id ASC',
    sequence_id: 'sequence_id ASC',
    '-sequence_id': 'sequence_id DESC',
    id: 'id ASC',
    '-id': 'id DESC',
  };

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    pid = (await t.project(ten.slug, ten.owner.key, { identifier: 'OFA' })).id;
    base = `/api/v2/workspaces/${ten.slug}/projects/${pid}/work-items/`;
    states = (await t.http.get(`/api/v2/workspaces/${ten.slug}/projects/${pid}/states/`).set(key())).body.data.map(
      (s: { id: string }) => s.id,
    );
    for (let i = 0; i < 40; i++)
      expect(
        (
          await t.http
            .post(base)
            .set(key())
            .send({ name: `item ${i}` })
        ).status,
      ).toBe(201);
  });
  afterAll(() => t.close());

  const oracle = async (order: string): Promise<string[]> =>
    (
      await t.ds.query(
        `SELECT id FROM work_items WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL ORDER BY ${ORDERS[order]}`,
        [pid],
      )
    ).map((r: { id: string }) => r.id);
  const page = async (order: string, offset: number, perPage: number) => {
    const res = await t.http.get(`${base}?order_by=${order}&offset=${offset}&per_page=${perPage}`).set(key());
    expect(res.status).toBe(200);
    return res.body;
  };
  /** Reads pages at these offsets (twice each: the second from the remembered position) against the whole list. */
  async function check(order: string, offsets: number[], perPage: number): Promise<void> {
    const all = await oracle(order);
    for (const offset of offsets) {
      for (let k = 0; k < 2; k++) {
        const body = await page(order, offset, perPage);
        const want = all.slice(offset, offset + perPage);
        expect({ order, offset, ids: body.data.map((x: { id: string }) => x.id) }).toEqual({
          order,
          offset,
          ids: want,
        });
        expect(body.total_count).toBe(all.length);
        expect(body.next).toBe(offset + perPage < all.length ? offset + perPage : null);
      }
    }
  }

  it('match the whole list after every kind of change, in every ordering that uses them', async () => {
    const anchors = (t.app.get<unknown>(WorkItemsRepository) as { anchors: { anchors: Map<string, unknown> } }).anchors
      .anchors;
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const live = async () => await oracle('-created_at');
    for (let round = 0; round < 30; round++) {
      const ids = await live();
      const victim = ids[rnd(ids.length)];
      switch (round % 8) {
        case 0:
          expect(
            (
              await t.http
                .post(base)
                .set(key())
                .send({ name: `new ${round}` })
            ).status,
          ).toBe(201);
          break;
        case 1:
          expect((await t.http.post(`${base}${victim}/archive/`).set(key())).status).toBe(200);
          break;
        case 2: {
          const [archived] = await t.ds.query(
            `SELECT id FROM work_items WHERE project_id = $1 AND archived_at IS NOT NULL AND deleted_at IS NULL LIMIT 1`,
            [pid],
          );
          if (archived) expect((await t.http.post(`${base}${archived.id}/unarchive/`).set(key())).status).toBe(200);
          break;
        }
        case 3:
          expect((await t.http.delete(`${base}${victim}/`).set(key())).status).toBe(204);
          break;
        case 4:
          // Edits that move nothing in these orderings.
          expect(
            (
              await t.http
                .patch(`${base}${victim}/`)
                .set(key())
                .send({ name: `renamed ${round}`, priority: 'high', state_id: states[round % states.length] })
            ).status,
          ).toBe(200);
          break;
        case 5:
          await t.ds.query(
            `INSERT INTO work_items (workspace_id, project_id, name, state_id) SELECT w.workspace_id, w.project_id, 'sql ' || g, w.state_id FROM work_items w, generate_series(1, 3) g WHERE w.id = $1`,
            [victim],
          );
          break;
        case 6:
          // created_at rewritten: the item moves in created_at order.
          await t.ds.query(`UPDATE work_items SET created_at = created_at - interval '1 day' WHERE id = $1`, [victim]);
          break;
        case 7:
          await t.ds.query(`UPDATE work_items SET deleted_at = now() WHERE id = $1`, [victim]);
          break;
      }
      const order = Object.keys(ORDERS)[round % 6];
      const n = (await live()).length;
      await check(order, [5, 10, 15, n - 3, n + 2, 1, 20], 5);
      // A client paging through the whole list by offset.
      await check(
        order,
        Array.from({ length: Math.ceil(n / 7) }, (_, i) => i * 7),
        7,
      );
    }
    expect(anchors.size).toBeGreaterThan(0);
  });

  it('are not used where a filter or search could move rows (their pages still match)', async () => {
    const all = (
      await t.ds.query(
        `SELECT id FROM work_items WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL AND priority = 'high' ORDER BY created_at DESC, id DESC`,
        [pid],
      )
    ).map((r: { id: string }) => r.id);
    const first = await t.http.get(`${base}?priority=high&offset=1&per_page=2`).set(key());
    expect(first.body.data.map((x: { id: string }) => x.id)).toEqual(all.slice(1, 3));
    const [x] = await t.ds.query(`SELECT id FROM work_items WHERE id = $1`, [all[0]]);
    expect((await t.http.patch(`${base}${x.id}/`).set(key()).send({ priority: 'low' })).status).toBe(200);
    const again = await t.http.get(`${base}?priority=high&offset=1&per_page=2`).set(key());
    expect(again.body.data.map((y: { id: string }) => y.id)).toEqual(all.slice(2, 4));

    // One assignee's items (the link-driven list): assignments change without touching the project's live set.
    const me = ten.owner.id;
    const mine = async () =>
      (
        await t.ds.query(
          `SELECT w.id FROM work_items w JOIN work_item_assignees a ON a.work_item_id = w.id AND a.assignee_id = $2
          WHERE w.project_id = $1 AND w.deleted_at IS NULL AND w.archived_at IS NULL ORDER BY w.created_at DESC, w.id DESC`,
          [pid, me],
        )
      ).map((r: { id: string }) => r.id);
    const ids: string[] = (
      await t.ds.query(
        `SELECT id FROM work_items WHERE project_id = $1 AND deleted_at IS NULL AND archived_at IS NULL ORDER BY created_at DESC LIMIT 6`,
        [pid],
      )
    ).map((r: { id: string }) => r.id);
    for (const id of ids)
      expect(
        (
          await t.http
            .patch(`${base}${id}/`)
            .set(key())
            .send({ assignee_ids: [me] })
        ).status,
      ).toBe(200);
    const before = await mine();
    expect(
      (await t.http.get(`${base}?assignee_id=${me}&offset=2&per_page=2`).set(key())).body.data.map(
        (y: { id: string }) => y.id,
      ),
    ).toEqual(before.slice(2, 4));
    expect((await t.http.patch(`${base}${before[0]}/`).set(key()).send({ assignee_ids: [] })).status).toBe(200);
    const after = await mine();
    expect(
      (await t.http.get(`${base}?assignee_id=${me}&offset=2&per_page=2`).set(key())).body.data.map(
        (y: { id: string }) => y.id,
      ),
    ).toEqual(after.slice(2, 4));
  });
});
