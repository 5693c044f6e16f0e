import { LABEL_LIST } from './labels.queries';
import { Injectable } from '@nestjs/common';
import { PartialUpdate, runPartialUpdate } from '../common/database/partial-update';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';
import { LabelRow } from './labels.mapper';

/**
 * Where a label lives: a project (`projectId`) or the workspace-level set (`projectId` null).
 * Every query of this repository is scoped by both.
 */
export interface LabelScope {
  workspaceId: string;
  projectId: string | null;
}

const COLS = `l.id, l.project_id, l.name, l.description, l.color, l.sort_order, l.parent_id, l.external_id, l.external_source,
  l.created_at, l.created_by_id`;

/** Gap left between an appended label and the last one. */
export const SORT_STEP = 65535;

export interface LabelWrite {
  name?: string;
  color?: string | null;
  description?: string | null;
  parent_id?: string | null;
  sort_order?: number;
  external_id?: string | null;
  external_source?: string | null;
}

/** `l.workspace_id = $1 AND l.project_id = $2` or `... IS NULL`: the scope condition with its params. */
function scopeWhere(s: LabelScope, alias = 'l'): { where: string[]; params: SqlParams } {
  const params = new SqlParams([s.workspaceId]);
  const where = [`${alias}.workspace_id = $1`, `${alias}.deleted_at IS NULL`];
  where.push(
    s.projectId === null ? `${alias}.project_id IS NULL` : `${alias}.project_id = ${params.add(s.projectId)}::uuid`,
  );
  return { where, params };
}

/**
 * SQL: the links `x` of workspace $1 to label $2 whose item is live (`live` 'true') or not ('false'), a condition that
 * reads that side's index: a live item's links lead `ix_work_item_labels_list`, the others' `ix_work_item_labels_not_live`
 * (migration LinkKeyIndexesNotLiveOnly: no index holds every link of a label any more).
 */
const CARRIER_LINKS = (live: 'true' | 'false') => `x.workspace_id = $1 AND x.label_id = $2 AND x.item_live = ${live}`;
const CARRIERS = (live: 'true' | 'false') =>
  `SELECT x.work_item_id FROM work_item_labels x WHERE ${CARRIER_LINKS(live)}`;

/** The columns a label PATCH writes (the allow-list of its partial update). */
const LABEL_UPDATE: PartialUpdate<LabelWrite> = {
  table: 'labels',
  where: 'id = $1 AND workspace_id = $2',
  columns: {
    name: {},
    color: {},
    description: { nullAs: '' },
    parent_id: {},
    sort_order: {},
    external_id: {},
    external_source: {},
  },
};

@Injectable()
export class LabelsRepository {
  constructor(private readonly ds: DataSource) {}

  list(s: LabelScope, q: ListQuery) {
    const { where, params } = scopeWhere(s);
    return runList<LabelRow>(this.ds, LABEL_LIST, q, { select: COLS, from: 'labels l', where, params });
  }

  async get(s: LabelScope, id: string, db: Queryable = this.ds, forUpdate = false): Promise<LabelRow | null> {
    const { where, params } = scopeWhere(s);
    const rows = await db.query(
      `SELECT ${COLS} FROM labels l WHERE ${where.join(' AND ')} AND l.id = ${params.add(id)}::uuid${forUpdate ? ' FOR UPDATE' : ''}`,
      params.values,
    );
    return rows[0] ?? null;
  }

  async nameTaken(s: LabelScope, name: string, exceptId: string | null, db: Queryable): Promise<boolean> {
    const { where, params } = scopeWhere(s);
    const nameRef = params.add(name);
    const exceptRef = params.add(exceptId);
    const rows = await db.query(
      `SELECT 1 FROM labels l WHERE ${where.join(' AND ')} AND l.name = ${nameRef} AND (${exceptRef}::uuid IS NULL OR l.id <> ${exceptRef}::uuid)`,
      params.values,
    );
    return rows.length > 0;
  }

