import { Tenant, TestApp } from './test-app';

/** One audit log entry as the API returns it. */
export type AuditEntry = Record<string, any>;

/** Who reads: a workspace slug and the API key of one of its owners or admins. A `Tenant` reads as its owner. */
export type AuditReader = Tenant | { slug: string; key: string };

/**
 * Every entry of the workspace's trail matching `filters` (the list's query parameters, e.g.
 * `{ event_name: 'member.added' }`), read through `GET /api/v2/workspaces/{slug}/audit-logs/` as the spec's
 * export procedure does: cursor mode, 200 per page, `order_by=created_at` (commit order), following
 * `next_cursor` while `has_more`. Audit tests read entries here, never from the table, so that what they
 * assert is what a client sees (mapping, filters, aggregation counters).
 */
export async function auditEntries(
  t: TestApp,
  reader: AuditReader,
  filters: Record<string, string> = {},
): Promise<AuditEntry[]> {
  const key = 'owner' in reader ? reader.owner.key : reader.key;
  const out: AuditEntry[] = [];
  let cursor: string | null = null;
  for (;;) {
    const q: URLSearchParams = new URLSearchParams({
      paginate: 'cursor',
      per_page: '200',
      order_by: 'created_at',
      ...filters,
      ...(cursor ? { cursor } : {}),
    });
    const res: { status: number; body: any } = await t.http
      .get(`/api/v2/workspaces/${reader.slug}/audit-logs/?${q}`)
      .set('X-Api-Key', key);
    if (res.status !== 200) throw new Error(`audit list failed: ${res.status} ${JSON.stringify(res.body)}`);
    out.push(...res.body.data);
    if (!res.body.has_more) return out;
    cursor = res.body.next_cursor;
  }
}
