import { TYPE_LIST } from './work-item-types.queries';
import { Injectable } from '@nestjs/common';
import { PartialUpdate, partialUpdateSql } from '../common/database/partial-update';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';
import { writtenRows } from './sql-result';
import { visibleInProject } from './work-item-types.queries';
import { TypeRow } from './work-item-types.mapper';

/** Who owns a type or property: a project (project level) or the workspace (`projectId` null). */
export interface Owner {
  workspaceId: string;
  projectId: string | null;
}

const COLS = `t.id, t.workspace_id, t.project_id, t.name, t.description, t.is_active, t.is_default, t.is_epic, t.level,
  t.logo_props, t.external_id, t.external_source, t.created_at`;

export interface TypeWrite {
  name?: string;
  description?: string | null;
  is_active?: boolean;
  external_id?: string | null;
  external_source?: string | null;
}

/** The columns a type PATCH writes (the allow-list of its partial update); it always stamps and returns the row. */
const TYPE_UPDATE: PartialUpdate<TypeWrite> = {
  table: 'work_item_types t',
  where: 't.id = $1 AND t.workspace_id = $2',
  columns: { name: {}, description: { nullAs: '' }, is_active: {}, external_id: {}, external_source: {} },
  always: true,
  returning: COLS,
};

/** `t` is owned by `owner` (not merely visible in a project). */
function ownedBy(owner: Owner, p: SqlParams): string {
  return owner.projectId ? `t.project_id = ${p.add(owner.projectId)}::uuid` : 't.project_id IS NULL';
}

/**
 * `t` is the default type of the project (`projectRef`) in the workspace's current mode: the type a
 * work item created there without a type gets. Project mode: the project's own default; workspace
 * mode: the workspace default (when imported). So exactly one type of a project's roster reports
 * `is_default` (none when the mode's default is not on the roster), even when the project still lists
 * its own default from an earlier project mode next to the imported workspace default.
 */
export function isProjectDefaultSql(alias: string, workspaceRef: string): string {
  return `(${alias}.is_default AND ${alias}.is_active AND NOT ${alias}.is_epic
    AND (CASE WHEN COALESCE((SELECT f.is_work_item_types_enabled FROM workspace_features f WHERE f.workspace_id = ${workspaceRef}), false)
              THEN ${alias}.project_id IS NULL ELSE ${alias}.project_id IS NOT NULL END))`;
}

/** Type columns as a project's roster shows them: is_default as the project's default (isProjectDefaultSql). */
const ROSTER_COLS = COLS.replace('t.is_default,', `${isProjectDefaultSql('t', 't.workspace_id')} AS is_default,`);

@Injectable()
export class WorkItemTypesRepository {
  constructor(private readonly ds: DataSource) {}

  /** Project surface: the project's own types plus imported workspace types (is_default: the project's default in the current mode); workspace surface: workspace types. */
  list(owner: Owner, q: ListQuery) {
    const p = new SqlParams([owner.workspaceId]);
    const where = ['t.workspace_id = $1', 't.deleted_at IS NULL'];
    where.push(owner.projectId ? visibleInProject(`${p.add(owner.projectId)}::uuid`) : 't.project_id IS NULL');
    return runList<TypeRow>(this.ds, TYPE_LIST, q, {
      select: owner.projectId ? ROSTER_COLS : COLS,
      from: 'work_item_types t',
      where,
      params: p,
    });
  }

  /** A type on the project's roster (own or imported): what reads of the project surface address (is_default as the roster shows it). */
  async getInProject(
    workspaceId: string,
    projectId: string,
    id: string,
    db: Queryable = this.ds,
  ): Promise<TypeRow | null> {
    const rows = await db.query(
      `SELECT ${ROSTER_COLS} FROM work_item_types t
        WHERE t.workspace_id = $1 AND t.id = $3 AND t.deleted_at IS NULL AND ${visibleInProject('$2::uuid')}`,
      [workspaceId, projectId, id],
    );
    return rows[0] ?? null;
  }

  /** A type owned by `owner`: what writes address (an imported workspace type is not a project's own). */
  async getOwned(owner: Owner, id: string, db: Queryable = this.ds, forUpdate = false): Promise<TypeRow | null> {
    const p = new SqlParams([owner.workspaceId, id]);
    const rows = await db.query(
      `SELECT ${COLS} FROM work_item_types t
        WHERE t.workspace_id = $1 AND t.id = $2 AND t.deleted_at IS NULL AND ${ownedBy(owner, p)}${forUpdate ? ' FOR UPDATE' : ''}`,
      p.values,
    );
    return rows[0] ?? null;
  }

  async getDefault(owner: Owner, db: Queryable = this.ds): Promise<TypeRow | null> {
    const p = new SqlParams([owner.workspaceId]);
    const rows = await db.query(
      `SELECT ${COLS} FROM work_item_types t WHERE t.workspace_id = $1 AND t.is_default AND t.deleted_at IS NULL AND ${ownedBy(owner, p)}`,
      p.values,
    );
    return rows[0] ?? null;
  }

  async hasEpic(owner: Owner, db: Queryable): Promise<boolean> {
    const p = new SqlParams([owner.workspaceId]);
    const rows = await db.query(
      `SELECT 1 FROM work_item_types t WHERE t.workspace_id = $1 AND t.is_epic AND t.deleted_at IS NULL AND ${ownedBy(owner, p)} LIMIT 1`,
      p.values,
    );
    return rows.length > 0;
  }

