import { PROJECT_LIST } from './projects.queries';
import { Injectable } from '@nestjs/common';
import { PartialUpdate, runPartialUpdate } from '../common/database/partial-update';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';

export interface ProjectRow extends Record<string, unknown> {
  id: string;
  workspace_id: string;
  name: string;
  identifier: string;
  description: string;
  default_assignee_id: string | null;
  project_lead_id: string | null;
  logo_props: Record<string, unknown>;
  external_id: string | null;
  external_source: string | null;
  archived_at: Date | null;
  created_at: Date;
  created_by_id: string | null;
}

const COLS = `p.id, p.workspace_id, p.name, p.identifier, p.description, p.default_assignee_id, p.project_lead_id,
  p.logo_props, p.external_id, p.external_source, p.archived_at, p.created_at, p.created_by_id`;

export interface ProjectWrite {
  name?: string;
  identifier?: string;
  description?: string | null;
  default_assignee_id?: string | null;
  project_lead_id?: string | null;
  logo_props?: Record<string, unknown> | null;
  external_id?: string | null;
  external_source?: string | null;
}

/** The columns a project PATCH writes (the allow-list of its partial update). */
const PROJECT_UPDATE: PartialUpdate<ProjectWrite> = {
  table: 'projects',
  where: 'workspace_id = $1 AND id = $2',
  columns: {
    name: {},
    identifier: {},
    description: { nullAs: '' },
    default_assignee_id: {},
    project_lead_id: {},
    logo_props: { nullAs: {} },
    external_id: {},
    external_source: {},
  },
};

@Injectable()
export class ProjectsRepository {
  constructor(private readonly ds: DataSource) {}

  /** Projects visible to the user: all of them for workspace admins, else those the user is a member of. */
  list(workspaceId: string, userId: string, seesAll: boolean, q: ListQuery) {
    const p = new SqlParams([workspaceId]);
    const where = ['p.workspace_id = $1', 'p.deleted_at IS NULL'];
    // Archived projects leave the list unless a filter asks about them.
    if (!q.filters.some((f) => f.def.name === 'is_archived' || f.def.name === 'include_archived'))
      where.push('p.archived_at IS NULL');
    if (!seesAll) {
      where.push(
        `EXISTS (SELECT 1 FROM project_members pm
           WHERE pm.workspace_id = p.workspace_id AND pm.project_id = p.id AND pm.member_id = ${p.add(userId)} AND pm.deleted_at IS NULL)`,
      );
    }
    return runList<ProjectRow>(this.ds, PROJECT_LIST, q, { select: COLS, from: 'projects p', where, params: p });
  }

  async get(workspaceId: string, id: string, db: Queryable = this.ds): Promise<ProjectRow | null> {
    const rows = await db.query(
      `SELECT ${COLS} FROM projects p WHERE p.workspace_id = $1 AND p.id = $2 AND p.deleted_at IS NULL`,
      [workspaceId, id],
    );
    return rows[0] ?? null;
  }

