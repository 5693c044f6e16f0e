import { MEMBER_LIST } from './members.queries';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';
import { MemberRow } from './members.mapper';

/** A project membership a workspace-level change lowered or removed, with its role before. */
export interface ChangedProjectMembership {
  id: string;
  project_id: string;
  old_role: string;
}

const COLS = `m.id, m.member_id, m.role, u.display_name AS u_display_name, u.email AS u_email, u.avatar_url AS u_avatar_url`;

@Injectable()
export class MembersRepository {
  constructor(private readonly ds: DataSource) {}

  listWorkspace(workspaceId: string, q: ListQuery) {
    const p = new SqlParams([workspaceId]);
    return runList<MemberRow>(this.ds, MEMBER_LIST, q, {
      select: COLS,
      from: 'workspace_members m JOIN users u ON u.id = m.member_id',
      where: ['m.workspace_id = $1', 'm.deleted_at IS NULL', 'm.is_active'],
      params: p,
    });
  }

  listProject(workspaceId: string, projectId: string, q: ListQuery) {
    const p = new SqlParams([workspaceId, projectId]);
    return runList<MemberRow>(this.ds, MEMBER_LIST, q, {
      select: COLS,
      from: 'project_members m JOIN users u ON u.id = m.member_id',
      where: ['m.workspace_id = $1', 'm.project_id = $2', 'm.deleted_at IS NULL'],
      params: p,
    });
  }

  async getWorkspaceMember(workspaceId: string, id: string, db: Queryable = this.ds): Promise<MemberRow | null> {
    const rows = await db.query(
      `SELECT ${COLS} FROM workspace_members m JOIN users u ON u.id = m.member_id
        WHERE m.workspace_id = $1 AND m.id = $2 AND m.deleted_at IS NULL AND m.is_active`,
      [workspaceId, id],
    );
    return rows[0] ?? null;
  }

  /**
   * `share`: holds the workspace membership FOR SHARE until the transaction ends, so a project role decided
   * from its workspace role cannot interleave with a change of that role (a demotion to guest waits, then
   * caps what was written; or the write waits and sees guest).
   */
  async workspaceMemberByUser(
    workspaceId: string,
    userId: string,
    db: Queryable = this.ds,
    share = false,
  ): Promise<MemberRow | null> {
    const rows = await db.query(
      `SELECT ${COLS} FROM workspace_members m JOIN users u ON u.id = m.member_id
        WHERE m.workspace_id = $1 AND m.member_id = $2 AND m.deleted_at IS NULL AND m.is_active${share ? ' FOR SHARE OF m' : ''}`,
      [workspaceId, userId],
    );
    return rows[0] ?? null;
  }

  /** `lock`: FOR UPDATE, re-checked after a wait, so a write or DELETE racing a DELETE finds nothing (404). */
  async getProjectMember(
    workspaceId: string,
    projectId: string,
    id: string,
    db: Queryable = this.ds,
    lock = false,
  ): Promise<MemberRow | null> {
    const rows = await db.query(
      `SELECT ${COLS} FROM project_members m JOIN users u ON u.id = m.member_id
        WHERE m.workspace_id = $1 AND m.project_id = $2 AND m.id = $3 AND m.deleted_at IS NULL${lock ? ' FOR UPDATE OF m' : ''}`,
      [workspaceId, projectId, id],
    );
    return rows[0] ?? null;
  }

  async projectMemberByUser(
    workspaceId: string,
    projectId: string,
    userId: string,
    db: Queryable = this.ds,
  ): Promise<MemberRow | null> {
    const rows = await db.query(
      `SELECT ${COLS} FROM project_members m JOIN users u ON u.id = m.member_id
        WHERE m.workspace_id = $1 AND m.project_id = $2 AND m.member_id = $3 AND m.deleted_at IS NULL`,
      [workspaceId, projectId, userId],
    );
    return rows[0] ?? null;
  }

  async countWorkspaceRole(workspaceId: string, role: string, db: Queryable = this.ds): Promise<number> {
    const rows = await db.query(
      `SELECT count(*)::int AS c FROM workspace_members WHERE workspace_id = $1 AND role = $2 AND deleted_at IS NULL AND is_active`,
      [workspaceId, role],
    );
    return rows[0].c;
  }

  async countProjectRole(
    workspaceId: string,
    projectId: string,
    role: string,
    db: Queryable = this.ds,
  ): Promise<number> {
    const rows = await db.query(
      `SELECT count(*)::int AS c FROM project_members WHERE workspace_id = $1 AND project_id = $2 AND role = $3 AND deleted_at IS NULL`,
      [workspaceId, projectId, role],
    );
    return rows[0].c;
  }

