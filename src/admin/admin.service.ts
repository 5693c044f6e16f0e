import { Injectable, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { ADMIN_ACTOR, AuditService } from '../audit/audit.service';
import { AuditLogsService } from '../audit/audit-logs.service';
import { AuthCache } from '../common/auth/auth-cache';
import { WORKSPACE_ROLES, WorkspaceRole } from '../common/auth/roles';
import { exceedsVarchar, VARCHAR_MAX } from '../common/database/columns';
import { ProblemException } from '../common/errors/problem.exception';
import { RawQuery } from '../common/pagination/list-query';
import { MembersService } from '../members/members.service';
import { OAuthTokensService } from '../oauth/oauth-tokens.service';
import { UsersService } from '../users/users.service';
import { SLUG_RE, WorkspacesService } from '../workspaces/workspaces.service';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Operator actions behind the admin CLI and the first-start bootstrap. */
@Injectable()
export class AdminService {
  constructor(
    private readonly ds: DataSource,
    private readonly users: UsersService,
    private readonly workspaces: WorkspacesService,
    private readonly membersService: MembersService,
    private readonly apiKeys: ApiKeysService,
    private readonly tokens: OAuthTokensService,
    private readonly audit: AuditService,
    private readonly auditLogs: AuditLogsService,
    /** In the server's process (bootstrap, tests); the CLI has none: its writes reach servers by NOTIFY. */
    @Optional() private readonly authCache?: AuthCache,
  ) {}

  /** What `work` committed may change resolved credentials: the process's own cache forgets them at once. */
  private async changesAuth<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } finally {
      this.authCache?.invalidate();
    }
  }

  /** Creates a workspace and records `workspace.created` (category instance) as the first entry of its trail. */
  async createWorkspace(slug: string, name: string) {
    return this.changesAuth(
      this.ds.transaction(async (m) => {
        const w = await this.workspaces.create(slug, name, null, m);
        await this.audit.record(m, ADMIN_ACTOR, {
          event_name: 'workspace.created',
          category: 'instance',
          workspace_id: w.id,
          target_type: 'workspace',
          target_id: w.id,
          target_display_name: w.name,
          new_value: { slug: w.slug, name: w.name },
        });
        return { id: w.id, slug: w.slug, name: w.name };
      }),
    );
  }

  /** Creates a user and records `user.created` in the instance trail (a user belongs to no workspace yet). */
  async createUser(email: string, displayName: string) {
    const e = email.trim().toLowerCase();
    if (!EMAIL_RE.test(e) || exceedsVarchar(e))
      throw ProblemException.validation('email', `Not a valid email address (at most ${VARCHAR_MAX} characters).`);
    if (!displayName.trim() || exceedsVarchar(displayName.trim())) {
      throw ProblemException.validation(
        'display_name',
        `Display name is required (at most ${VARCHAR_MAX} characters).`,
      );
    }
    return this.ds.transaction(async (m) => {
      if (await this.users.findByEmail(e, m)) throw ProblemException.conflict(`A user with email ${e} already exists.`);
      const u = await this.users.insert(e, displayName.trim(), m);
      const out = { id: u.id, email: u.email, display_name: u.display_name };
      await this.audit.recordInstance(m, ADMIN_ACTOR, {
        event_name: 'user.created',
        category: 'instance',
        target_type: 'user',
        target_id: u.id,
        target_display_name: u.display_name,
        new_value: out,
        metadata: { scope: 'instance' },
      });
      return out;
    });
  }

  async addMember(slug: string, email: string, role: string) {
    if (!WORKSPACE_ROLES.includes(role as WorkspaceRole))
      throw ProblemException.validation('role', `Must be one of ${WORKSPACE_ROLES.join(', ')}.`);
    const ws = await this.workspaceBySlug(slug);
    const user = await this.requireUser(email);
    return this.changesAuth(
      this.ds.transaction(async (m) => {
        const existing = await this.membersService.workspaceMemberByUser(ws.id, user.id, m);
        if (existing) {
          if (existing.role !== role)
            await this.membersService.applyWorkspaceRole(m, ADMIN_ACTOR, ws.id, existing, role);
          return { id: existing.id, member_id: user.id, role };
        }
        const id = await this.membersService.insertWorkspaceMember(ws.id, user.id, role, m);
        if (role === WorkspaceRole.Owner && !ws.owner_id)
          await m.query(`UPDATE workspaces SET owner_id = $2 WHERE id = $1`, [ws.id, user.id]);
        await this.audit.record(
          m,
          ADMIN_ACTOR,
          this.membersService.workspaceMemberEvent(
            ws.id,
            'member.added',
            { id, member_id: user.id, u_display_name: user.display_name },
            undefined,
            { role },
          ),
        );
        return { id, member_id: user.id, role };
      }),
    );
  }

  /**
   * Removes a user from a workspace (operator action, no role hierarchy): their project memberships in it go
   * too, all audited (source admin). The last owner cannot be removed (409).
   */
  async removeMember(slug: string, email: string) {
    const ws = await this.workspaceBySlug(slug);
    const user = await this.requireUser(email);
    return this.changesAuth(
      this.ds.transaction(async (m) => {
        const target = await this.membersService.workspaceMemberByUser(ws.id, user.id, m);
        const removed = target ? await this.membersService.removeFromWorkspace(m, ADMIN_ACTOR, ws.id, target) : null;
        if (!target || !removed)
          throw ProblemException.notFound(`Membership of ${user.email} in workspace "${ws.slug}"`);
        return { id: target.id, member_id: user.id, role: target.role, project_memberships_removed: removed.length };
      }),
    );
  }

  async createApiKey(email: string, label = '') {
    if (exceedsVarchar(label)) throw ProblemException.validation('label', `At most ${VARCHAR_MAX} characters.`);
    const user = await this.requireUser(email);
    return this.apiKeys.create(user.id, label);
  }

  /** A user's API keys (revoked ones too), for finding the id to revoke. */
  async listApiKeys(email: string) {
    const user = await this.requireUser(email);
    return { data: await this.apiKeys.listForUser(user.id) };
  }

  /** Every user of the instance, whatever their workspaces. */
  async listUsers() {
    const rows = await this.users.listAll();
    return {
      data: rows.map((u) => ({
        id: u.id,
        email: u.email,
        display_name: u.display_name,
        is_active: u.is_active,
        created_at: new Date(u.created_at).toISOString(),
      })),
    };
  }

  /** A workspace's members as `GET .../members/?expand=member` lists them (same filters and pagination). */
  async listMembers(slug: string, query: RawQuery) {
    const ws = await this.workspaceBySlug(slug);
    return this.membersService.listWorkspaceQuery(ws.id, query, new Set(['member']));
  }

  revokeApiKey(id: string) {
    return this.changesAuth(this.apiKeys.revoke(id));
  }

  async createToken(email: string, scopes: string[], ttlSeconds?: number) {
    const user = await this.requireUser(email);
    const t = await this.tokens.issue(user.id, scopes, ttlSeconds);
    return { access_token: t.access_token, scopes: t.scopes, expires_in: t.expires_in };
  }

  /**
   * Reads a trail as the API's audit-log list does (same filters, orderings, pagination and envelope): a
   * workspace's by slug, or with `null` the instance trail, which no API route exposes (docs/audit.md).
   */
  async auditList(slug: string | null, query: RawQuery) {
    let workspaceId: string | null = null;
    if (slug !== null) {
      workspaceId = (await this.workspaceBySlug(slug)).id;
    }
    return this.auditLogs.listTrailQuery(workspaceId, query);
  }

  /** A workspace named on the command line: the slug as workspace create stores it (trimmed, lower-case). */
  private async workspaceBySlug(slug: string) {
    const ws = await this.workspaces.findBySlug(slug.trim());
    if (!ws) throw ProblemException.notFound(`Workspace "${slug.trim()}"`);
    return ws;
  }

  /**
   * First start on an empty database: an owner, a workspace and an API key, so the API is usable at once.
   * Instances starting together take turns (advisory lock), so one seeds and the others find it done. The
   * settings are checked before anything is written, and a start that stopped half-way (the bootstrap user
   * alone) is completed by the next one instead of leaving a database with nobody able to call the API.
   */
  async bootstrapIfEmpty(): Promise<null | { email: string; workspace: string; api_key: string; api_key_id: string }> {
    const email = (process.env.BOOTSTRAP_EMAIL || 'admin@example.com').trim().toLowerCase();
    const slug = (process.env.BOOTSTRAP_WORKSPACE || 'default').trim().toLowerCase();
    if (!EMAIL_RE.test(email) || exceedsVarchar(email))
      throw new Error(`BOOTSTRAP_EMAIL must be an email address, got "${email}"`);
    if (!SLUG_RE.test(slug))
      throw new Error(`BOOTSTRAP_WORKSPACE must be 1-48 lower-case letters, digits and inner hyphens, got "${slug}"`);
    const lock = this.ds.createQueryRunner();
    await lock.connect();
    try {
      await lock.query(`SELECT pg_advisory_lock(hashtext('wt:bootstrap'))`);
      // Seeded = the bootstrap user holds a key. Anything the operator set up (another user or workspace) means
      // no seed; otherwise each step below is skipped when an interrupted start already did it.
      const [state] = await this.ds.query(
        `SELECT (SELECT count(*) FROM workspaces WHERE slug <> $2)::int AS other_workspaces,
                (SELECT count(*) FROM users WHERE email <> $1)::int AS other_users,
                (SELECT count(*) FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = $1)::int AS keys`,
        [email, slug],
      );
      if (state.other_workspaces > 0 || state.other_users > 0 || state.keys > 0) return null;
      if (!(await this.users.findByEmail(email))) await this.createUser(email, 'Admin');
      if (!(await this.workspaces.findBySlug(slug))) await this.createWorkspace(slug, 'Default workspace');
      await this.addMember(slug, email, WorkspaceRole.Owner);
      const key = await this.createApiKey(email, 'bootstrap');
      return { email, workspace: slug, api_key: key.key, api_key_id: key.id };
    } finally {
      await lock.query(`SELECT pg_advisory_unlock(hashtext('wt:bootstrap'))`).catch(() => undefined);
      await lock.release();
    }
  }

  private async requireUser(email: string) {
    const user = await this.users.findByEmail(email);
    if (!user) throw ProblemException.notFound(`User ${email.trim().toLowerCase()}`);
    return user;
  }
}
