import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Viewer, WORK_ITEM_READER_ROLES } from '../common/auth/roles';
import { Queryable } from '../common/pagination/sql-params';

export type RelationKind = 'relation' | 'dependency';

/** One stored relation: `source` is the outward end. `key` is the definition id or the dependency type. */
export interface RelationPair {
  source_id: string;
  target_id: string;
  source_project_id: string;
  target_project_id: string;
}

/** A stored relation row, as a webhook event reports it. */
export interface RelationRow extends RelationPair {
  id: string;
  kind: RelationKind;
  definition_id: string | null;
  dependency_type: string | null;
  created_at: Date;
  created_by_id: string | null;
}

const ROW_COLS = `id, kind, definition_id, dependency_type, source_id, target_id, source_project_id, target_project_id,
  created_at, created_by_id`;

/** A relation seen from one work item: which end it is and the other item. */
export interface RelationEnd extends Record<string, unknown> {
  key: string;
  outward: boolean;
  other_id: string;
}

/** SQL: work item `w` is live (item and project) and in a project whose items the viewer ($3 user, $4 all) reads. */
const VISIBLE = (w: string) => `${w}.deleted_at IS NULL
  AND EXISTS (SELECT 1 FROM projects vp WHERE vp.workspace_id = ${w}.workspace_id AND vp.id = ${w}.project_id AND vp.deleted_at IS NULL)
  AND ($4::boolean OR EXISTS (SELECT 1 FROM project_members rp
       WHERE rp.workspace_id = ${w}.workspace_id AND rp.project_id = ${w}.project_id AND rp.member_id = $3::uuid
       AND rp.deleted_at IS NULL AND rp.role IN (${WORK_ITEM_READER_ROLES.map((r) => `'${r}'`).join(', ')})))`;

const KEY = `COALESCE(r.definition_id::text, r.dependency_type)`;

/** Relations and dependencies between work items of one workspace; every statement is scoped by workspace. */
@Injectable()
export class WorkItemRelationsRepository {
  constructor(private readonly ds: DataSource) {}

  /** The live, unarchived work item of the path's project; in a write, held FOR KEY SHARE until commit. */
  async workItemExists(workspaceId: string, projectId: string, id: string, db: Queryable = this.ds, lock = false) {
    const rows = await db.query(
      `SELECT 1 FROM work_items WHERE workspace_id = $1 AND project_id = $2 AND id = $3 AND deleted_at IS NULL
          AND archived_at IS NULL${lock ? ' FOR KEY SHARE' : ''}`,
      [workspaceId, projectId, id],
    );
    return rows.length > 0;
  }

  /** Of `ids`, the work items of the workspace the viewer can read (any project), locked FOR KEY SHARE. */
  async visibleItems(workspaceId: string, ids: string[], viewer: Viewer, db: Queryable): Promise<Map<string, string>> {
    const rows: Array<{ id: string; project_id: string }> = await db.query(
      `SELECT w.id, w.project_id FROM work_items w
        WHERE w.workspace_id = $1 AND w.id = ANY($2::uuid[]) AND w.archived_at IS NULL AND ${VISIBLE('w')}
        ORDER BY w.id FOR KEY SHARE OF w`,
      [workspaceId, ids, viewer.userId, viewer.allProjects],
    );
    return new Map(rows.map((r) => [r.id, r.project_id]));
  }

  /**
   * The relations of `kind` of the item whose other end the viewer can read (deleted items drop out): the rows where
   * it is the source and those where it is the target (one index each), then each other item by primary key.
   */
  async ends(workspaceId: string, itemId: string, kind: RelationKind, viewer: Viewer): Promise<RelationEnd[]> {
    return this.ds.query(
      `SELECT e.key, e.outward, o.id AS other_id
         FROM (SELECT ${KEY} AS key, true AS outward, r.target_id AS other_id FROM work_item_relations r
                WHERE r.source_id = $2 AND r.kind = $5 AND r.workspace_id = $1
               UNION ALL
               SELECT ${KEY}, false, r.source_id FROM work_item_relations r
                WHERE r.target_id = $2 AND r.kind = $5 AND r.workspace_id = $1) e
         JOIN work_items o ON o.id = e.other_id AND o.workspace_id = $1
        WHERE ${VISIBLE('o')}
        ORDER BY o.id`,
      [workspaceId, itemId, viewer.userId, viewer.allProjects, kind],
    );
  }

  /**
   * Inserts the pairs (ordered by target, so concurrent writers lock index entries in one order); a pair already
   * related by this key, in either direction, is left alone by the unique index. Returns, for every pair that was
   * not inserted, whether the stored relation runs the other way (a conflict for an asymmetric kind).
   */
  async insert(
    workspaceId: string,
    kind: RelationKind,
    key: { definition_id: string | null; dependency_type: string | null },
    pairs: RelationPair[],
    userId: string,
    db: Queryable,
  ): Promise<{ inserted: RelationRow[]; reversed: string[] }> {
    const col = (k: keyof RelationPair) => pairs.map((p) => p[k]);
    const inserted: RelationRow[] = await db.query(
      `INSERT INTO work_item_relations (workspace_id, kind, definition_id, dependency_type, source_id, target_id,
                                        source_project_id, target_project_id, created_by_id)
       SELECT $1, $2, $3, $4, x.s, x.t, x.sp, x.tp, $5
         FROM unnest($6::uuid[], $7::uuid[], $8::uuid[], $9::uuid[]) AS x(s, t, sp, tp)
        ORDER BY x.t, x.s
       ON CONFLICT DO NOTHING
       RETURNING ${ROW_COLS}`,
      [
        workspaceId,
        kind,
        key.definition_id,
        key.dependency_type,
        userId,
        col('source_id'),
        col('target_id'),
        col('source_project_id'),
        col('target_project_id'),
      ],
    );
    const reversed: Array<{ other: string }> = await db.query(
      `SELECT x.t AS other FROM unnest($3::uuid[], $4::uuid[]) AS x(s, t)
         JOIN work_item_relations r ON r.workspace_id = $1 AND r.kind = $2 AND ${KEY} = $5
          AND LEAST(r.source_id, r.target_id) = LEAST(x.s, x.t) AND GREATEST(r.source_id, r.target_id) = GREATEST(x.s, x.t)
          AND r.source_id = x.t`,
      [workspaceId, kind, col('source_id'), col('target_id'), key.definition_id ?? key.dependency_type],
    );
    return { inserted, reversed: reversed.map((r) => r.other) };
  }

  /** Removes every relation of `kind` between the two items; returns the removed rows. */
  async removePair(
    workspaceId: string,
    kind: RelationKind,
    a: string,
    b: string,
    db: Queryable,
  ): Promise<RelationRow[]> {
    // As a CTE: TypeORM answers a bare DELETE ... RETURNING with [rows, count].
    return db.query(
      `WITH d AS (
         DELETE FROM work_item_relations
          WHERE workspace_id = $1 AND kind = $2 AND ((source_id = $3 AND target_id = $4) OR (source_id = $4 AND target_id = $3))
          RETURNING ${ROW_COLS})
       SELECT * FROM d ORDER BY created_at, id`,
      [workspaceId, kind, a, b],
    );
  }
}
