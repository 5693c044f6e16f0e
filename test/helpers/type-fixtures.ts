import type request from 'supertest';
import { AuditEntry, AuditReader, auditEntries } from './audit';
import { Tenant, TestApp } from './test-app';

/** Small helpers for the work item type / property / context specs. */
export function typeApi(t: TestApp, ten: Tenant, key = ten.owner.key) {
  const ws = `/api/v2/workspaces/${ten.slug}`;
  const h = { 'X-Api-Key': key };
  return {
    ws,
    pr: (projectId: string) => `${ws}/projects/${projectId}`,
    get: (url: string) => t.http.get(url).set(h),
    post: (url: string, body?: unknown) =>
      body === undefined
        ? t.http.post(url).set(h)
        : t.http
            .post(url)
            .set(h)
            .send(body as object),
    patch: (url: string, body: unknown) =>
      t.http
        .patch(url)
        .set(h)
        .send(body as object),
    del: (url: string) => t.http.delete(url).set(h),
    /** A new user holding `role` in the project (workspace member, or guest for project guests). */
    async projectMember(projectId: string, role: string): Promise<{ id: string; email: string; key: string }> {
      const u = await t.member(ten.slug, role === 'guest' ? 'guest' : 'member');
      const res = await t.http
        .post(`${ws}/projects/${projectId}/members/`)
        .set({ 'X-Api-Key': ten.owner.key })
        .send({ member_id: u.id, role });
      if (res.status !== 201) throw new Error(`project member add failed: ${res.status} ${JSON.stringify(res.body)}`);
      return u;
    },
    /** Switches the work item type mode through the features endpoint (true = workspace mode). */
    async mode(workspace: boolean): Promise<void> {
      const res = await t.http
        .patch(`${ws}/features/`)
        .set({ 'X-Api-Key': ten.owner.key })
        .send({ is_work_item_types_enabled: workspace });
      if (res.status !== 200) throw new Error(`mode switch failed: ${res.status} ${JSON.stringify(res.body)}`);
    },
  };
}

export function ok(res: request.Response, status = 200): Record<string, any> {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The workspace's entries named `eventName`, in commit order, read through the audit-log API (as its owner). */
export function audits(t: TestApp, reader: AuditReader, eventName: string): Promise<AuditEntry[]> {
  return auditEntries(t, reader, { event_name: eventName });
}
