import { CYCLE_LIST } from './cycles.queries';
import { Injectable } from '@nestjs/common';
import { PartialUpdate, runPartialUpdate } from '../common/database/partial-update';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';

export interface CycleRow extends Record<string, unknown> {
  id: string;
  name: string;
  description: string;
  start_date: Date | null;
  end_date: Date | null;
  timezone: string;
  owned_by_id: string;
  sort_order: number;
  logo_props: Record<string, unknown>;
  external_id: string | null;
  external_source: string | null;
  archived_at: Date | null;
  created_at: Date;
  created_by_id: string | null;
}

const COLS = `c.id, c.name, c.description, c.start_date, c.end_date, c.timezone, c.owned_by_id, c.sort_order, c.logo_props,
  c.external_id, c.external_source, c.archived_at, c.created_at, c.created_by_id`;

export interface CycleWrite {
  name?: string;
  description?: string | null;
  start_date?: string | null;
  end_date?: string | null;
  timezone?: string;
  sort_order?: number;
  logo_props?: Record<string, unknown> | null;
  external_id?: string | null;
  external_source?: string | null;
}

/** The columns a cycle PATCH writes (the allow-list of its partial update). */
const CYCLE_UPDATE: PartialUpdate<CycleWrite> = {
  table: 'cycles',
  where: 'workspace_id = $1 AND id = $2',
  columns: {
    name: {},
    description: { nullAs: '' },
    start_date: {},
    end_date: {},
    timezone: {},
    sort_order: {},
    logo_props: { nullAs: {} },
    external_id: {},
    external_source: {},
  },
};

@Injectable()
export class CyclesRepository {
  constructor(private readonly ds: DataSource) {}

  /** The live list, or (`archived`) the archived list: each holds the other's rows back. */
  list(workspaceId: string, projectId: string, q: ListQuery, archived = false) {
    const p = new SqlParams([workspaceId, projectId]);
    return runList<CycleRow>(this.ds, CYCLE_LIST, q, {
      select: COLS,
      from: 'cycles c',
      where: [
        'c.workspace_id = $1',
        'c.project_id = $2',
        'c.deleted_at IS NULL',
        archived ? 'c.archived_at IS NOT NULL' : 'c.archived_at IS NULL',
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
  ): Promise<CycleRow | null> {
    const rows = await db.query(
      `SELECT ${COLS} FROM cycles c WHERE c.workspace_id = $1 AND c.project_id = $2 AND c.id = $3 AND c.deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
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
      `SELECT 1 FROM cycles WHERE workspace_id = $1 AND project_id = $2 AND name = $3 AND deleted_at IS NULL AND ($4::uuid IS NULL OR id <> $4)`,
      [workspaceId, projectId, name, exceptId],
    );
    return rows.length > 0;
  }

  /** Default position of a new cycle: after the project's existing ones. */
  async nextSortOrder(workspaceId: string, projectId: string, db: Queryable): Promise<number> {
    const rows = await db.query(
      `SELECT max(sort_order) AS m FROM cycles WHERE workspace_id = $1 AND project_id = $2 AND deleted_at IS NULL`,
      [workspaceId, projectId],
    );
    return rows[0]?.m === null || rows[0]?.m === undefined ? 65535 : Number(rows[0].m) + 1000;
  }

  async insert(
    workspaceId: string,
    projectId: string,
    v: CycleWrite & { name: string; sort_order: number },
    userId: string,
    db: Queryable,
  ): Promise<CycleRow> {
    const rows = await db.query(
      `INSERT INTO cycles (workspace_id, project_id, name, description, start_date, end_date, timezone, owned_by_id, sort_order,
                           logo_props, external_id, external_source, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $8)
       RETURNING ${COLS.replace(/c\./g, '')}`,
      [
        workspaceId,
        projectId,
        v.name,
        v.description ?? '',
        v.start_date ?? null,
        v.end_date ?? null,
        v.timezone ?? 'UTC',
        userId,
        v.sort_order,
        v.logo_props ?? {},
        v.external_id ?? null,
        v.external_source ?? null,
      ],
    );
    return rows[0];
  }

  async update(workspaceId: string, id: string, v: CycleWrite, db: Queryable): Promise<void> {
    await runPartialUpdate(db, CYCLE_UPDATE, v, new SqlParams([workspaceId, id]));
  }

  async softDelete(workspaceId: string, id: string, db: Queryable): Promise<void> {
    await db.query(`UPDATE cycles SET deleted_at = now() WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  }

  async setArchived(workspaceId: string, id: string, archived: boolean, db: Queryable): Promise<void> {
    await db.query(`UPDATE cycles SET archived_at = CASE WHEN $3 THEN now() END WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      id,
      archived,
    ]);
  }
}