  /**
   * Serializes identifier derivation within a workspace until the transaction ends: concurrent creates that
   * derive the same base (ten projects named "Race 1".."Race 10" all derive RACE) then pick RACE, RACE2, ...
   * in turn instead of colliding on the unique index.
   */
  async lockIdentifierDerivation(workspaceId: string, db: Queryable): Promise<void> {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('project_identifiers:' || $1::text))`, [workspaceId]);
  }

  async identifierTaken(
    workspaceId: string,
    identifier: string,
    exceptId: string | null,
    db: Queryable = this.ds,
  ): Promise<boolean> {
    const rows = await db.query(
      `SELECT 1 FROM projects WHERE workspace_id = $1 AND identifier = $2 AND deleted_at IS NULL AND ($3::uuid IS NULL OR id <> $3)`,
      [workspaceId, identifier, exceptId],
    );
    return rows.length > 0;
  }

  async nameTaken(
    workspaceId: string,
    name: string,
    exceptId: string | null,
    db: Queryable = this.ds,
  ): Promise<boolean> {
    const rows = await db.query(
      `SELECT 1 FROM projects WHERE workspace_id = $1 AND name = $2 AND deleted_at IS NULL AND ($3::uuid IS NULL OR id <> $3)`,
      [workspaceId, name, exceptId],
    );
    return rows.length > 0;
  }

  async insert(
    workspaceId: string,
    v: ProjectWrite & { name: string; identifier: string },
    createdBy: string,
    db: Queryable,
  ): Promise<ProjectRow> {
    const rows = await db.query(
      `INSERT INTO projects (workspace_id, name, identifier, description, default_assignee_id, project_lead_id, logo_props,
                             external_id, external_source, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       RETURNING id, workspace_id, name, identifier, description, default_assignee_id, project_lead_id, logo_props,
                 external_id, external_source, archived_at, created_at, created_by_id`,
      [
        workspaceId,
        v.name,
        v.identifier,
        v.description ?? '',
        v.default_assignee_id ?? null,
        v.project_lead_id ?? null,
        v.logo_props ?? {},
        v.external_id ?? null,
        v.external_source ?? null,
        createdBy,
      ],
    );
    return rows[0];
  }

  async update(workspaceId: string, id: string, v: ProjectWrite, db: Queryable): Promise<void> {
    await runPartialUpdate(db, PROJECT_UPDATE, v, new SqlParams([workspaceId, id]));
  }

  /**
   * Deletes the project (soft). Its work items stay as they are, hidden with it; children in other projects
   * are lifted to the top level, as when their parent item is deleted. The project row is taken FOR UPDATE
   * first: a work item write that links a parent of this project holds it FOR KEY SHARE (LOCK_WORK_ITEM), so
   * it either commits before the children are detached or sees the project gone. Runs in the caller's transaction.
   */
  async softDelete(workspaceId: string, id: string, userId: string, db: Queryable): Promise<boolean> {
    if (!(await this.lockLive(workspaceId, id, 'FOR UPDATE', db))) return false;
    await db.query(`UPDATE projects SET deleted_at = now() WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
    await db.query(
      `UPDATE work_items c SET parent_id = NULL, updated_at = now(), updated_by_id = $3
         FROM work_items par
        WHERE par.workspace_id = $1 AND par.project_id = $2 AND par.id = c.parent_id
          AND c.workspace_id = $1 AND c.project_id <> $2 AND c.parent_id IS NOT NULL AND c.deleted_at IS NULL`,
      [workspaceId, id, userId],
    );
    return true;
  }

  /**
   * Sets or clears `archived_at` of a live project, locked first; returns whether it changed (false when it was
   * already so). Runs in the caller's transaction.
   */
  async setArchived(workspaceId: string, id: string, archived: boolean, db: Queryable): Promise<boolean> {
    const rows = await db.query(
      // As a CTE: TypeORM answers a bare UPDATE ... RETURNING with [rows, count].
      `WITH u AS (
         UPDATE projects SET archived_at = ${archived ? 'now()' : 'NULL'}, updated_at = now()
          WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL AND archived_at IS ${archived ? '' : 'NOT '}NULL
          RETURNING id)
       SELECT id FROM u`,
      [workspaceId, id],
    );
    return rows.length > 0;
  }

  /**
   * Locks the project row while it is live: false when it was deleted meanwhile (the request's guard saw it
   * live), so a write or a second DELETE racing a delete is a 404 rather than a write to a deleted project.
   */
  /** A live project of the workspace with the user's own project role (null when not a member), or null. */
  async withRole(
    workspaceId: string,
    id: string,
    userId: string,
    db: Queryable = this.ds,
  ): Promise<(ProjectRow & { member_role: string | null }) | null> {
    const rows = await db.query(
      `SELECT ${COLS}, pm.role AS member_role FROM projects p
         LEFT JOIN project_members pm ON pm.workspace_id = $1 AND pm.project_id = p.id AND pm.member_id = $3 AND pm.deleted_at IS NULL
        WHERE p.workspace_id = $1 AND p.id = $2 AND p.deleted_at IS NULL`,
      [workspaceId, id, userId],
    );
    return rows[0] ?? null;
  }

  async lockLive(
    workspaceId: string,
    id: string,
    mode: 'FOR UPDATE' | 'FOR NO KEY UPDATE',
    db: Queryable,
  ): Promise<boolean> {
    const rows = await db.query(
      `SELECT id FROM projects WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL ${mode}`,
      [workspaceId, id],
    );
    return rows.length > 0;
  }

  async activeWorkspaceMembers(workspaceId: string, userIds: string[], db: Queryable): Promise<Map<string, string>> {
    const rows: Array<{ member_id: string; role: string }> = await db.query(
      `SELECT member_id, role FROM workspace_members WHERE workspace_id = $1 AND member_id = ANY($2::uuid[]) AND deleted_at IS NULL AND is_active`,
      [workspaceId, userIds],
    );
    return new Map(rows.map((r) => [r.member_id, r.role]));
  }
}
