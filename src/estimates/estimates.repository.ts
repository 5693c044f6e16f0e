import { ESTIMATE_LIST, POINT_LIST } from './estimates.queries';
import { Injectable } from '@nestjs/common';
import { PartialUpdate, runPartialUpdate } from '../common/database/partial-update';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';
import { EstimatePointRow, EstimateRow } from './estimates.mapper';

const E_COLS = `e.id, e.name, e.description, e.type, e.is_active, e.last_used, e.external_id, e.external_source, e.created_at, e.created_by_id`;
const P_COLS = `p.id, p.estimate_id, p.key, p.value, p.description, p.external_id, p.external_source, p.created_at, p.created_by_id`;

export interface EstimateWrite {
  name?: string;
  description?: string | null;
  type?: string;
  external_id?: string | null;
  external_source?: string | null;
}

/** The project whose estimates a work item write resolves against, with its workspace. */
export interface EstimateScope {
  workspaceId: string;
  projectId: string;
}

export interface PointWrite {
  key?: number;
  value?: string;
  description?: string | null;
  external_id?: string | null;
  external_source?: string | null;
}

/** The columns an estimate PATCH writes (the allow-list of its partial update). */
const ESTIMATE_UPDATE: PartialUpdate<EstimateWrite> = {
  table: 'estimates',
  where: 'workspace_id = $1 AND id = $2',
  columns: { name: {}, description: { nullAs: '' }, type: {}, external_id: {}, external_source: {} },
};

/** The columns an estimate point PATCH writes. */
const POINT_UPDATE: PartialUpdate<PointWrite> = {
  table: 'estimate_points',
  where: 'workspace_id = $1 AND id = $2',
  columns: { key: {}, value: {}, description: { nullAs: '' }, external_id: {}, external_source: {} },
};

/**
 * Estimates and their points. Every statement names its workspace (`workspace_id = $1`), also where the row's
 * id alone would do: the primary keys are (workspace_id, id), and a PostgreSQL distributed by workspace routes
 * such a statement to one shard (docs/scaling.md).
 */
@Injectable()
export class EstimatesRepository {
  constructor(private readonly ds: DataSource) {}

  list(workspaceId: string, projectId: string, q: ListQuery) {
    return runList<EstimateRow>(this.ds, ESTIMATE_LIST, q, {
      select: E_COLS,
      from: 'estimates e',
      where: ['e.workspace_id = $1', 'e.project_id = $2', 'e.deleted_at IS NULL'],
      params: new SqlParams([workspaceId, projectId]),
    });
  }

  async get(
    workspaceId: string,
    projectId: string,
    id: string,
    db: Queryable = this.ds,
    forUpdate = false,
  ): Promise<EstimateRow | null> {
    const rows = await db.query(
      `SELECT ${E_COLS} FROM estimates e WHERE e.workspace_id = $1 AND e.project_id = $2 AND e.id = $3 AND e.deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
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
      `SELECT 1 FROM estimates WHERE workspace_id = $1 AND project_id = $2 AND name = $3 AND deleted_at IS NULL
          AND ($4::uuid IS NULL OR id <> $4)`,
      [workspaceId, projectId, name, exceptId],
    );
    return rows.length > 0;
  }

  /** Serialises activation changes of one project's estimates until the transaction ends. */
  async lockProject(projectId: string, db: Queryable): Promise<void> {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('estimates:' || $1::text))`, [projectId]);
  }

  async hasActive(workspaceId: string, projectId: string, db: Queryable): Promise<boolean> {
    const rows = await db.query(
      `SELECT 1 FROM estimates WHERE workspace_id = $1 AND project_id = $2 AND is_active AND deleted_at IS NULL`,
      [workspaceId, projectId],
    );
    return rows.length > 0;
  }