  async nameTaken(owner: Owner, name: string, exceptId: string | null, db: Queryable): Promise<boolean> {
    const p = new SqlParams([owner.workspaceId, name, exceptId]);
    const rows = await db.query(
      `SELECT 1 FROM work_item_types t WHERE t.workspace_id = $1 AND lower(t.name) = lower($2) AND t.deleted_at IS NULL
          AND ($3::uuid IS NULL OR t.id <> $3) AND ${ownedBy(owner, p)}`,
      p.values,
    );
    return rows.length > 0;
  }

  async externalTaken(
    owner: Owner,
    externalId: string,
    externalSource: string | null,
    exceptId: string | null,
    db: Queryable,
  ): Promise<boolean> {
    const p = new SqlParams([owner.workspaceId, externalId, externalSource, exceptId]);
    const rows = await db.query(
      `SELECT 1 FROM work_item_types t WHERE t.workspace_id = $1 AND t.external_id = $2 AND t.external_source IS NOT DISTINCT FROM $3
          AND t.deleted_at IS NULL AND ($4::uuid IS NULL OR t.id <> $4) AND ${ownedBy(owner, p)}`,
      p.values,
    );
    return rows.length > 0;
  }

  /** Serializes default/enable changes of one owner (transaction-scoped advisory lock). */
  async lockOwner(owner: Owner, db: Queryable): Promise<void> {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('work_item_types:' || $1))`, [
      owner.projectId ?? owner.workspaceId,
    ]);
  }

  async insert(
    owner: Owner,
    v: TypeWrite & {
      name: string;
      is_default?: boolean;
      is_epic?: boolean;
      level?: number;
      logo_props: Record<string, unknown>;
    },
    createdBy: string | null,
    db: Queryable,
  ): Promise<TypeRow> {
    const rows = await db.query(
      `INSERT INTO work_item_types AS t (workspace_id, project_id, name, description, is_active, is_default, is_epic, level, logo_props,
                                         external_id, external_source, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       RETURNING ${COLS}`,
      [
        owner.workspaceId,
        owner.projectId,
        v.name,
        v.description ?? '',
        v.is_active ?? true,
        v.is_default ?? false,
        v.is_epic ?? false,
        v.level ?? 0,
        v.logo_props,
        v.external_id ?? null,
        v.external_source ?? null,
        createdBy,
      ],
    );
    return rows[0];
  }

  async update(workspaceId: string, id: string, v: TypeWrite, db: Queryable): Promise<TypeRow> {
    const p = new SqlParams([id, workspaceId]);
    const rows = writtenRows<TypeRow>(await db.query(partialUpdateSql(TYPE_UPDATE, v, p)!, p.values));
    return rows[0];
  }

  /** Moves the default of the owner to `id` (the previous holder is demoted first: never two defaults). */
  async setDefault(owner: Owner, id: string, db: Queryable): Promise<TypeRow> {
    const p = new SqlParams([owner.workspaceId, id]);
    await db.query(
      `UPDATE work_item_types t SET is_default = false, updated_at = now()
        WHERE t.workspace_id = $1 AND t.is_default AND t.id <> $2 AND t.deleted_at IS NULL AND ${ownedBy(owner, p)}`,
      p.values,
    );
    const rows = writtenRows<TypeRow>(
      await db.query(
        `UPDATE work_item_types t SET is_default = true, updated_at = now() WHERE t.id = $1 AND t.workspace_id = $2 RETURNING ${COLS}`,
        [id, owner.workspaceId],
      ),
    );
    return rows[0];
  }

  /** Soft-deletes a type and drops its links (property attachments, imports, context listings). */
  async softDelete(workspaceId: string, id: string, db: Queryable): Promise<void> {
    await db.query(
      `UPDATE work_item_types SET deleted_at = now(), is_default = false WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
    );
    await db.query(`DELETE FROM work_item_type_properties WHERE workspace_id = $1 AND type_id = $2`, [workspaceId, id]);
    await db.query(`DELETE FROM project_work_item_types WHERE workspace_id = $1 AND type_id = $2`, [workspaceId, id]);
    await db.query(`DELETE FROM work_item_property_context_types WHERE workspace_id = $1 AND type_id = $2`, [
      workspaceId,
      id,
    ]);
  }

  /** Workspace-level types of the workspace among `ids` (the valid import and context targets). */
  async workspaceTypeIds(workspaceId: string, ids: string[], db: Queryable = this.ds): Promise<Set<string>> {
    const rows: Array<{ id: string }> = await db.query(
      `SELECT id FROM work_item_types WHERE workspace_id = $1 AND id = ANY($2::uuid[]) AND project_id IS NULL AND deleted_at IS NULL`,
      [workspaceId, ids],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Adds workspace types to a project's roster; returns the ids that were not there yet. */
  async importIntoProject(
    workspaceId: string,
    projectId: string,
    ids: string[],
    userId: string,
    db: Queryable,
  ): Promise<string[]> {
    const rows: Array<{ type_id: string }> = await db.query(
      `INSERT INTO project_work_item_types (project_id, type_id, workspace_id, created_by_id)
       SELECT $2, x, $1, $4 FROM unnest($3::uuid[]) AS x
       ON CONFLICT (workspace_id, project_id, type_id) DO NOTHING RETURNING type_id`,
      [workspaceId, projectId, ids, userId],
    );
    return rows.map((r) => r.type_id);
  }
}
