import { MODULE_LIST } from './modules.queries';
import { Injectable } from '@nestjs/common';
import { PartialUpdate, runPartialUpdate } from '../common/database/partial-update';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';

export interface ModuleRow extends Record<string, unknown> {
  id: string;
  name: string;
  description: string;
  status: string;
  start_date: string | null;
  target_date: string | null;
  lead_id: string | null;
  sort_order: number;
  logo_props: Record<string, unknown>;
  external_id: string | null;
  external_source: string | null;
  archived_at: Date | null;
  created_at: Date;
  created_by_id: string | null;
}

// Dates as text: node-pg would turn a DATE into a local-midnight Date object.
const COLS = `m.id, m.name, m.description, m.status, to_char(m.start_date, 'YYYY-MM-DD') AS start_date,
  to_char(m.target_date, 'YYYY-MM-DD') AS target_date, m.lead_id, m.sort_order, m.logo_props, m.external_id, m.external_source,
  m.archived_at, m.created_at, m.created_by_id`;

export interface ModuleWrite {
  name?: string;
  description?: string | null;
  status?: string;
  start_date?: string | null;
  target_date?: string | null;
  lead_id?: string | null;
  sort_order?: number;
  logo_props?: Record<string, unknown> | null;
  external_id?: string | null;
  external_source?: string | null;
}

/** The columns a module PATCH writes (the allow-list of its partial update). */
const MODULE_UPDATE: PartialUpdate<ModuleWrite> = {
  table: 'modules',
  where: 'workspace_id = $1 AND id = $2',
  columns: {
    name: {},
    description: { nullAs: '' },
    status: {},
    start_date: {},
    target_date: {},
    lead_id: {},
    sort_order: {},
    logo_props: { nullAs: {} },
    external_id: {},
    external_source: {},
  },
};

@Injectable()
export class ModulesRepository {
  constructor(private readonly ds: DataSource) {}

  /** The live list, or (`archived`) the archived list: each holds the other's rows back. */
  list(workspaceId: string, projectId: string, q: ListQuery, archived = false) {
    const p = new SqlParams([workspaceId, projectId]);
    return runList<ModuleRow>(this.ds, MODULE_LIST, q, {
      select: COLS,
      from: 'modules m',
      where: [
        'm.workspace_id = $1',
        'm.project_id = $2',
        'm.deleted_at IS NULL',
        archived ? 'm.archived_at IS NOT NULL' : 'm.archived_at IS NULL',
      ],
      params: p,
    });
  }

  async get(
    workspaceId: string,
    projectId: string,
    id: string,
    db: Queryable = this.ds,
    forUpdate = false,
  ): Promise<ModuleRow | null> {
    const rows = await db.query(
      `SELECT ${COLS} FROM modules m WHERE m.workspace_id = $1 AND m.project_id = $2 AND m.id = $3 AND m.deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
      [workspaceId, projectId, id],
    );
    return rows[0] ?? null;
  }

  async nameTaken(
    workspaceId: string,
    projectId: string,
    name: string,
    exceptId: string | null,
    db: Queryable,
  ): Promise<boolean> {
    const rows = await db.query(
      `SELECT 1 FROM modules WHERE workspace_id = $1 AND project_id = $2 AND name = $3 AND deleted_at IS NULL AND ($4::uuid IS NULL OR id <> $4)`,
      [workspaceId, projectId, name, exceptId],
    );
    return rows.length > 0;
  }

  /** Lowest sort_order among the project's modules, or null when it has none. */
  async minSortOrder(workspaceId: string, projectId: string, db: Queryable): Promise<number | null> {
    const rows = await db.query(
      `SELECT min(sort_order) AS m FROM modules WHERE workspace_id = $1 AND project_id = $2 AND deleted_at IS NULL`,
      [workspaceId, projectId],
    );
    return rows[0]?.m === null || rows[0]?.m === undefined ? null : Number(rows[0].m);
  }

  /** Is the user on the project's roster (an active membership of an active workspace member)? */
  async isProjectMember(workspaceId: string, projectId: string, userId: string, db: Queryable): Promise<boolean> {
    const rows = await db.query(
      `SELECT 1 FROM project_members pm
         JOIN workspace_members wm ON wm.workspace_id = pm.workspace_id AND wm.member_id = pm.member_id AND wm.deleted_at IS NULL AND wm.is_active
        WHERE pm.workspace_id = $1 AND pm.project_id = $2 AND pm.member_id = $3 AND pm.deleted_at IS NULL`,
      [workspaceId, projectId, userId],
    );
    return rows.length > 0;
  }

  async insert(
    workspaceId: string,
    projectId: string,
    v: ModuleWrite & { name: string; sort_order: number },
    userId: string,
    db: Queryable,
  ): Promise<string> {
    const rows = await db.query(
      `INSERT INTO modules (workspace_id, project_id, name, description, status, start_date, target_date, lead_id, sort_order,
                            logo_props, external_id, external_source, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       RETURNING id`,
      [
        workspaceId,
        projectId,
        v.name,
        v.description ?? '',
        v.status ?? 'planned',
        v.start_date ?? null,
        v.target_date ?? null,
        v.lead_id ?? null,
        v.sort_order,
        v.logo_props ?? {},
        v.external_id ?? null,
        v.external_source ?? null,
        userId,
      ],
    );
    return rows[0].id;
  }

  async update(workspaceId: string, id: string, v: ModuleWrite, db: Queryable): Promise<void> {
    await runPartialUpdate(db, MODULE_UPDATE, v, new SqlParams([workspaceId, id]));
  }

  async softDelete(workspaceId: string, id: string, db: Queryable): Promise<void> {
    await db.query(`UPDATE modules SET deleted_at = now() WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  }

  async setArchived(workspaceId: string, id: string, archived: boolean, db: Queryable): Promise<void> {
    await db.query(`UPDATE modules SET archived_at = CASE WHEN $3 THEN now() END WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      id,
      archived,
    ]);
  }
}
