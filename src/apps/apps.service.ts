import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ADMIN_ACTOR, AuditService } from '../audit/audit.service';
import { hashSecret } from '../common/auth/credentials';
import { WORKSPACE_ROLES, WorkspaceRole } from '../common/auth/roles';
import { isKnownScope } from '../common/auth/scopes';
import { exceedsVarchar, VARCHAR_MAX } from '../common/database/columns';
import { ProblemException } from '../common/errors/problem.exception';
import { MembersService } from '../members/members.service';
import { UsersService } from '../users/users.service';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { AppRow, AppsRepository, InstallationRow } from './apps.repository';

export type { AppRow, InstallationRow };

export interface NewApp {
  workspace: string;
  name: string;
  redirectUris: string[];
  /** Default `read`. */
  scopes?: string[];
  /** A public client (browser or native app): no secret, PKCE required. */
  isPublic?: boolean;
  /** The bot user's workspace role (default member). */
  botRole?: string;
}

const MAX_REDIRECT_URIS = 10;

/** `https://…` or `http://…` with a host and no fragment (RFC 6749 3.1.2); compared byte for byte later. */
function checkRedirectUri(uri: string): void {
  let u: URL | null = null;
  try {
    u = new URL(uri);
  } catch {
    // reported below
  }
  if (!u || !['http:', 'https:'].includes(u.protocol) || !u.host || uri.includes('#') || uri.length > 2000)
    throw ProblemException.validation('redirect_uri', `Not an absolute http(s) URL without a fragment: ${uri}`);
}

/**
 * Apps (OAuth clients) registered in a workspace by its admins, through the admin CLI: Plane's later edition has
 * no /api/v2 route for them (docs/oauth.md). Registering an app installs it in its workspace: the installation's
 * bot user joins the workspace and acts there with client-credentials tokens.
 */
@Injectable()
export class AppsService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: AppsRepository,
    private readonly users: UsersService,
    private readonly members: MembersService,
    private readonly workspaces: WorkspacesService,
    private readonly audit: AuditService,
  ) {}

  async create(input: NewApp) {
    const { name, scopes, botRole } = checkNewApp(input);
    const ws = await this.workspaces.findBySlug(input.workspace.trim());
    if (!ws) throw ProblemException.notFound(`Workspace "${input.workspace.trim()}"`);

    const clientId = `wt_app_${randomBytes(16).toString('base64url')}`;
    const secret = input.isPublic ? null : `wt_cs_${randomBytes(32).toString('base64url')}`;
    return this.ds.transaction(async (m) => {
      const app = await this.repo.insertApp(m, {
        workspace_id: ws.id,
        name,
        client_id: clientId,
        client_secret_hash: secret ? hashSecret(secret) : null,
        redirect_uris: [...new Set(input.redirectUris)],
        scopes,
      });
      const bot = await this.users.insertBot(`bot+${app.id}@bots.invalid`, fitBotName(name), m);
      const memberId = await this.members.insertWorkspaceMember(ws.id, bot.id, botRole, m);
      const installationId = await this.repo.insertInstallation(m, app.id, ws.id, bot.id);
      const out = {
        id: app.id,
        name: app.name,
        workspace: ws.slug,
        client_id: app.client_id,
        client_type: secret ? 'confidential' : 'public',
        redirect_uris: app.redirect_uris,
        scopes: app.scopes,
        app_installation_id: installationId,
        bot_user_id: bot.id,
        bot_role: botRole,
      };
      await this.audit.recordMany(m, ADMIN_ACTOR, [
        {
          event_name: 'app.created',
          category: 'integration',
          workspace_id: ws.id,
          target_type: 'app',
          target_id: app.id,
          target_display_name: app.name,
          new_value: out,
        },
        {
          event_name: 'member.added',
          category: 'member',
          workspace_id: ws.id,
          target_type: 'workspace_member',
          target_id: memberId,
          target_display_name: bot.display_name,
          new_value: { role: botRole },
          metadata: { member_id: bot.id, app_id: app.id },
        },
      ]);
      // The secret is returned here once; only its SHA-256 is stored.
      return secret ? { ...out, client_secret: secret } : out;
    });
  }

  async list(workspace: string) {
    const ws = await this.workspaces.findBySlug(workspace.trim());
    if (!ws) throw ProblemException.notFound(`Workspace "${workspace.trim()}"`);
    const apps = await this.repo.listByWorkspace(ws.id);
    return apps.map((a) => ({
      id: a.id,
      name: a.name,
      client_id: a.client_id,
      client_type: a.client_secret_hash ? 'confidential' : 'public',
      redirect_uris: a.redirect_uris,
      scopes: a.scopes,
      created_at: new Date(a.created_at).toISOString(),
    }));
  }

  byClientId(clientId: string): Promise<AppRow | null> {
    return this.repo.byClientId(clientId);
  }

  /**
   * The installation a client-credentials request acts for: the one named (Plane's `app_installation_id`), which
   * must be this app's, or the app's only one when none is named. Null: no such installation.
   */
  async installationFor(app: AppRow, installationId: string | undefined): Promise<InstallationRow | null> {
    const all = await this.repo.installationsOf(app.id);
    if (installationId === undefined) return all.length === 1 ? all[0] : null;
    return all.find((i) => i.id === installationId) ?? null;
  }

  installationById(id: string): Promise<InstallationRow | null> {
    return this.repo.installationById(id);
  }
}

function fitBotName(appName: string): string {
  const suffix = ' (bot)';
  return exceedsVarchar(appName + suffix)
    ? Array.from(appName)
        .slice(0, VARCHAR_MAX - suffix.length)
        .join('') + suffix
    : appName + suffix;
}

/** The checked name, scopes (default `read`) and bot role (default member) of a new app. */
function checkNewApp(input: NewApp): { name: string; scopes: string[]; botRole: string } {
  const name = input.name.trim();
  if (!name || exceedsVarchar(name))
    throw ProblemException.validation('name', `Name is required (at most ${VARCHAR_MAX} characters).`);
  if (!input.redirectUris.length || input.redirectUris.length > MAX_REDIRECT_URIS)
    throw ProblemException.validation('redirect_uri', `Give 1 to ${MAX_REDIRECT_URIS} redirect URIs.`);
  input.redirectUris.forEach(checkRedirectUri);
  const scopes = [...new Set(input.scopes?.length ? input.scopes : ['read'])];
  const unknown = scopes.filter((s) => !isKnownScope(s));
  if (unknown.length) throw ProblemException.validation('scopes', `Unknown scope(s): ${unknown.join(', ')}.`);
  const botRole = input.botRole ?? WorkspaceRole.Member;
  if (botRole === WorkspaceRole.Owner || !WORKSPACE_ROLES.includes(botRole as WorkspaceRole))
    throw ProblemException.validation('bot_role', 'Must be admin, member or guest.');
  return { name, scopes, botRole };
}
