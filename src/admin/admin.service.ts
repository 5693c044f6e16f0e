import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { ADMIN_ACTOR, AuditService } from '../audit/audit.service';
import { WORKSPACE_ROLES, WorkspaceRole } from '../common/auth/roles';
import { ProblemException } from '../common/errors/problem.exception';
import { MembersRepository } from '../members/members.repository';
import { OAuthTokensService } from '../oauth/oauth-tokens.service';
import { UsersRepository } from '../users/users.repository';
import { WorkspacesService } from '../workspaces/workspaces.service';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Operator actions behind the admin CLI and the first-start bootstrap. */
@Injectable()
export class AdminService {
  constructor(
    private readonly ds: DataSource,
    private readonly users: UsersRepository,
    private readonly workspaces: WorkspacesService,
    private readonly members: MembersRepository,
    private readonly apiKeys: ApiKeysService,
    private readonly tokens: OAuthTokensService,
    private readonly audit: AuditService,
  ) {}

  async createWorkspace(slug: string, name: string) {
    const w = await this.workspaces.create(slug, name, null);
    return { id: w.id, slug: w.slug, name: w.name };
  }

  async createUser(email: string, displayName: string) {
    const e = email.trim().toLowerCase();
    if (!EMAIL_RE.test(e)) throw ProblemException.validation('email', 'Not a valid email address.');
    if (!displayName.trim()) throw ProblemException.validation('display_name', 'Display name is required.');
    if (await this.users.findByEmail(e)) throw ProblemException.conflict(`A user with email ${e} already exists.`);
    const u = await this.users.insert(e, displayName.trim());
    return { id: u.id, email: u.email, display_name: u.display_name };
  }

  async addMember(slug: string, email: string, role: string) {
    if (!WORKSPACE_ROLES.includes(role as WorkspaceRole)) throw ProblemException.validation('role', `Must be one of ${WORKSPACE_ROLES.join(', ')}.`);
    const ws = await this.workspaces.findBySlug(slug);
    if (!ws) throw ProblemException.notFound(`Workspace "${slug}"`);
    const user = await this.requireUser(email);
    return this.ds.transaction(async (m) => {
      const existing = await this.members.workspaceMemberByUser(ws.id, user.id, m);
      const target = { category: 'member' as const, workspace_id: ws.id, target_type: 'workspace_member', target_display_name: user.display_name };
      if (existing) {
        if (existing.role !== role) {
          await this.members.setWorkspaceRole(ws.id, existing.id, role, m);
          const capped = role === WorkspaceRole.Guest ? await this.members.capGuestProjectRoles(ws.id, user.id, m) : [];
          await this.audit.record(m, ADMIN_ACTOR, {
            ...target,
            event_name: 'member.role_updated',
            target_id: existing.id,
            old_value: { role: existing.role },
            new_value: { role },
            metadata: { member_id: user.id, ...(capped.length ? { project_roles_capped_in: capped } : {}) },
          });
        }
        return { id: existing.id, member_id: user.id, role };
      }
      const id = await this.members.insertWorkspaceMember(ws.id, user.id, role, m);
      if (role === WorkspaceRole.Owner && !ws.owner_id) await m.query(`UPDATE workspaces SET owner_id = $2 WHERE id = $1`, [ws.id, user.id]);
      await this.audit.record(m, ADMIN_ACTOR, { ...target, event_name: 'member.added', target_id: id, new_value: { role }, metadata: { member_id: user.id } });
      return { id, member_id: user.id, role };
    });
  }

  async createApiKey(email: string, label = '') {
    const user = await this.requireUser(email);
    return this.apiKeys.create(user.id, label);
  }

  revokeApiKey(id: string) {
    return this.apiKeys.revoke(id);
  }

  async createToken(email: string, scopes: string[], ttlSeconds?: number) {
    const user = await this.requireUser(email);
    const t = await this.tokens.issue(user.id, scopes, ttlSeconds);
    return { access_token: t.access_token, scopes: t.scopes, expires_in: t.expires_in };
  }

  /** First start on an empty database: an owner, a workspace and an API key, so the API is usable at once. */
  async bootstrapIfEmpty(): Promise<null | { email: string; workspace: string; api_key: string }> {
    const rows = await this.ds.query(`SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM workspaces)::int AS workspaces`);
    if (rows[0].users > 0 || rows[0].workspaces > 0) return null;
    const email = process.env.BOOTSTRAP_EMAIL || 'admin@example.com';
    const slug = process.env.BOOTSTRAP_WORKSPACE || 'default';
    await this.createUser(email, 'Admin');
    await this.createWorkspace(slug, 'Default workspace');
    await this.addMember(slug, email, WorkspaceRole.Owner);
    const key = await this.createApiKey(email, 'bootstrap');
    return { email, workspace: slug, api_key: key.key };
  }

  private async requireUser(email: string) {
    const user = await this.users.findByEmail(email);
    if (!user) throw ProblemException.notFound(`User ${email.trim().toLowerCase()}`);
    return user;
  }
}
