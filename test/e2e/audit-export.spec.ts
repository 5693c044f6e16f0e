import { randomUUID } from 'node:crypto';
import { AuditService, SYSTEM_ACTOR } from '../../src/audit/audit.service';
import { createTestApp, Tenant, TestApp } from '../helpers/test-app';

type Entry = Record<string, any>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SEEDED = 10_050; // past the offset ceiling of 10000

/**
 * The spec's export procedure (paginate=cursor, per_page=200, order_by=created_at, follow next_cursor, key on
 * event_id, resume with created_after) against a workspace that other clients keep writing to, with
 * transactions that commit late and transactions that roll back.
 */
describe('audit export under concurrent writes', () => {
  let t: TestApp;
  let ten: Tenant;
  let audit: AuditService;

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    audit = t.app.get(AuditService);
    await t.ds.query(
      `INSERT INTO audit_logs (event_id, event_name, category, outcome, source, actor_type, target_type, target_id, workspace_id)
       SELECT gen_random_uuid(), 'export.seeded', 'settings', 'success', 'system', 'system', 'seed', i::text, $1
         FROM generate_series(1, ${SEEDED}) i`,
      [ten.workspaceId],
    );
  });
  afterAll(() => t.close());

  interface Page {
    data: Entry[];
    has_more: boolean;
    next_cursor: string | null;
  }
  const page = async (query: Record<string, string>): Promise<Page> => {
    const res = await t.http
      .get(`/api/v2/workspaces/${ten.slug}/audit-logs/?${new URLSearchParams(query)}`)
      .set('X-Api-Key', ten.owner.key);
    if (res.status !== 200) throw new Error(`export page failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  /** One walk: follows next_cursor until has_more is false. Returns the entries and when the last request started. */
  async function walk(
    createdAfter: string | null,
  ): Promise<{ entries: Entry[]; lastRequestAt: number; pages: number }> {
    const base: Record<string, string> = {
      paginate: 'cursor',
      per_page: '200',
      order_by: 'created_at',
      ...(createdAfter ? { created_after: createdAfter } : {}),
    };
    const entries: Entry[] = [];
    let cursor: string | null = null;
    let pages = 0;
    for (;;) {
      const lastRequestAt = Date.now();
      const p = await page(cursor ? { ...base, cursor } : base);
      pages++;
      entries.push(...p.data);
      if (!p.has_more) return { entries, lastRequestAt, pages };
      cursor = p.next_cursor;
    }
  }

  it('returns every committed entry exactly once (keyed on event_id), never a rolled-back one, while others write', async () => {
    const committedAt = new Map<string, number>(); // event_id -> when its COMMIT returned
    const rolledBack = new Set<string>();
    let stop = false;
    let n = 0;
    const record = (tx: Parameters<AuditService['record']>[0], eventId: string, style: string) =>
      audit.record(tx, SYSTEM_ACTOR, {
        event_id: eventId,
        event_name: 'export.concurrent',
        category: 'settings',
        workspace_id: ten.workspaceId,
        target_type: 'writer',
        target_id: String(n++),
        metadata: { style },
      });
    const writer = async (w: number) => {
      while (!stop) {
        const eventId = randomUUID();
        const style = ['late_commit', 'early_start', 'rollback', 'plain'][(w + n) % 4];
        try {
          await t.ds.transaction(async (tx) => {
            if (style === 'early_start') {
              // The transaction starts (now()) well before it records: created_at is the time it recorded.
              await tx.query('SELECT now()');
              await sleep(Math.random() * 20);
            }
            await record(tx, eventId, style);
            if (style === 'late_commit') await sleep(Math.random() * 20); // holds the entry uncommitted
            if (style === 'rollback') throw new Error('rolled back on purpose');
          });
          committedAt.set(eventId, Date.now());
        } catch (err) {
          if ((err as Error).message !== 'rolled back on purpose') throw err;
          rolledBack.add(eventId);
        }
        await sleep(Math.random() * 5);
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    try {
      // First full walk while the writers run: nothing committed before its last request may be missing.
      const first = await walk(null);
      expect(first.pages).toBeGreaterThan(SEEDED / 200);
      const ids = first.entries.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length); // no repeats inside a walk
      const times = first.entries.map((e) => e.created_at);
      expect(times).toEqual([...times].sort()); // ascending
      expect(new Set(times).size).toBe(times.length);
      const inFirst = new Set(first.entries.map((e) => e.event_id));
      const committedBeforeEnd = [...committedAt].filter(([, at]) => at < first.lastRequestAt).map(([id]) => id);
      expect(committedBeforeEnd.length).toBeGreaterThan(0);
      expect(committedBeforeEnd.filter((id) => !inFirst.has(id))).toEqual([]);
      expect(first.entries.filter((e) => e.event_name === 'export.seeded')).toHaveLength(SEEDED);

      // Incremental exports: resume with created_after = the last stored created_at, keyed on event_id.
      const store = new Map<string, Entry>(first.entries.map((e) => [e.event_id, e]));
      let last = times[times.length - 1];
      let resumes = 0;
      const resume = async () => {
        const r = await walk(last);
        resumes++;
        for (const e of r.entries) {
          // The only overlap is the boundary entry itself (created_at is unique within the workspace).
          if (store.has(e.event_id)) expect(e.created_at).toBe(last);
          store.set(e.event_id, e);
        }
        if (r.entries.length) last = r.entries[r.entries.length - 1].created_at;
      };
      const until = Date.now() + 1500;
      while (Date.now() < until) {
        await resume();
        await sleep(50);
      }
      stop = true;
      await Promise.all(writers);
      await resume();

      const inDb: Array<{ event_id: string }> = await t.ds.query(
        `SELECT event_id FROM audit_logs WHERE workspace_id = $1`,
        [ten.workspaceId],
      );
      expect(rolledBack.size).toBeGreaterThan(0);
      expect(committedAt.size).toBeGreaterThan(20);
      expect(resumes).toBeGreaterThan(3);
      expect(store.size).toBe(inDb.length);
      expect(inDb.every((r) => store.has(r.event_id))).toBe(true);
      expect([...committedAt.keys()].every((id) => store.has(id))).toBe(true);
      expect([...rolledBack].some((id) => store.has(id))).toBe(false);
    } finally {
      stop = true;
      await Promise.allSettled(writers);
    }
  });

  it('descending cursor walks reach the oldest entry without an offset ceiling', async () => {
    let cursor: string | null = null;
    let count = 0;
    let prev: string | null = null;
    for (;;) {
      const p = await page({
        paginate: 'cursor',
        per_page: '200',
        order_by: '-id',
        event_name: 'export.seeded',
        ...(cursor ? { cursor } : {}),
      });
      for (const e of p.data) {
        if (prev) expect(e.id < prev).toBe(true);
        prev = e.id;
      }
      count += p.data.length;
      if (!p.has_more) break;
      cursor = p.next_cursor;
    }
    expect(count).toBe(SEEDED);
  });
});
