import { PartialUpdate, runPartialUpdate, UpdatableColumns } from '../common/database/partial-update';
import { DEFINITION_LIST } from './relation-definitions.queries';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';

const COLS = `d.id, d.name, d.description, d.outward, d.inward, d.color, d.is_active, d.is_default, d.logo_props,
  d.sort_order, d.external_id, d.external_source, d.created_at, d.created_by_id`;

export interface DefinitionRow extends Record<string, unknown> {
  id: string;
  name: string;
  description: string;
  outward: string;
  inward: string;
  color: string | null;
  is_active: boolean;
  is_default: boolean;
  logo_props: unknown;
  sort_order: number;
  external_id: string | null;
  external_source: string | null;
  created_at: Date;
  created_by_id: string | null;
}

export type DefinitionWrite = Partial<
  Pick<
    DefinitionRow,
    | 'name'
    | 'description'
    | 'outward'
    | 'inward'
    | 'color'
    | 'is_active'
    | 'logo_props'
    | 'sort_order'
    | 'external_id'
    | 'external_source'
  >
>;
const WRITABLE = [
  'name',
  'description',
  'outward',
  'inward',
  'color',
  'is_active',
  'logo_props',
  'sort_order',
  'external_id',
  'external_source',
] as const;

/** A definition PATCH: the columns sent (logo_props is jsonb; the service stores an explicit null as {}). */
const DEFINITION_UPDATE: PartialUpdate<DefinitionWrite> = {
  table: 'work_item_relation_definitions',
  columns: Object.fromEntries(
    WRITABLE.map((c) => [c, c === 'logo_props' ? { json: true } : {}]),
  ) as UpdatableColumns<DefinitionWrite>,
  where: 'workspace_id = $1 AND id = $2',
  always: true,
};

/** Workspace relation definitions; every statement is scoped by workspace. */
@Injectable()
export class RelationDefinitionsRepository {
  constructor(private readonly ds: DataSource) {}

  list(workspaceId: string, q: ListQuery) {
    return runList<DefinitionRow>(this.ds, DEFINITION_LIST, q, {
      select: COLS,
      from: 'work_item_relation_definitions d',
      where: ['d.workspace_id = $1', 'd.deleted_at IS NULL'],
      params: new SqlParams([workspaceId]),
    });
  }

  async get(workspaceId: string, id: string, db: Queryable = this.ds, lock = false): Promise<DefinitionRow | null> {
    const rows = await db.query(
      `SELECT ${COLS} FROM work_item_relation_definitions d
        WHERE d.workspace_id = $1 AND d.id = $2 AND d.deleted_at IS NULL${lock ? ' FOR UPDATE' : ''}`,
      [workspaceId, id],
    );
    return rows[0] ?? null;
  }

  /** Every live definition of the workspace (the relation list's keys), in list order. */
  async all(workspaceId: string, db: Queryable = this.ds): Promise<DefinitionRow[]> {
    return db.query(
      `SELECT ${COLS} FROM work_item_relation_definitions d WHERE d.workspace_id = $1 AND d.deleted_at IS NULL
        ORDER BY d.sort_order, d.id`,
      [workspaceId],
    );
  }

  /**
   * Serializes definition writes of one workspace (transaction-scoped advisory lock): the name and label
   * uniqueness checks below then see every committed definition.
   */
  async lockWorkspace(workspaceId: string, db: Queryable): Promise<void> {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('wt_relation_definitions'), hashtext($1))`, [workspaceId]);
  }

  /** A live definition other than `exceptId` named `name` (case-insensitive) or using one of `labels`. */
  async clash(
    workspaceId: string,
    name: string,
    labels: string[],
    exceptId: string | null,
    db: Queryable,
  ): Promise<{ name_taken: boolean; label: string | null }> {
    const others = `FROM work_item_relation_definitions x
      WHERE x.workspace_id = $1 AND x.deleted_at IS NULL AND ($4::uuid IS NULL OR x.id <> $4)`;
    const rows = await db.query(
      `SELECT EXISTS (SELECT 1 ${others} AND lower(x.name) = lower($2)) AS name_taken,
              (SELECT l FROM unnest($3::text[]) l
                WHERE EXISTS (SELECT 1 ${others} AND lower(l) IN (lower(x.outward), lower(x.inward))) LIMIT 1) AS label`,
      [workspaceId, name, labels, exceptId],
    );
    return rows[0];
  }

  async insert(workspaceId: string, v: DefinitionWrite, userId: string, db: Queryable): Promise<DefinitionRow> {
    const p = new SqlParams([workspaceId, userId]);
    const cols = WRITABLE.filter((k) => v[k] !== undefined);
    const refs = cols.map((k) => p.add(v[k]));
    const rows = await db.query(
      `INSERT INTO work_item_relation_definitions AS d (workspace_id, created_by_id${cols.map((c) => `, ${c}`).join('')})
       VALUES ($1, $2${refs.map((r) => `, ${r}`).join('')}) RETURNING ${COLS}`,
      p.values,
    );
    return rows[0];
  }

  async update(workspaceId: string, id: string, v: DefinitionWrite, db: Queryable): Promise<void> {
    await runPartialUpdate(db, DEFINITION_UPDATE, v, new SqlParams([workspaceId, id]));
  }

  /** Soft-deletes the definition and removes its relations (the history triggers record each removal). */
  async softDelete(workspaceId: string, id: string, db: Queryable): Promise<void> {
    await db.query(`DELETE FROM work_item_relations WHERE workspace_id = $1 AND definition_id = $2`, [workspaceId, id]);
    await db.query(`UPDATE work_item_relation_definitions SET deleted_at = now() WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      id,
    ]);
  }
}