  /** The ids of `id` and all its ancestors, nearest first (bounded, so a corrupt loop cannot spin). */
  async ancestry(s: LabelScope, id: string, db: Queryable): Promise<string[]> {
    const rows: Array<{ id: string }> = await db.query(
      `WITH RECURSIVE up(id, parent_id, depth) AS (
         SELECT id, parent_id, 0 FROM labels WHERE id = $1 AND workspace_id = $2 AND deleted_at IS NULL
         UNION ALL
         SELECT l.id, l.parent_id, up.depth + 1 FROM labels l JOIN up ON l.id = up.parent_id
          WHERE l.workspace_id = $2 AND l.deleted_at IS NULL AND up.depth < 100
       ) SELECT id FROM up ORDER BY depth`,
      [id, s.workspaceId],
    );
    return rows.map((r) => r.id);
  }

  async nextSortOrder(s: LabelScope, db: Queryable): Promise<number> {
    const { where, params } = scopeWhere(s);
    const rows = await db.query(
      `SELECT COALESCE(max(l.sort_order), 0) + ${SORT_STEP} AS v FROM labels l WHERE ${where.join(' AND ')}`,
      params.values,
    );
    return Number(rows[0].v);
  }

  async insert(
    s: LabelScope,
    v: LabelWrite & { name: string; sort_order: number },
    createdBy: string,
    db: Queryable,
  ): Promise<LabelRow> {
    const rows = await db.query(
      `INSERT INTO labels AS l (workspace_id, project_id, name, color, description, parent_id, sort_order, external_id, external_source, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       RETURNING ${COLS}`,
      [
        s.workspaceId,
        s.projectId,
        v.name,
        v.color ?? null,
        v.description ?? '',
        v.parent_id ?? null,
        v.sort_order,
        v.external_id ?? null,
        v.external_source ?? null,
        createdBy,
      ],
    );
    return rows[0];
  }

  async update(workspaceId: string, id: string, v: LabelWrite, db: Queryable): Promise<void> {
    await runPartialUpdate(db, LABEL_UPDATE, v, new SqlParams([id, workspaceId]));
  }

  /**
   * Locks the work items carrying the label (FOR NO KEY UPDATE, in key order), before the label itself is locked.
   * Stripping the label makes its link triggers lock these items (migration WorkItemLinkGaps); a PATCH locks its item,
   * then its labels FOR KEY SHARE: taken after the label, the items' locks would close a cycle with such a PATCH.
   */
  async lockCarriers(workspaceId: string, labelId: string, db: Queryable): Promise<void> {
    await db.query(
      `SELECT 1 FROM (${CARRIERS('true')} UNION ALL ${CARRIERS('false')} ORDER BY 1) k
        CROSS JOIN LATERAL (SELECT 1 FROM work_items w WHERE w.workspace_id = $1 AND w.id = k.work_item_id FOR NO KEY UPDATE OF w) l`,
      [workspaceId, labelId],
    );
  }

  /**
   * Removes the label from every work item carrying it (gap-reference 3.4: items otherwise untouched), in the delete's
   * transaction: the live items' links, then the others' (each read by its own index, CARRIERS).
   */
  async stripFromWorkItems(workspaceId: string, labelId: string, db: Queryable): Promise<void> {
    for (const live of ['true', 'false'] as const) {
      await db.query(`DELETE FROM work_item_labels x WHERE ${CARRIER_LINKS(live)}`, [workspaceId, labelId]);
    }
  }

  /** Soft-deletes a label; its children move to the top level. */
  async softDelete(s: LabelScope, id: string, db: Queryable): Promise<void> {
    await db.query(
      `UPDATE labels SET parent_id = NULL, updated_at = now() WHERE workspace_id = $1 AND parent_id = $2 AND deleted_at IS NULL`,
      [s.workspaceId, id],
    );
    await db.query(`UPDATE labels SET deleted_at = now() WHERE workspace_id = $1 AND id = $2`, [s.workspaceId, id]);
  }
}
