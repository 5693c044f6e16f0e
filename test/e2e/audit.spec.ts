import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { AUDIT_EVENT_CATALOGUE } from '../../src/audit/audit-events';
import { AuditService } from '../../src/audit/audit.service';
import { AuditEntry as Entry, auditEntries } from '../helpers/audit';
import { DIST_CLI, ensureBuilt, ROOT } from '../helpers/build';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

type Inject = (opts: {
  method: string;
  url: string;
  remoteAddress?: string;
  headers?: Record<string, string>;
}) => Promise<{ statusCode: number; json: () => any }>;
const injector = (app: NestFastifyApplication): Inject => {
  const f = app.getHttpAdapter().getInstance() as unknown as { inject: Inject };
  return (o) => f.inject(o);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sum of occurrences over the (at most two, at a window boundary) aggregated entries of one failure. */
const occurrences = (rows: Entry[]) => rows.reduce((n, r) => n + (r.metadata.aggregation?.occurrences ?? 1), 0);

describe('audit trail', () => {
  let t: TestApp;
  let ten: Tenant;
  let base: string;
  const owner = () => ({ 'X-Api-Key': ten.owner.key });
  const list = (query: Record<string, string> = {}) => auditEntries(t, ten, query);

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    base = `/api/v2/workspaces/${ten.slug}/audit-logs/`;
  });
  afterAll(() => t.close());

  describe('access', () => {
    it('is open to owners and admins, with the offset envelope and -created_at by default', async () => {
      const admin = await t.member(ten.slug, 'admin');
      for (const key of [ten.owner.key, admin.key]) {
        const res = await t.http.get(base).set('X-Api-Key', key);
        expect(res.status).toBe(200);
        expect(res.body.pagination).toEqual({ style: 'offset' });
        expect(res.body.total_count).toBeGreaterThan(0);
        const times = res.body.data.map((e: Entry) => e.created_at);
        expect(times).toEqual([...times].sort().reverse());
      }
    });

    it('is 403 forbidden for members and guests, and the denial is itself recorded', async () => {
      const member = await t.member(ten.slug, 'member');
      const guest = await t.member(ten.slug, 'guest');
      expectProblem(await t.http.get(base).set('X-Api-Key', member.key), 403, 'forbidden');
      expectProblem(await t.http.get(base).set('X-Api-Key', guest.key), 403, 'forbidden');
      const [e] = await list({ event_name: 'permission.denied', actor_id: member.id });
      expect(e).toMatchObject({
        category: 'security',
        outcome: 'failure',
        source: 'api',
        actor_type: 'api_token',
        actor_id: member.id,
        actor_email: member.email,
        target_type: 'route',
        target_id: 'GET /api/v2/workspaces/{slug}/audit-logs/',
        reason: 'insufficient_role',
        ip_address: '127.0.0.1',
        metadata: expect.objectContaining({ required: 'workspace:admin', workspace_role: 'member' }),
      });
    });

    it('needs the workspaces.audit_logs:read scope on OAuth tokens (or the global read tier)', async () => {
      const other = await t.token(ten.owner.email, ['workspaces.members:read']);
      const res = await t.http.get(base).set('Authorization', `Bearer ${other}`);
      expectProblem(res, 403, 'forbidden');
      const [denied] = await list({ event_name: 'permission.denied', actor_id: ten.owner.id, search: 'audit-logs' });
      expect(denied).toMatchObject({
        actor_type: 'user',
        reason: 'insufficient_scope',
        metadata: expect.objectContaining({
          required: 'workspaces.audit_logs:read',
          scopes: ['workspaces.members:read'],
        }),
      });
      for (const scopes of [['workspaces.audit_logs:read'], ['read']]) {
        const tok = await t.token(ten.owner.email, scopes);
        expect((await t.http.get(base).set('Authorization', `Bearer ${tok}`)).status).toBe(200);
      }
    });

    it('is 404 for another workspace, for its entries, and for an event_id; 400 for a malformed pk', async () => {
      const other = await t.tenant();
      expectProblem(
        await t.http.get(`/api/v2/workspaces/${other.slug}/audit-logs/`).set(owner()),
        404,
        'resource_not_found',
      );
      const [foreign] = await auditEntries(t, other);
      expectProblem(await t.http.get(`${base}${foreign.id}/`).set(owner()), 404, 'resource_not_found');
      const [mine] = await list();
      const got = await t.http.get(`${base}${mine.id}/`).set(owner());
      expect(got.status).toBe(200);
      expect(got.body).toEqual(mine);
      expectProblem(await t.http.get(`${base}${mine.event_id}/`).set(owner()), 404, 'resource_not_found');
      expectProblem(await t.http.get(`${base}not-a-uuid/`).set(owner()), 400, 'validation_error');
    });

    it('is read-only: no write method on the API, and the database refuses UPDATE, DELETE and TRUNCATE', async () => {
      expectProblem(await t.http.post(base).set(owner()).send({}), 405, 'method_not_allowed');
      const [e] = await list();
      expectProblem(await t.http.delete(`${base}${e.id}/`).set(owner()), 405, 'method_not_allowed');
      expectProblem(await t.http.patch(`${base}${e.id}/`).set(owner()).send({}), 405, 'method_not_allowed');
      await expect(t.ds.query(`UPDATE audit_logs SET reason = 'x' WHERE id = $1`, [e.id])).rejects.toThrow(
        /append-only/,
      );
      await expect(t.ds.query(`DELETE FROM audit_logs WHERE id = $1`, [e.id])).rejects.toThrow(/append-only/);
      await expect(t.ds.query(`TRUNCATE audit_logs`)).rejects.toThrow(/append-only/);
      expect((await t.http.get(`${base}${e.id}/`).set(owner())).body).toEqual(e);
    });
  });

  describe('events', () => {
    it('member.added (admin CLI): source admin, system actor, new role', async () => {
      const u = await t.member(ten.slug, 'member');
      const rows = await list({ event_name: 'member.added' });
      const [e] = rows.filter((r) => r.metadata.member_id === u.id);
      expect(e).toMatchObject({
        category: 'member',
        outcome: 'success',
        source: 'admin',
        actor_type: 'system',
        actor_id: null,
        target_type: 'workspace_member',
        new_value: { role: 'member' },
        old_value: null,
        ip_address: '',
        workspace_id: ten.workspaceId,
      });
    });

    it('member.role_updated (API and CLI): old and new role, actor snapshot', async () => {
      const u = await t.member(ten.slug, 'member');
      const row = (await t.http.get(`/api/v2/workspaces/${ten.slug}/members/?member_id=${u.id}`).set(owner())).body
        .data[0];
      expect(
        (
          await t.http
            .patch(`/api/v2/workspaces/${ten.slug}/members/${row.id}/`)
            .set(owner())
            .set('User-Agent', 'audit-test/1')
            .send({ role: 'admin' })
        ).status,
      ).toBe(200);
      await t.admin.addMember(ten.slug, u.email, 'member'); // CLI: back to member
      const rows = await list({ event_name: 'member.role_updated', target_id: row.id });
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatchObject({
        category: 'member',
        outcome: 'success',
        source: 'api',
        actor_type: 'api_token',
        actor_id: ten.owner.id,
        actor_email: ten.owner.email,
        actor_display_name: 'Test User',
        target_type: 'workspace_member',
        old_value: { role: 'member' },
        new_value: { role: 'admin' },
        ip_address: '127.0.0.1',
        user_agent: 'audit-test/1',
      });
      expect(rows[1]).toMatchObject({
        source: 'admin',
        actor_type: 'system',
        actor_id: null,
        old_value: { role: 'admin' },
        new_value: { role: 'member' },
      });
    });

    it('project_member.added, .role_updated and .removed with project_id and roles', async () => {
      const u = await t.member(ten.slug, 'member');
      const p = await t.project(ten.slug, ten.owner.key);
      const url = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/members/`;
      const id = (await t.http.post(url).set(owner()).send({ member_id: u.id, role: 'commenter' })).body.id;
      await t.http.patch(`${url}${id}/`).set(owner()).send({ role: 'contributor' });
      expect((await t.http.delete(`${url}${id}/`).set(owner())).status).toBe(204);
      const rows = await list({ target_type: 'project_member', target_id: id });
      expect(rows.map((r) => [r.event_name, r.old_value, r.new_value])).toEqual([
        ['project_member.added', null, { role: 'commenter' }],
        ['project_member.role_updated', { role: 'commenter' }, { role: 'contributor' }],
        ['project_member.removed', { role: 'contributor' }, null],
      ]);
      for (const r of rows)
        expect(r).toMatchObject({
          category: 'member',
          project_id: p.id,
          actor_id: ten.owner.id,
          metadata: { member_id: u.id },
        });
    });

    it('api_key.created and api_key.revoked are recorded in every workspace of the key owner, never with the secret', async () => {
      const second = await t.tenant();
      const u = await t.member(ten.slug, 'member');
      await t.admin.addMember(second.slug, u.email, 'guest');
      const key = await t.admin.createApiKey(u.email, 'ci key');
      await t.admin.revokeApiKey(key.id);
      for (const [slug, k] of [
        [ten.slug, ten.owner.key],
        [second.slug, second.owner.key],
      ]) {
        const rows = await auditEntries(t, { slug, key: k }, { target_type: 'api_key', target_id: key.id });
        expect(rows.map((r) => r.event_name)).toEqual(['api_key.created', 'api_key.revoked']);
        expect(rows[0]).toMatchObject({
          category: 'auth',
          outcome: 'success',
          source: 'admin',
          actor_type: 'system',
          target_display_name: 'ci key',
          new_value: { id: key.id, user_id: u.id, label: 'ci key', key_prefix: key.key.slice(0, 12), expires_at: null },
          metadata: expect.objectContaining({ user_id: u.id, user_email: u.email, scope: 'user' }),
        });
        expect(rows[1]).toMatchObject({
          old_value: { revoked_at: null },
          new_value: { revoked_at: expect.any(String) },
        });
        expect(JSON.stringify(rows)).not.toContain(key.key);
      }
    });

    it('token.issued with its scopes and expiry, never the token', async () => {
      const u = await t.member(ten.slug, 'admin');
      const token = await t.token(u.email, ['workspaces.audit_logs:read', 'read']);
      const [e] = (await list({ event_name: 'token.issued' })).filter((r) => r.metadata.user_id === u.id);
      expect(e).toMatchObject({
        category: 'auth',
        outcome: 'success',
        source: 'admin',
        actor_type: 'system',
        actor_id: null,
        target_type: 'oauth_token',
        old_value: null,
        new_value: { user_id: u.id, scopes: ['workspaces.audit_logs:read', 'read'], expires_at: expect.any(String) },
        metadata: expect.objectContaining({ user_id: u.id }),
      });
      expect(JSON.stringify(e)).not.toContain(token);
      expect(e.target_id).toBe(e.new_value.id);
    });

    it('auth.failed on a workspace path: anonymous, with the reason; an unknown slug records nothing', async () => {
      const inject = injector(t.app);
      const url = `/api/v2/workspaces/${ten.slug}/members/`;
      expect(
        (await inject({ method: 'GET', url, remoteAddress: '198.51.100.7', headers: { 'user-agent': 'prober' } }))
          .statusCode,
      ).toBe(401);
      expect(
        (await inject({ method: 'GET', url, remoteAddress: '198.51.100.7', headers: { 'x-api-key': 'wt_api_wrong' } }))
          .statusCode,
      ).toBe(401);
      const rows = await list({ event_name: 'auth.failed', ip_address: '198.51.100.7' });
      expect(rows.map((r) => r.reason)).toEqual(['missing_credentials', 'invalid_credentials']);
      expect(rows[0]).toMatchObject({
        category: 'auth',
        outcome: 'failure',
        source: 'api',
        actor_type: 'anonymous',
        actor_id: null,
        actor_email: '',
        target_type: 'workspace',
        target_id: ten.workspaceId,
        user_agent: 'prober',
        metadata: expect.objectContaining({
          credential: 'none',
          method: 'GET',
          path: url,
          aggregation: expect.objectContaining({ occurrences: 1 }),
        }),
      });
      expect(rows[1].metadata.credential).toBe('api_key');
      expect(JSON.stringify(rows[1])).not.toContain('wt_api_wrong');

      const before = (await t.ds.query(`SELECT count(*)::int AS c FROM audit_logs`))[0].c;
      expect(
        (
          await inject({
            method: 'GET',
            url: '/api/v2/workspaces/no-such-workspace/members/',
            remoteAddress: '198.51.100.8',
          })
        ).statusCode,
      ).toBe(401);
      expect(
        (await inject({ method: 'GET', url: '/api/v2/users/me/', remoteAddress: '198.51.100.8' })).statusCode,
      ).toBe(401);
      await t.app.get(AuditService).flushAggregates();
      expect((await t.ds.query(`SELECT count(*)::int AS c FROM audit_logs`))[0].c).toBe(before);
    });

    it('a slug unknown at one request and created just after: its next 401 is recorded (unknown slugs are not cached)', async () => {
      const inject = injector(t.app);
      const slug = `late-${Date.now().toString(36)}`;
      const url = `/api/v2/workspaces/${slug}/members/`;
      expect((await inject({ method: 'GET', url, remoteAddress: '198.51.100.21' })).statusCode).toBe(401);
      const late = await t.tenant(slug);
      expect(
        (await inject({ method: 'GET', url, remoteAddress: '198.51.100.21', headers: { 'x-api-key': 'wt_api_wrong' } }))
          .statusCode,
      ).toBe(401);
      const rows = await auditEntries(t, late, { event_name: 'auth.failed' });
      expect(rows.map((r) => [r.reason, r.ip_address])).toEqual([['invalid_credentials', '198.51.100.21']]);
    });

    it('permission.denied for a 403 raised by a service (role hierarchy), with the problem code as reason', async () => {
      const admin = await t.member(ten.slug, 'admin');
      const ownerRow = (
        await t.http.get(`/api/v2/workspaces/${ten.slug}/members/?member_id=${ten.owner.id}`).set(owner())
      ).body.data[0];
      expectProblem(
        await t.http
          .patch(`/api/v2/workspaces/${ten.slug}/members/${ownerRow.id}/`)
          .set('X-Api-Key', admin.key)
          .send({ role: 'member' }),
        403,
        'forbidden',
      );
      const [e] = await list({ event_name: 'permission.denied', actor_id: admin.id });
      expect(e).toMatchObject({
        category: 'security',
        outcome: 'failure',
        reason: 'forbidden',
        target_type: 'route',
        target_id: 'PATCH /api/v2/workspaces/{slug}/members/{pk}/',
        metadata: expect.objectContaining({
          workspace_role: 'admin',
          path: `/api/v2/workspaces/${ten.slug}/members/${ownerRow.id}/`,
          detail: expect.any(String),
        }),
      });
      // The refused change left the owner's role and wrote no member.role_updated.
      expect(await list({ event_name: 'member.role_updated', target_id: ownerRow.id })).toEqual([]);
    });
    it('permission.denied for a 403 workflow_transition_denied (work item created in a state the workflow closes)', async () => {
      const p = await t.project(ten.slug, ten.owner.key);
      const proj = `/api/v2/workspaces/${ten.slug}/projects/${p.id}`;
      const states = (await t.http.get(`${proj}/states/?per_page=200`).set(owner())).body.data as Entry[];
      const backlog = states.find((x) => x.name === 'Backlog')!;
      expect((await t.http.patch(`${proj}/features/`).set(owner()).send({ is_workflow_enabled: true })).status).toBe(
        200,
      );
      const wf = await t.http.post(`${proj}/workflows/`).set(owner()).send({ name: 'Closed backlog', is_active: true });
      expect(
        (
          await t.http
            .post(`${proj}/workflows/${wf.body.id}/states/`)
            .set(owner())
            .send({ state_id: backlog.id, allow_issue_creation: false })
        ).status,
      ).toBe(201);
      expectProblem(
        await t.http.post(`${proj}/work-items/`).set(owner()).send({ name: 'x', state_id: backlog.id }),
        403,
        'workflow_transition_denied',
      );
      const rows = (await list({ event_name: 'permission.denied', actor_id: ten.owner.id })).filter(
        (e) => e.project_id === p.id,
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        category: 'security',
        outcome: 'failure',
        reason: 'workflow_transition_denied',
        target_type: 'route',
        target_id: 'POST /api/v2/workspaces/{slug}/projects/{project_id}/work-items/',
        metadata: expect.objectContaining({ detail: expect.any(String), project_role: 'admin' }),
      });
    });
  });

  describe('instance trail: credentials of a user in no workspace', () => {
    /** The admin CLI as an operator runs it (`node dist/src/cli.js`), against this test's database. */
    let cli: (...args: string[]) => Promise<Record<string, any>>;
    beforeAll(() => {
      ensureBuilt();
      const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: t.dbUrl, LOG_LEVEL: 'error' };
      delete env.REDIS_URL;
      cli = (...args) =>
        new Promise((res, rej) => {
          execFile('node', [DIST_CLI, ...args], { cwd: ROOT, env, timeout: 60_000 }, (err, stdout, stderr) =>
            err ? rej(new Error(`cli ${args.join(' ')}: ${stderr}`)) : res(JSON.parse(stdout)),
          );
        });
    }, 180_000);

    /** The instance trail has no API route (the spec's trail is per workspace; operators read it with `audit list --instance`): the raw rows. */
    const instanceEntries = (userId: string): Promise<Entry[]> =>
      t.ds.query(
        `SELECT * FROM audit_logs WHERE workspace_id IS NULL AND metadata->>'user_id' = $1 ORDER BY created_at, id`,
        [userId],
      );

    it('user create, api-key create and token create through the CLI each leave one entry; later events reach the workspace through the API', async () => {
      const email = `lone-${Date.now()}@example.com`;
      const user = await cli('user', 'create', '--email', email, '--display-name', 'Lone Operator');
      const key = await cli('api-key', 'create', '--email', email, '--label', 'lone key');
      const token = await cli('token', 'create', '--email', email, '--scopes', 'workspaces.members:read');

      const lone = await instanceEntries(user.id);
      expect(lone.map((e) => e.event_name)).toEqual(['api_key.created', 'token.issued']);
      const common = {
        category: 'auth',
        outcome: 'success',
        source: 'admin',
        actor_type: 'system',
        actor_id: null,
        workspace_id: null,
        project_id: null,
        metadata: { user_id: user.id, user_email: email, user_display_name: 'Lone Operator', scope: 'user' },
      };
      expect(lone[0]).toMatchObject({
        ...common,
        target_type: 'api_key',
        target_id: key.id,
        old_value: null,
        new_value: {
          id: key.id,
          user_id: user.id,
          label: 'lone key',
          key_prefix: key.key.slice(0, 12),
          expires_at: null,
        },
      });
      expect(lone[1]).toMatchObject({
        ...common,
        target_type: 'oauth_token',
        new_value: { user_id: user.id, scopes: ['workspaces.members:read'] },
      });
      expect(lone[1].target_id).toBe(lone[1].new_value.id);
      expect(Number(lone[1].sequence_number)).toBeGreaterThan(Number(lone[0].sequence_number));
      expect(JSON.stringify(lone)).not.toContain(key.key);
      expect(JSON.stringify(lone)).not.toContain(token.access_token);

      // Through the API: the credentials work, and no workspace trail holds the instance entries.
      expect((await t.http.get('/api/v2/users/me/').set('X-Api-Key', key.key)).body.id).toBe(user.id);
      expect((await t.http.get('/api/v2/users/me/').set('Authorization', `Bearer ${token.access_token}`)).body.id).toBe(
        user.id,
      );
      expect(await list({ target_id: key.id })).toEqual([]);

      // Once a member, the user's credential events are the workspace's: the revocation is read through the API.
      await cli('member', 'add', '--workspace', ten.slug, '--email', email, '--role', 'member');
      await cli('api-key', 'revoke', '--id', key.id);
      const inWorkspace = await list({ target_type: 'api_key', target_id: key.id });
      expect(inWorkspace).toHaveLength(1);
      expect(inWorkspace[0]).toMatchObject({
        ...common,
        event_name: 'api_key.revoked',
        workspace_id: ten.workspaceId,
        old_value: { revoked_at: null },
        new_value: { revoked_at: expect.any(String) },
      });
      expect((await instanceEntries(user.id)).map((e) => e.event_name)).toEqual(['api_key.created', 'token.issued']);
      // Each change exactly once across all trails.
      expect(
        (await t.ds.query(`SELECT event_name FROM audit_logs WHERE target_id = $1 ORDER BY created_at`, [key.id])).map(
          (r: Entry) => r.event_name,
        ),
      ).toEqual(['api_key.created', 'api_key.revoked']);
    });

    it('the instance trail keeps the commit-order invariants of a workspace trail and stays append-only', async () => {
      const u = await t.user(`lone2-${Date.now()}@example.com`); // t.user issues an API key through AdminService
      await t.admin.createToken(u.email, ['read']);
      const rows = await instanceEntries(u.id);
      expect(rows.map((e) => e.event_name)).toEqual(['api_key.created', 'token.issued']);
      const all: Entry[] = await t.ds.query(
        `SELECT id, created_at, sequence_number::text AS seq FROM audit_logs WHERE workspace_id IS NULL ORDER BY created_at, id`,
      );
      expect(all.map((r) => r.id)).toEqual([...all.map((r) => r.id)].sort());
      expect(all.map((r) => BigInt(r.seq))).toEqual(
        [...all.map((r) => BigInt(r.seq))].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)),
      );
      await expect(t.ds.query(`DELETE FROM audit_logs WHERE workspace_id IS NULL`)).rejects.toThrow(/append-only/);
    });
  });

  describe('flood protection', () => {
    it('aggregates identical failures into one entry per window and counts the repeats', async () => {
      const inject = injector(t.app);
      const url = `/api/v2/workspaces/${ten.slug}/projects/`;
      for (let i = 0; i < 25; i++) {
        expect(
          (
            await inject({
              method: 'GET',
              url,
              remoteAddress: '203.0.113.9',
              headers: { 'x-api-key': `wt_api_bad${i}` },
            })
          ).statusCode,
        ).toBe(401);
      }
      const rows = await list({ event_name: 'auth.failed', ip_address: '203.0.113.9' });
      expect(rows.length).toBeLessThanOrEqual(2); // one per window; two only if the loop crossed a window boundary
      expect(occurrences(rows)).toBe(25);
      expect(rows[0].metadata.aggregation).toMatchObject({
        window_seconds: 60,
        fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      // A different failure (another reason) is another aggregate.
      await inject({ method: 'GET', url, remoteAddress: '203.0.113.9' });
      const again = await list({ event_name: 'auth.failed', ip_address: '203.0.113.9' });
      expect(again.filter((r) => r.reason === 'missing_credentials')).toHaveLength(1);
    });
  });

  describe('transactional atomicity', () => {
    it('a failure after the entry was recorded leaves neither the role change nor the entry', async () => {
      const u = await t.member(ten.slug, 'member');
      const row = (await t.http.get(`/api/v2/workspaces/${ten.slug}/members/?member_id=${u.id}`).set(owner())).body
        .data[0];
      const audit = t.app.get(AuditService);
      const original = audit.record.bind(audit);
      const spy = jest.spyOn(audit, 'record').mockImplementation(async (db, actor, e) => {
        await original(db, actor, e);
        if (e.event_name === 'member.role_updated') throw new Error('forced failure after recording');
      });
      try {
        expectProblem(
          await t.http.patch(`/api/v2/workspaces/${ten.slug}/members/${row.id}/`).set(owner()).send({ role: 'admin' }),
          500,
          'internal_error',
        );
      } finally {
        spy.mockRestore();
      }
      expect((await t.http.get(`/api/v2/workspaces/${ten.slug}/members/${row.id}/`).set(owner())).body.role).toBe(
        'member',
      );
      expect(await list({ event_name: 'member.role_updated', target_id: row.id })).toEqual([]);
      // The workspace's audit lock went with the rolled-back transaction: the next change records normally.
      expect(
        (await t.http.patch(`/api/v2/workspaces/${ten.slug}/members/${row.id}/`).set(owner()).send({ role: 'admin' }))
          .status,
      ).toBe(200);
      expect(await list({ event_name: 'member.role_updated', target_id: row.id })).toHaveLength(1);
    });

    it('a commit that fails (deferred check) leaves neither the new membership nor its entry', async () => {
      const u = await t.member(ten.slug, 'member');
      const p = await t.project(ten.slug, ten.owner.key);
      await t.ds.query(
        `CREATE FUNCTION test_fail_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'forced commit failure'; END $$`,
      );
      await t.ds.query(
        `CREATE CONSTRAINT TRIGGER test_fail_commit AFTER INSERT ON audit_logs DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
           WHEN (NEW.event_name = 'project_member.added') EXECUTE FUNCTION test_fail_commit()`,
      );
      try {
        const url = `/api/v2/workspaces/${ten.slug}/projects/${p.id}/members/`;
        expectProblem(
          await t.http.post(url).set(owner()).send({ member_id: u.id, role: 'contributor' }),
          500,
          'internal_error',
        );
        expect((await t.http.get(`${url}?member_id=${u.id}`).set(owner())).body.data).toEqual([]);
        // The project's creation recorded its creator's implicit membership; the refused one left nothing.
        expect(
          (await list({ event_name: 'project_member.added', search: '' })).filter(
            (e) => e.project_id === p.id && e.metadata?.member_id === u.id,
          ),
        ).toEqual([]);
      } finally {
        await t.ds.query(`DROP TRIGGER test_fail_commit ON audit_logs`);
        await t.ds.query(`DROP FUNCTION test_fail_commit()`);
      }
    });
  });

  describe('ordering', () => {
    const insert = (c: Client, ws: string, name: string) =>
      c.query(
        `INSERT INTO audit_logs (event_id, event_name, category, outcome, source, actor_type, workspace_id)
         VALUES (gen_random_uuid(), $2, 'settings', 'success', 'system', 'system', $1) RETURNING id, sequence_number::text AS seq, created_at`,
        [ws, name],
      );

    it('sequence_number, created_at and id increase in commit order, whatever the order transactions started in', async () => {
      const ws = ten.workspaceId;
      const a = new Client({ connectionString: t.dbUrl });
      const b = new Client({ connectionString: t.dbUrl });
      await a.connect();
      await b.connect();
      try {
        // A starts first (its now() is earlier) but records and commits after B.
        await a.query('BEGIN');
        await a.query('SELECT now()');
        await sleep(20);
        await b.query('BEGIN');
        const rb = (await insert(b, ws, 'order.b')).rows[0];
        // B holds the workspace's audit lock until it ends: A's insert waits for B's commit.
        const pendingA = insert(a, ws, 'order.a');
        await sleep(100);
        let aDone = false;
        void pendingA.then(() => (aDone = true));
        await sleep(50);
        expect(aDone).toBe(false);
        await b.query('COMMIT');
        const ra = (await pendingA).rows[0];
        await a.query('COMMIT');
        expect(BigInt(ra.seq)).toBeGreaterThan(BigInt(rb.seq));
        expect(ra.id > rb.id).toBe(true);
        const rows = await list({ search: 'order.' });
        expect(rows.map((r) => r.event_name)).toEqual(['order.b', 'order.a']);
        expect(rows[0].created_at < rows[1].created_at).toBe(true);
      } finally {
        await a.end();
        await b.end();
      }
    });

    it('order_by created_at, -created_at, id and -id agree (ids are time-ordered); unknown values fall back to -created_at', async () => {
      const asc = await list({ order_by: 'created_at' });
      const byId = await list({ order_by: 'id' });
      expect(byId.map((e) => e.id)).toEqual(asc.map((e) => e.id));
      expect(asc.map((e) => e.id)).toEqual([...asc.map((e) => e.id)].sort());
      const seqs = asc.map((e) => e.sequence_number);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(new Set(seqs).size).toBe(seqs.length);
      const times = asc.map((e) => e.created_at);
      expect(new Set(times).size).toBe(times.length); // strictly increasing within the workspace
      const desc = await list({ order_by: '-created_at' });
      expect(desc.map((e) => e.id)).toEqual([...asc].reverse().map((e) => e.id));
      expect((await list({ order_by: '-id' })).map((e) => e.id)).toEqual(desc.map((e) => e.id));
      const fallback = await t.http.get(`${base}?order_by=event_name&per_page=5`).set(owner());
      expect(fallback.body.data.map((e: Entry) => e.id)).toEqual(desc.slice(0, 5).map((e) => e.id));
      const cursorDefault = await t.http.get(`${base}?paginate=cursor&per_page=5`).set(owner());
      expect(cursorDefault.status).toBe(200);
      expect(cursorDefault.body.data.map((e: Entry) => e.id)).toEqual(desc.slice(0, 5).map((e) => e.id));
    });
  });

  describe('filters and validation', () => {
    let actor: { id: string; email: string; key: string };
    let marker: string;
    beforeAll(async () => {
      actor = await t.user(`filter-actor-${Date.now()}@example.com`, 'Zelda Auditor');
      await t.admin.addMember(ten.slug, actor.email, 'admin');
      marker = `Marker${Date.now()}`;
      const p = await t.project(ten.slug, actor.key, { name: `${marker} project` });
      const inject = injector(t.app);
      await inject({
        method: 'GET',
        url: `/api/v2/workspaces/${ten.slug}/projects/${p.id}/`,
        remoteAddress: '192.0.2.44',
        headers: { 'x-api-key': 'nope' },
      });
    });

    it('category and outcome are validated enums', async () => {
      for (const [k, v] of [
        ['category', 'bogus'],
        ['outcome', 'maybe'],
      ]) {
        const body = expectProblem(await t.http.get(`${base}?${k}=${v}`).set(owner()), 400, 'validation_error');
        expect(body.errors).toEqual([{ field: k, message: expect.stringContaining(v) }]);
      }
      const auth = await list({ category: 'auth' });
      expect(auth.length).toBeGreaterThan(0);
      expect(auth.every((e) => e.category === 'auth')).toBe(true);
      const failures = await list({ outcome: 'failure' });
      expect(failures.length).toBeGreaterThan(0);
      expect(failures.every((e) => e.outcome === 'failure')).toBe(true);
      const successes = await list({ outcome: 'success' });
      expect(successes.length + failures.length).toBe((await list()).length);
    });

    it('actor_id selects one user and excludes actorless entries; a malformed id is 400', async () => {
      const rows = await list({ actor_id: actor.id });
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((e) => e.actor_id === actor.id)).toBe(true);
      expect(rows.map((e) => e.event_name)).toContain('project.created');
      expect((await list()).some((e) => e.actor_id === null)).toBe(true);
      expectProblem(await t.http.get(`${base}?actor_id=someone`).set(owner()), 400, 'validation_error');
    });

    it('event_name, target_type, target_id and ip_address are exact matches', async () => {
      const created = await list({ event_name: 'project.created', actor_id: actor.id });
      expect(created).toHaveLength(1);
      const pid = created[0].target_id;
      expect((await list({ target_id: pid })).every((e) => e.target_id === pid)).toBe(true);
      expect((await list({ target_type: 'project' })).every((e) => e.target_type === 'project')).toBe(true);
      expect(await list({ event_name: 'project.create' })).toEqual([]);
      const byIp = await list({ ip_address: '192.0.2.44' });
      expect(byIp.map((e) => e.event_name)).toEqual(['auth.failed']);
      expect(await list({ ip_address: '192.0.2.4' })).toEqual([]);
    });

    it('ip_address is normalised like the stored addresses: IPv4-mapped IPv6 and any IPv6 spelling match', async () => {
      const inject = injector(t.app);
      const url = `/api/v2/workspaces/${ten.slug}/projects/`;
      // Stored normalised: an IPv4 client on a dual-stack socket as its IPv4 address, IPv6 in canonical form.
      expect((await inject({ method: 'GET', url, remoteAddress: '::ffff:192.0.2.45' })).statusCode).toBe(401);
      expect((await inject({ method: 'GET', url, remoteAddress: '2001:DB8:0:0::45' })).statusCode).toBe(401);
      const v4 = await list({ ip_address: '192.0.2.45' });
      expect(v4.map((e) => [e.event_name, e.ip_address])).toEqual([['auth.failed', '192.0.2.45']]);
      for (const spelling of [
        '::ffff:192.0.2.45',
        '::FFFF:192.0.2.45',
        '::ffff:c000:22d',
        '0:0:0:0:0:ffff:c000:022d',
        ' 192.0.2.45 ',
      ]) {
        expect(await list({ ip_address: spelling })).toEqual(v4);
      }
      const v6 = await list({ ip_address: '2001:db8::45' });
      expect(v6.map((e) => [e.event_name, e.ip_address])).toEqual([['auth.failed', '2001:db8::45']]);
      for (const spelling of ['2001:0DB8:0:0:0:0:0:45', '2001:db8:0::45'])
        expect(await list({ ip_address: spelling })).toEqual(v6);
      // Still exact: no prefix match, and not a mapped address of another host.
      expect(await list({ ip_address: '::ffff:192.0.2.4' })).toEqual([]);
      expect(await list({ ip_address: '2001:db8::4' })).toEqual([]);
    });

    it('created_after / created_before are inclusive bounds; a bad date-time is 400', async () => {
      const all = await list();
      const mid = all[Math.floor(all.length / 2)];
      const after = await list({ created_after: mid.created_at });
      expect(after[0].id).toBe(mid.id);
      expect(after.every((e) => e.created_at >= mid.created_at)).toBe(true);
      const before = await list({ created_before: mid.created_at });
      expect(before[before.length - 1].id).toBe(mid.id);
      expect(before.length + after.length).toBe(all.length + 1);
      expect(await list({ created_after: mid.created_at, created_before: mid.created_at })).toEqual([mid]);
      for (const k of ['created_after', 'created_before']) {
        const body = expectProblem(await t.http.get(`${base}?${k}=yesterday`).set(owner()), 400, 'validation_error');
        expect(body.errors[0].field).toBe(k);
      }
    });

    it('search matches event name, actor name, actor email and target name, case-insensitively', async () => {
      const byTarget = await list({ search: marker.toLowerCase() });
      expect(byTarget.map((e) => e.event_name)).toEqual(['project.created']);
      const byEmail = await list({ search: actor.email.toUpperCase() });
      expect(byEmail.length).toBeGreaterThan(0);
      expect(byEmail.every((e) => e.actor_email === actor.email)).toBe(true);
      const byName = await list({ search: 'zelda audit' });
      // The actor's name (their own actions) and the target's name (their membership being added).
      expect(byName.some((e) => e.actor_display_name === 'Zelda Auditor' && e.event_name === 'project.created')).toBe(
        true,
      );
      expect(byName.some((e) => e.target_display_name === 'Zelda Auditor' && e.event_name === 'member.added')).toBe(
        true,
      );
      expect(
        byName.every((e) => e.actor_display_name === 'Zelda Auditor' || e.target_display_name === 'Zelda Auditor'),
      ).toBe(true);
      const byEvent = await list({ search: 'ROLE_UPDATED' });
      expect(byEvent.length).toBeGreaterThan(0);
      expect(byEvent.every((e) => e.event_name.includes('role_updated'))).toBe(true);
      expect(await list({ search: '%' })).toEqual([]);
    });

    it('filters combine with AND, in both pagination modes', async () => {
      const rows = await list({ category: 'settings', actor_id: actor.id, outcome: 'success' });
      expect(rows.map((e) => e.event_name)).toEqual(['project.created']);
      const offset = await t.http.get(`${base}?category=settings&actor_id=${actor.id}&outcome=success`).set(owner());
      expect(offset.body.total_count).toBe(1);
      expect(offset.body.data[0].id).toBe(rows[0].id);
    });

    it('offset pages (skipped off the index, read with their aggregation counters) are the slices of the whole trail', async () => {
      for (let i = 0; i < 6; i++) await t.project(ten.slug, ten.owner.key); // project.created entries, category settings
      for (const qs of [
        '',
        'order_by=created_at',
        'order_by=-id',
        'category=settings',
        'search=project',
        'outcome=success&order_by=id',
      ]) {
        const all = (await t.http.get(`${base}?per_page=100&${qs}`).set(owner())).body;
        expect(all.total_count).toBeGreaterThan(3);
        expect(all.total_count).toBeLessThanOrEqual(100);
        for (const offset of [1, 2, Math.floor(all.total_count / 2), all.total_count - 1]) {
          const page = await t.http.get(`${base}?per_page=3&offset=${offset}&${qs}`).set(owner());
          expect(page.status).toBe(200);
          expect({ qs, offset, page: page.body.data }).toEqual({
            qs,
            offset,
            page: all.data.slice(offset, offset + 3),
          });
        }
      }
      // Another workspace's entries never enter a page.
      const other = await t.tenant();
      const mine = new Set((await t.http.get(`${base}?per_page=100`).set(owner())).body.data.map((e: Entry) => e.id));
      const theirs = (
        await t.http
          .get(`/api/v2/workspaces/${other.slug}/audit-logs/?per_page=3&offset=1`)
          .set('X-Api-Key', other.owner.key)
      ).body.data;
      expect(theirs.length).toBeGreaterThan(0);
      for (const e of theirs) expect(mine.has(e.id)).toBe(false);
    });

    it('offset mode keeps its ceiling; a tampered cursor is 400', async () => {
      expectProblem(await t.http.get(`${base}?offset=10001`).set(owner()), 400, 'validation_error');
      expectProblem(await t.http.get(`${base}?paginate=cursor&cursor=abc`).set(owner()), 400, 'validation_error');
      const page = await t.http.get(`${base}?paginate=cursor&per_page=1&order_by=created_at`).set(owner());
      expectProblem(
        await t.http.get(`${base}?cursor=${page.body.next_cursor}&order_by=id`).set(owner()),
        400,
        'validation_error',
      );
    });
  });

  describe('OpenAPI', () => {
    it('documents both operations with their scope, and the event catalogue on event_name', async () => {
      const doc = (await t.http.get('/api/v2/schema/')).body;
      const listOp = doc.paths['/api/v2/workspaces/{slug}/audit-logs/'].get;
      const getOp = doc.paths['/api/v2/workspaces/{slug}/audit-logs/{pk}/'].get;
      for (const op of [listOp, getOp]) {
        expect(op['x-required-scope']).toBe('workspaces.audit_logs:read');
        expect(op['x-required-role']).toBe('workspace role admin or higher');
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '429']));
      }
      const names = listOp.parameters.map((p: { name: string }) => p.name);
      for (const f of [
        'created_after',
        'created_before',
        'actor_id',
        'event_name',
        'category',
        'outcome',
        'target_type',
        'target_id',
        'ip_address',
        'search',
        'order_by',
        'cursor',
      ]) {
        expect(names).toContain(f);
      }
      const category = listOp.parameters.find((p: { name: string }) => p.name === 'category');
      expect(category.schema.enum).toEqual([
        'auth',
        'member',
        'role',
        'settings',
        'integration',
        'webhook',
        'security',
        'instance',
      ]);
      // The whole catalogue: every entry with its category, outcome, target and values on the entry's event_name,
      // every name on the event_name filter.
      const desc: string = doc.components.schemas.AuditLogDto.properties.event_name.description;
      const filterDesc: string = listOp.parameters.find((p: { name: string }) => p.name === 'event_name').description;
      expect(AUDIT_EVENT_CATALOGUE.length).toBeGreaterThanOrEqual(36);
      for (const e of AUDIT_EVENT_CATALOGUE) {
        expect(desc).toContain(
          `- \`${e.event_name}\` (${e.category}, ${e.outcome}; target \`${e.target_type}\`): ${e.when} ${e.values}`,
        );
        expect(filterDesc).toContain(`\`${e.event_name}\``);
      }
      const catalogued = AUDIT_EVENT_CATALOGUE.map((e) => e.event_name);
      expect(new Set(catalogued).size).toBe(catalogued.length);
      for (const e of [
        'member.added',
        'member.role_updated',
        'project_member.added',
        'project_member.role_updated',
        'project_member.removed',
        'api_key.created',
        'api_key.revoked',
        'token.issued',
        'auth.failed',
        'permission.denied',
        'rate_limit.exceeded',
        'workspace.features_updated',
        'project.features_updated',
        'workspace.work_item_type_mode_changed',
        'workflow.updated',
        'work_item_type.created',
        'work_item_type.updated',
        'work_item_type.deleted',
        'work_item_property.created',
        'work_item_property.updated',
        'work_item_property.deleted',
      ]) {
        expect(catalogued).toContain(e);
      }
    });

    it('docs/audit.md lists the catalogue exactly: name, category, outcome and when; target and values', () => {
      const md = readFileSync(join(ROOT, 'docs/audit.md'), 'utf8');
      /** The rows of the first table after `heading`, split into trimmed cells. */
      const table = (heading: string): string[][] => {
        const lines = md.slice(md.indexOf(`\n${heading}\n`) + 1).split('\n');
        const start = lines.findIndex((l) => l.startsWith('|'));
        const rows: string[][] = [];
        for (const l of lines.slice(start + 2)) {
          if (!l.startsWith('|')) break;
          rows.push(
            l
              .slice(1, -1)
              .split(' | ')
              .map((c) => c.trim()),
          );
        }
        return rows;
      };
      const code = (x: string) => `\`${x}\``;
      expect(table('## Event catalogue')).toEqual(
        AUDIT_EVENT_CATALOGUE.map((e) => [code(e.event_name), e.category, e.outcome, e.when]),
      );
      expect(table('## Event catalogue: targets and values')).toEqual(
        AUDIT_EVENT_CATALOGUE.map((e) => [code(e.event_name), code(e.target_type), e.values]),
      );
    });
  });
});