  async insertWorkspaceMember(
    workspaceId: string,
    userId: string,
    role: string,
    db: Queryable = this.ds,
  ): Promise<string> {
    const rows = await db.query(
      `INSERT INTO workspace_members (workspace_id, member_id, role) VALUES ($1, $2, $3) RETURNING id`,
      [workspaceId, userId, role],
    );
    return rows[0].id;
  }

  async setWorkspaceRole(workspaceId: string, id: string, role: string, db: Queryable = this.ds): Promise<void> {
    await db.query(`UPDATE workspace_members SET role = $3, updated_at = now() WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      id,
      role,
    ]);
  }

  /**
   * Guests may hold at most the commenter role in projects. Returns each membership whose role was lowered,
   * with its role before (for the audit trail).
   */
  async capGuestProjectRoles(
    workspaceId: string,
    userId: string,
    db: Queryable = this.ds,
  ): Promise<ChangedProjectMembership[]> {
    // TypeORM answers UPDATE ... RETURNING with [rows, rowCount].
    const [rows] = await db.query(
      `WITH old AS (
         SELECT id, role FROM project_members
          WHERE workspace_id = $1 AND member_id = $2 AND deleted_at IS NULL AND role IN ('admin', 'contributor')
          FOR UPDATE)
       UPDATE project_members p SET role = 'commenter', updated_at = now()
         FROM old
        WHERE p.workspace_id = $1 AND p.id = old.id
        RETURNING p.id, p.project_id, old.role AS old_role`,
      [workspaceId, userId],
    );
    return (rows as ChangedProjectMembership[]).sort((a, b) => a.project_id.localeCompare(b.project_id));
  }

  /** Soft-deletes a live workspace membership (the user leaves the workspace); false when it was not live. */
  async softDeleteWorkspaceMember(workspaceId: string, id: string, db: Queryable = this.ds): Promise<boolean> {
    const [rows] = await db.query(
      `UPDATE workspace_members SET deleted_at = now(), updated_at = now() WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id`,
      [workspaceId, id],
    );
    return (rows as unknown[]).length > 0;
  }

  /** Soft-deletes every live project membership of a user in the workspace; returns them with their role. */
  async softDeleteProjectMembershipsOf(
    workspaceId: string,
    userId: string,
    db: Queryable = this.ds,
  ): Promise<ChangedProjectMembership[]> {
    const [rows] = await db.query(
      `UPDATE project_members SET deleted_at = now(), updated_at = now()
        WHERE workspace_id = $1 AND member_id = $2 AND deleted_at IS NULL
        RETURNING id, project_id, role AS old_role`,
      [workspaceId, userId],
    );
    return (rows as ChangedProjectMembership[]).sort((a, b) => a.project_id.localeCompare(b.project_id));
  }

  /** An active workspace member by email (the removal body names the user by email). */
  async workspaceMemberByEmail(workspaceId: string, email: string, db: Queryable = this.ds): Promise<MemberRow | null> {
    const rows = await db.query(
      `SELECT ${COLS} FROM workspace_members m JOIN users u ON u.id = m.member_id
        WHERE m.workspace_id = $1 AND u.email = $2 AND u.deleted_at IS NULL AND m.deleted_at IS NULL AND m.is_active`,
      [workspaceId, email.trim().toLowerCase()],
    );
    return rows[0] ?? null;
  }

  /** Locks the live owner memberships of a workspace (last-owner checks). */
  async lockOwners(workspaceId: string, db: Queryable): Promise<void> {
    await db.query(
      `SELECT id FROM workspace_members WHERE workspace_id = $1 AND role = 'owner' AND deleted_at IS NULL FOR UPDATE`,
      [workspaceId],
    );
  }

  async insertProjectMember(
    workspaceId: string,
    projectId: string,
    userId: string,
    role: string,
    createdBy: string | null,
    db: Queryable = this.ds,
  ): Promise<string> {
    const rows = await db.query(
      `INSERT INTO project_members (workspace_id, project_id, member_id, role, created_by_id) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [workspaceId, projectId, userId, role, createdBy],
    );
    return rows[0].id;
  }

  async setProjectRole(workspaceId: string, id: string, role: string, db: Queryable = this.ds): Promise<void> {
    await db.query(`UPDATE project_members SET role = $3, updated_at = now() WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      id,
      role,
    ]);
  }

  async softDeleteProjectMember(workspaceId: string, id: string, db: Queryable = this.ds): Promise<void> {
    await db.query(`UPDATE project_members SET deleted_at = now() WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      id,
    ]);
  }
}