  /** Makes `id` the only active estimate of the project, and the last used one. */
  async activate(workspaceId: string, projectId: string, id: string, db: Queryable): Promise<void> {
    await db.query(
      `UPDATE estimates SET is_active = false, last_used = false, updated_at = now()
        WHERE workspace_id = $1 AND project_id = $2 AND id <> $3 AND deleted_at IS NULL AND (is_active OR last_used)`,
      [workspaceId, projectId, id],
    );
    await db.query(
      `UPDATE estimates SET is_active = true, last_used = true, updated_at = now() WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
    );
  }

  async deactivate(workspaceId: string, id: string, db: Queryable): Promise<void> {
    await db.query(`UPDATE estimates SET is_active = false, updated_at = now() WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      id,
    ]);
  }

  async insert(
    workspaceId: string,
    projectId: string,
    v: EstimateWrite & { name: string; type: string },
    createdBy: string,
    db: Queryable,
  ): Promise<EstimateRow> {
    const rows = await db.query(
      `INSERT INTO estimates AS e (workspace_id, project_id, name, description, type, external_id, external_source, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${E_COLS}`,
      [
        workspaceId,
        projectId,
        v.name,
        v.description ?? '',
        v.type,
        v.external_id ?? null,
        v.external_source ?? null,
        createdBy,
      ],
    );
    return rows[0];
  }

  async update(workspaceId: string, id: string, v: EstimateWrite, db: Queryable): Promise<void> {
    await runPartialUpdate(db, ESTIMATE_UPDATE, v, new SqlParams([workspaceId, id]));
  }

  async softDelete(workspaceId: string, id: string, db: Queryable): Promise<void> {
    await db.query(
      `UPDATE estimate_points SET deleted_at = now() WHERE workspace_id = $1 AND estimate_id = $2 AND deleted_at IS NULL`,
      [workspaceId, id],
    );
    await db.query(`UPDATE estimates SET deleted_at = now(), is_active = false WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      id,
    ]);
  }

  // ---- points ----

  listPoints(workspaceId: string, projectId: string, estimateId: string, q: ListQuery) {
    return runList<EstimatePointRow>(this.ds, POINT_LIST, q, {
      select: P_COLS,
      from: 'estimate_points p',
      where: ['p.workspace_id = $1', 'p.project_id = $2', 'p.estimate_id = $3', 'p.deleted_at IS NULL'],
      params: new SqlParams([workspaceId, projectId, estimateId]),
    });
  }

  /** Points of several estimates (expand=points), ordered by key. */
  async pointsOf(workspaceId: string, estimateIds: string[], db: Queryable = this.ds): Promise<EstimatePointRow[]> {
    if (!estimateIds.length) return [];
    return db.query(
      `SELECT ${P_COLS} FROM estimate_points p WHERE p.workspace_id = $1 AND p.estimate_id = ANY($2::uuid[]) AND p.deleted_at IS NULL ORDER BY p.key, p.id`,
      [workspaceId, estimateIds],
    );
  }

  async getPoint(
    workspaceId: string,
    estimateId: string,
    id: string,
    db: Queryable = this.ds,
  ): Promise<EstimatePointRow | null> {
    const rows = await db.query(
      `SELECT ${P_COLS} FROM estimate_points p WHERE p.workspace_id = $1 AND p.estimate_id = $2 AND p.id = $3 AND p.deleted_at IS NULL`,
      [workspaceId, estimateId, id],
    );
    return rows[0] ?? null;
  }

  async valueTaken(
    workspaceId: string,
    estimateId: string,
    value: string,
    exceptId: string | null,
    db: Queryable,
  ): Promise<boolean> {
    const rows = await db.query(
      `SELECT 1 FROM estimate_points WHERE workspace_id = $1 AND estimate_id = $2 AND value = $3 AND deleted_at IS NULL
          AND ($4::uuid IS NULL OR id <> $4)`,
      [workspaceId, estimateId, value, exceptId],
    );
    return rows.length > 0;
  }

  async nextKey(workspaceId: string, estimateId: string, db: Queryable): Promise<number> {
    const rows = await db.query(
      `SELECT COALESCE(max(key), 0) + 1 AS k FROM estimate_points WHERE workspace_id = $1 AND estimate_id = $2 AND deleted_at IS NULL`,
      [workspaceId, estimateId],
    );
    return Number(rows[0].k);
  }

  /** Values of the estimate's live points (checked when the estimate's type becomes numeric). */
  async pointValues(workspaceId: string, estimateId: string, db: Queryable): Promise<string[]> {
    const rows: Array<{ value: string }> = await db.query(
      `SELECT value FROM estimate_points WHERE workspace_id = $1 AND estimate_id = $2 AND deleted_at IS NULL`,
      [workspaceId, estimateId],
    );
    return rows.map((r) => r.value);
  }

  async insertPoint(
    workspaceId: string,
    projectId: string,
    estimateId: string,
    v: PointWrite & { key: number; value: string },
    createdBy: string,
    db: Queryable,
  ): Promise<EstimatePointRow> {
    const rows = await db.query(
      `INSERT INTO estimate_points AS p (workspace_id, project_id, estimate_id, key, value, description, external_id, external_source, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${P_COLS}`,
      [
        workspaceId,
        projectId,
        estimateId,
        v.key,
        v.value,
        v.description ?? '',
        v.external_id ?? null,
        v.external_source ?? null,
        createdBy,
      ],
    );
    return rows[0];
  }

  async updatePoint(workspaceId: string, id: string, v: PointWrite, db: Queryable): Promise<void> {
    await runPartialUpdate(db, POINT_UPDATE, v, new SqlParams([workspaceId, id]));
  }

  async softDeletePoint(workspaceId: string, id: string, db: Queryable): Promise<void> {
    await db.query(`UPDATE estimate_points SET deleted_at = now() WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      id,
    ]);
  }

  /**
   * The point row FOR UPDATE, before its items are cleared: a work item write holds it FOR KEY SHARE, which
   * the soft delete's own UPDATE does not conflict with, so without this a write could link the point
   * after the items were cleared. False when it was deleted meanwhile.
   */
  async lockPoint(workspaceId: string, id: string, db: Queryable): Promise<boolean> {
    const rows = await db.query(
      `SELECT id FROM estimate_points WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE`,
      [workspaceId, id],
    );
    return rows.length > 0;
  }

  /**
   * Clears `estimate_point_id` on the work items that carry one of these points (their estimate or
   * point is being deleted), in the delete's transaction.
   */
  async clearPointsFromWorkItems(workspaceId: string, pointIds: string[], db: Queryable): Promise<void> {
    if (!pointIds.length) return;
    await db.query(
      `UPDATE work_items SET estimate_point_id = NULL, updated_at = now() WHERE workspace_id = $1 AND estimate_point_id = ANY($2::uuid[])`,
      [workspaceId, pointIds],
    );
  }

  async livePointIds(workspaceId: string, estimateId: string, db: Queryable): Promise<string[]> {
    const rows: Array<{ id: string }> = await db.query(
      `SELECT id FROM estimate_points WHERE workspace_id = $1 AND estimate_id = $2 AND deleted_at IS NULL`,
      [workspaceId, estimateId],
    );
    return rows.map((r) => r.id);
  }

  // ---- resolution (work item writes) ----

  /**
   * Live points of the project's active estimate matching the id, or the value case-insensitively
   * (at most two rows: enough to tell "one" from "several"), plus whether estimates are enabled.
   */
  async activePointsMatching(
    scope: EstimateScope,
    by: { id: string } | { value: string },
    db: Queryable,
  ): Promise<Array<{ id: string }>> {
    const cond = 'id' in by ? 'p.id = $3::uuid' : 'lower(p.value) = lower($3)';
    return db.query(
      `SELECT p.id FROM estimate_points p
         JOIN estimates e ON e.workspace_id = p.workspace_id AND e.id = p.estimate_id AND e.is_active AND e.deleted_at IS NULL
        WHERE p.workspace_id = $1 AND p.project_id = $2 AND ${cond} AND p.deleted_at IS NULL
        LIMIT 2`,
      [scope.workspaceId, scope.projectId, 'id' in by ? by.id : by.value],
    );
  }

  /** Estimates switch of the project (a project without a features row has the default: on) and whether it has an active estimate. */
  async resolutionContext(scope: EstimateScope, db: Queryable): Promise<{ enabled: boolean; active: boolean }> {
    const rows = await db.query(
      `SELECT COALESCE((SELECT is_estimates_enabled FROM project_features WHERE workspace_id = $1 AND project_id = $2), true) AS enabled,
              EXISTS (SELECT 1 FROM estimates WHERE workspace_id = $1 AND project_id = $2 AND is_active AND deleted_at IS NULL) AS active`,
      [scope.workspaceId, scope.projectId],
    );
    return rows[0];
  }
}
