import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditActor, AuditEvent, AuditService } from '../audit/audit.service';
import { ProjectContext, RequestContext, WorkspaceContext } from '../common/auth/request-context';
import {
  effectiveProjectRole,
  projectLevel,
  ProjectRole,
  WORKSPACE_ROLE_LEVEL,
  WorkspaceRole,
  workspaceLevel,
} from '../common/auth/roles';
import { ProblemException } from '../common/errors/problem.exception';
import { ListQuery, parseListQuery, RawQuery } from '../common/pagination/list-query';
import { MemberDto } from './members.dto';
import { mapMember, MemberRow } from './members.mapper';
import { ChangedProjectMembership, MembersRepository } from './members.repository';
import { MEMBER_LIST } from './members.queries';
import { ChangesResolvedCredentials } from '../common/auth/auth-cache';

/** Who a membership change is attributed to: the request, or the admin CLI. */
type Actor = AuditActor | RequestContext;

/** Why a project membership changed without a request on the project roster (metadata.reason). */
export type ImplicitMembershipReason = 'project_created' | 'workspace_demoted_to_guest' | 'workspace_member_removed';

/** Workspace and project rosters, and the role rules of gap-reference section 6. */
@Injectable()
@ChangesResolvedCredentials()
export class MembersService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: MembersRepository,
    private readonly audit: AuditService,
  ) {}

  async listWorkspace(ctx: WorkspaceContext, q: ListQuery, expand: Set<string>) {
    const { rows, envelope } = await this.repo.listWorkspace(ctx.workspace.id, q);
    return envelope(rows.map((r) => mapMember(r, expand)));
  }

  /** A workspace's members as `GET .../members/` lists them, for the admin CLI (no request context). */
  async listWorkspaceQuery(workspaceId: string, query: RawQuery, expand: Set<string>) {
    const { rows, envelope } = await this.repo.listWorkspace(workspaceId, parseListQuery(query, MEMBER_LIST));
    return envelope(rows.map((r) => mapMember(r, expand)));
  }

  // Membership rows for other features' own transactions (projects, apps, the admin CLI, OAuth): no audit
  // here, the caller records what it did. The repository stays private to this folder.

  workspaceMemberByUser(...args: Parameters<MembersRepository['workspaceMemberByUser']>) {
    return this.repo.workspaceMemberByUser(...args);
  }

  insertWorkspaceMember(...args: Parameters<MembersRepository['insertWorkspaceMember']>) {
    return this.repo.insertWorkspaceMember(...args);
  }

  projectMemberRow(...args: Parameters<MembersRepository['getProjectMember']>) {
    return this.repo.getProjectMember(...args);
  }

  projectMemberByUser(...args: Parameters<MembersRepository['projectMemberByUser']>) {
    return this.repo.projectMemberByUser(...args);
  }

  insertProjectMember(...args: Parameters<MembersRepository['insertProjectMember']>) {
    return this.repo.insertProjectMember(...args);
  }

  async listProject(ctx: ProjectContext, q: ListQuery, expand: Set<string>) {
    const { rows, envelope } = await this.repo.listProject(ctx.workspace.id, ctx.project.id, q);
    return envelope(rows.map((r) => mapMember(r, expand)));
  }

  async getWorkspaceMember(ctx: WorkspaceContext, id: string, expand: Set<string>): Promise<MemberDto> {
    const row = await this.repo.getWorkspaceMember(ctx.workspace.id, id);
    if (!row) throw ProblemException.notFound('Member');
    return mapMember(row, expand);
  }

  /**
   * Changes a workspace role. Owners manage everyone; admins manage members and guests only and
   * cannot grant admin or owner; nobody demotes the last owner.
   */
  async updateWorkspaceRole(ctx: WorkspaceContext, id: string, role: string, expand: Set<string>): Promise<MemberDto> {
    return this.ds.transaction(async (m) => {
      const target = await this.repo.getWorkspaceMember(ctx.workspace.id, id, m);
      if (!target) throw ProblemException.notFound('Member');
      const actorLevel = workspaceLevel(ctx.workspaceRole);
      const isOwner = ctx.workspaceRole === WorkspaceRole.Owner;
      if (!isOwner) {
        if (workspaceLevel(target.role) >= actorLevel) {
          throw ProblemException.forbidden('You can only change the role of members below your own role.');
        }
        if (WORKSPACE_ROLE_LEVEL[role] >= actorLevel)
          throw ProblemException.forbidden('You cannot grant a role equal to or above your own.');
      }
      if (target.role === role) return mapMember(target, expand);
      await this.applyWorkspaceRole(m, ctx, ctx.workspace.id, target, role);
      return mapMember({ ...target, role }, expand);
    });
  }

  /**
   * Sets a workspace role inside `m` and records it (API and admin CLI). A demotion to guest lowers the
   * user's project admin/contributor memberships to commenter: `member.role_updated` lists those projects, and
   * each lowered membership gets its own `project_member.role_updated` (old and new role). Nobody (the CLI
   * included) demotes the last owner: 409.
   */
  async applyWorkspaceRole(
    m: EntityManager,
    actor: Actor,
    workspaceId: string,
    target: MemberRow,
    role: string,
  ): Promise<void> {
    if (target.role === WorkspaceRole.Owner && role !== WorkspaceRole.Owner) {
      await this.repo.lockOwners(workspaceId, m);
      if ((await this.repo.countWorkspaceRole(workspaceId, WorkspaceRole.Owner, m)) <= 1) {
        throw ProblemException.conflict(
          'The last owner of a workspace cannot be demoted. Promote another owner first.',
        );
      }
    }
    await this.repo.setWorkspaceRole(workspaceId, target.id, role, m);
    const capped =
      role === WorkspaceRole.Guest ? await this.repo.capGuestProjectRoles(workspaceId, target.member_id, m) : [];
    await this.audit.record(
      m,
      actor,
      this.workspaceMemberEvent(
        workspaceId,
        'member.role_updated',
        target,
        { role: target.role },
        { role },
        capped.length ? { project_roles_capped_in: capped.map((c) => c.project_id) } : {},
      ),
    );
    await this.audit.recordMany(
      m,
      actor,
      capped.map((c) =>
        this.projectMemberEvent(
          workspaceId,
          c.project_id,
          'project_member.role_updated',
          { ...target, id: c.id },
          { role: c.old_role },
          { role: ProjectRole.Commenter },
          'workspace_demoted_to_guest',
        ),
      ),
    );
  }

  /**
   * `POST .../members/remove/ {email}`: removes a user from the workspace. Owners remove anyone; admins only
   * members and guests (403 for owners, admins and themselves); the last owner cannot be removed (409). An
   * email that is not an active member's is 400 naming `email` (whether or not such a user exists).
   */
  async removeWorkspaceMember(ctx: WorkspaceContext, email: string): Promise<void> {
    await this.ds.transaction(async (m) => {
      const target = await this.repo.workspaceMemberByEmail(ctx.workspace.id, email, m);
      if (!target)
        throw ProblemException.validation('email', 'Must be the email of an active member of this workspace.');
      if (
        ctx.workspaceRole !== WorkspaceRole.Owner &&
        workspaceLevel(target.role) >= workspaceLevel(ctx.workspaceRole)
      ) {
        throw ProblemException.forbidden('Only owners remove owners and admins; admins remove members and guests.');
      }
      const removed = await this.removeFromWorkspace(m, ctx, ctx.workspace.id, target);
      if (!removed)
        throw ProblemException.validation('email', 'Must be the email of an active member of this workspace.');
    });
  }

  /**
   * Removes a workspace membership inside `m` (API and admin CLI): soft-deletes it and every project
   * membership of the user in the workspace, then records `member.removed` (old role) and one
   * `project_member.removed` per project membership. Refuses to remove the last owner (409). Returns the
   * project memberships removed, or null when the membership was removed concurrently.
   */
  async removeFromWorkspace(
    m: EntityManager,
    actor: Actor,
    workspaceId: string,
    target: MemberRow,
  ): Promise<ChangedProjectMembership[] | null> {
    if (target.role === WorkspaceRole.Owner) await this.repo.lockOwners(workspaceId, m);
    if (!(await this.repo.softDeleteWorkspaceMember(workspaceId, target.id, m))) return null;
    if (
      target.role === WorkspaceRole.Owner &&
      (await this.repo.countWorkspaceRole(workspaceId, WorkspaceRole.Owner, m)) === 0
    ) {
      throw ProblemException.conflict('The last owner of a workspace cannot be removed. Promote another owner first.');
    }
    const projects = await this.repo.softDeleteProjectMembershipsOf(workspaceId, target.member_id, m);
    await this.audit.record(
      m,
      actor,
      this.workspaceMemberEvent(workspaceId, 'member.removed', target, { role: target.role }, undefined, {
        project_memberships_removed_in: projects.map((p) => p.project_id),
      }),
    );
    await this.audit.recordMany(
      m,
      actor,
      projects.map((p) =>
        this.projectMemberEvent(
          workspaceId,
          p.project_id,
          'project_member.removed',
          { ...target, id: p.id },
          { role: p.old_role },
          undefined,
          'workspace_member_removed',
        ),
      ),
    );
    return projects;
  }

  async getProjectMember(ctx: ProjectContext, id: string, expand: Set<string>): Promise<MemberDto> {
    const row = await this.repo.getProjectMember(ctx.workspace.id, ctx.project.id, id);
    if (!row) throw ProblemException.notFound('Member');
    return mapMember(row, expand);
  }

  /**
   * Project member writes follow the hierarchy of gap-reference section 6 (see assertCanManage) and the
   * role caps (see assertRoleFits), then the roster rules (duplicate 409, last admin 409).
   */
  async addProjectMember(ctx: ProjectContext, userId: string, role: string, expand: Set<string>): Promise<MemberDto> {
    return this.ds.transaction(async (m) => {
      const wm = await this.repo.workspaceMemberByUser(ctx.workspace.id, userId.toLowerCase(), m, true);
      if (!wm)
        throw ProblemException.validation('member_id', 'Must be the user id of an active member of this workspace.');
      this.assertCanManage(ctx, wm.role, null, role);
      this.assertRoleFits(wm.role, role);
      if (await this.repo.projectMemberByUser(ctx.workspace.id, ctx.project.id, wm.member_id, m)) {
        throw ProblemException.conflict('This user is already a member of the project.');
      }
      const id = await this.repo.insertProjectMember(
        ctx.workspace.id,
        ctx.project.id,
        wm.member_id,
        role,
        ctx.principal.userId,
        m,
      );
      const row = await this.repo.getProjectMember(ctx.workspace.id, ctx.project.id, id, m);
      await this.recordProjectMember(
        m,
        ctx,
        ctx.workspace.id,
        ctx.project.id,
        'project_member.added',
        row!,
        undefined,
        { role },
      );
      return mapMember(row!, expand);
    });
  }

  async updateProjectRole(ctx: ProjectContext, id: string, role: string, expand: Set<string>): Promise<MemberDto> {
    return this.ds.transaction(async (m) => {
      const { target, wm } = await this.lockProjectMember(ctx, id, m);
      this.assertCanManage(ctx, wm?.role ?? null, target.role, role);
      this.assertRoleFits(wm?.role ?? null, role);
      if (target.role === ProjectRole.Admin && role !== ProjectRole.Admin) await this.assertNotLastAdmin(ctx, m);
      if (target.role === role) return mapMember(target, expand);
      await this.repo.setProjectRole(ctx.workspace.id, id, role, m);
      await this.recordProjectMember(
        m,
        ctx,
        ctx.workspace.id,
        ctx.project.id,
        'project_member.role_updated',
        target,
        { role: target.role },
        { role },
      );
      return mapMember({ ...target, role }, expand);
    });
  }

  async removeProjectMember(ctx: ProjectContext, id: string): Promise<void> {
    await this.ds.transaction(async (m) => {
      const { target, wm } = await this.lockProjectMember(ctx, id, m);
      this.assertCanManage(ctx, wm?.role ?? null, target.role, null);
      if (target.role === ProjectRole.Admin) await this.assertNotLastAdmin(ctx, m);
      await this.repo.softDeleteProjectMember(ctx.workspace.id, id, m);
      await this.recordProjectMember(
        m,
        ctx,
        ctx.workspace.id,
        ctx.project.id,
        'project_member.removed',
        target,
        { role: target.role },
        undefined,
      );
    });
  }

  /**
   * The project membership, locked for the write. The workspace membership is locked first (FOR SHARE, in the
   * order a workspace role change takes them: membership, then project rows), then the project row FOR UPDATE
   * and re-read: a concurrent removal makes it 404, a concurrent demotion is waited for.
   */
  private async lockProjectMember(
    ctx: ProjectContext,
    id: string,
    m: EntityManager,
  ): Promise<{ target: MemberRow; wm: MemberRow | null }> {
    const found = await this.repo.getProjectMember(ctx.workspace.id, ctx.project.id, id, m);
    if (!found) throw ProblemException.notFound('Member');
    const wm = await this.repo.workspaceMemberByUser(ctx.workspace.id, found.member_id, m, true);
    const target = await this.repo.getProjectMember(ctx.workspace.id, ctx.project.id, id, m, true);
    if (!target) throw ProblemException.notFound('Member');
    return { target, wm };
  }

  /** The entry of a workspace membership change (target `workspace_member`); `extra` joins metadata.member_id. */
  workspaceMemberEvent(
    workspaceId: string,
    event: 'member.added' | 'member.role_updated' | 'member.removed',
    row: Pick<MemberRow, 'id' | 'member_id' | 'u_display_name'>,
    oldValue?: unknown,
    newValue?: unknown,
    extra: Record<string, unknown> = {},
  ): AuditEvent {
    return {
      event_name: event,
      category: 'member',
      workspace_id: workspaceId,
      target_type: 'workspace_member',
      target_id: row.id,
      target_display_name: row.u_display_name,
      old_value: oldValue,
      new_value: newValue,
      metadata: { member_id: row.member_id, ...extra },
    };
  }

  /** Records a project membership event (projectMemberEvent) in `m`. */
  recordProjectMember(
    m: EntityManager,
    actor: Actor,
    ...event: Parameters<MembersService['projectMemberEvent']>
  ): Promise<void> {
    return this.audit.record(m, actor, this.projectMemberEvent(...event));
  }

  /**
   * The entry of a project membership change (target `project_member`, project_id set). `implicit` names why a
   * membership changed without a request on the project roster (metadata.reason): the project's creation,
   * a workspace demotion to guest, a workspace removal.
   */
  projectMemberEvent(
    workspaceId: string,
    projectId: string,
    event: 'project_member.added' | 'project_member.role_updated' | 'project_member.removed',
    row: Pick<MemberRow, 'id' | 'member_id' | 'u_display_name'>,
    oldValue?: unknown,
    newValue?: unknown,
    implicit?: ImplicitMembershipReason,
  ): AuditEvent {
    return {
      event_name: event,
      category: 'member',
      workspace_id: workspaceId,
      project_id: projectId,
      target_type: 'project_member',
      target_id: row.id,
      target_display_name: row.u_display_name,
      old_value: oldValue,
      new_value: newValue,
      metadata: { member_id: row.member_id, ...(implicit ? { reason: implicit } : {}) },
    };
  }

  /**
   * "Can only modify members with lower level; only owners manage owners" (gap-reference section 6).
   * Workspace owners manage every project membership; workspace admins every one except those of
   * workspace owners. Anyone else (a project admin through their membership) needs an effective
   * project role above the target's current effective role (a workspace owner or admin counts as a
   * project admin even before being listed) and above the role granted: 403 otherwise.
   */
  private assertCanManage(
    ctx: ProjectContext,
    targetWorkspaceRole: string | null,
    currentRole: string | null,
    newRole: string | null,
  ): void {
    if (ctx.workspaceRole === WorkspaceRole.Owner) return;
    if (targetWorkspaceRole === WorkspaceRole.Owner) {
      throw ProblemException.forbidden('Only workspace owners manage the project memberships of workspace owners.');
    }
    if (ctx.workspaceRole === WorkspaceRole.Admin) return;
    const actorLevel = projectLevel(ctx.projectRole);
    if (projectLevel(effectiveProjectRole(targetWorkspaceRole, currentRole)) >= actorLevel) {
      throw ProblemException.forbidden('You can only manage project members whose role is below your own.');
    }
    if (newRole !== null && projectLevel(newRole) >= actorLevel) {
      throw ProblemException.forbidden('You cannot grant a project role equal to or above your own.');
    }
  }

  /**
   * The project role must fit the workspace role: workspace guests can only be project guests or
   * commenters; workspace owners and admins administer every project, so their membership is admin.
   */
  private assertRoleFits(workspaceRole: string | null, projectRole: string): void {
    if (
      workspaceRole === WorkspaceRole.Guest &&
      ![ProjectRole.Guest, ProjectRole.Commenter].includes(projectRole as ProjectRole)
    ) {
      throw ProblemException.validation('role', 'Workspace guests can only be project guests or commenters.');
    }
    if (
      workspaceLevel(workspaceRole) >= WORKSPACE_ROLE_LEVEL[WorkspaceRole.Admin] &&
      projectRole !== ProjectRole.Admin
    ) {
      throw ProblemException.validation(
        'role',
        'Workspace owners and admins administer every project of the workspace: their project role can only be admin.',
      );
    }
  }

  private async assertNotLastAdmin(ctx: ProjectContext, m: EntityManager): Promise<void> {
    await m.query(
      `SELECT id FROM project_members WHERE workspace_id = $1 AND project_id = $2 AND role = 'admin' AND deleted_at IS NULL FOR UPDATE`,
      [ctx.workspace.id, ctx.project.id],
    );
    if ((await this.repo.countProjectRole(ctx.workspace.id, ctx.project.id, ProjectRole.Admin, m)) <= 1) {
      throw ProblemException.conflict('The last admin of a project cannot be removed or demoted.');
    }
  }
}
