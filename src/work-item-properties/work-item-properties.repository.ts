import { PROPERTY_LIST, TYPE_PROPERTY_LIST } from './work-item-properties.queries';
import { Injectable } from '@nestjs/common';
import { PartialUpdate, partialUpdateSql } from '../common/database/partial-update';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';
import { Owner } from '../work-item-types/work-item-types.repository';
import { writtenRows } from '../work-item-types/sql-result';
import { PropertyRow } from './work-item-properties.mapper';

export const PROPERTY_COLS = `p.id, p.workspace_id, p.project_id, p.name, p.display_name, p.description, p.property_type, p.relation_type,
  p.is_multi, p.is_required, p.is_active, p.default_value, p.settings, p.validation_rules, p.logo_props, p.external_id,
  p.external_source, p.sort_order, p.created_at`;

export interface PropertyWrite {
  display_name?: string;
  description?: string | null;
  property_type?: string;
  relation_type?: string | null;
  is_multi?: boolean;
  is_required?: boolean;
  is_active?: boolean;
  default_value?: string[];
  settings?: Record<string, unknown>;
  validation_rules?: Record<string, unknown>;
  external_id?: string | null;
  external_source?: string | null;
}

/** The columns a property PATCH writes (the allow-list of its partial update); it always stamps and returns the row. */
const PROPERTY_UPDATE: PartialUpdate<PropertyWrite> = {
  table: 'work_item_properties p',
  where: 'p.id = $1 AND p.workspace_id = $2',
  columns: {
    display_name: {},
    description: { nullAs: '' },
    property_type: {},
    relation_type: {},
    is_multi: {},
    is_required: {},
    is_active: {},
    default_value: { json: true },
    settings: { json: true },
    validation_rules: { json: true },
    external_id: {},
    external_source: {},
  },
  always: true,
  returning: PROPERTY_COLS,
};

function ownedBy(owner: Owner, p: SqlParams): string {
  return owner.projectId ? `p.project_id = ${p.add(owner.projectId)}::uuid` : 'p.project_id IS NULL';
}

@Injectable()
export class WorkItemPropertiesRepository {
  constructor(private readonly ds: DataSource) {}

  list(owner: Owner, q: ListQuery) {
    const p = new SqlParams([owner.workspaceId]);
    const where = ['p.workspace_id = $1', 'p.deleted_at IS NULL', ownedBy(owner, p)];
    return runList<PropertyRow>(this.ds, PROPERTY_LIST, q, {
      select: PROPERTY_COLS,
      from: 'work_item_properties p',
      where,
      params: p,
    });
  }

  listAttached(workspaceId: string, typeId: string, q: ListQuery) {
    const p = new SqlParams([workspaceId, typeId]);
    return runList<PropertyRow>(this.ds, TYPE_PROPERTY_LIST, q, {
      select: PROPERTY_COLS,
      from: 'work_item_type_properties tp JOIN work_item_properties p ON p.workspace_id = tp.workspace_id AND p.id = tp.property_id',
      where: ['tp.workspace_id = $1', 'tp.type_id = $2', 'p.deleted_at IS NULL'],
      params: p,
    });
  }

  async get(owner: Owner, id: string, db: Queryable = this.ds, forUpdate = false): Promise<PropertyRow | null> {
    const p = new SqlParams([owner.workspaceId, id]);
    const rows = await db.query(
      `SELECT ${PROPERTY_COLS} FROM work_item_properties p
        WHERE p.workspace_id = $1 AND p.id = $2 AND p.deleted_at IS NULL AND ${ownedBy(owner, p)}${forUpdate ? ' FOR UPDATE' : ''}`,
      p.values,
    );
    return rows[0] ?? null;
  }

  /** Ids among `ids` that are live properties of the owner. */
  async ownedIds(owner: Owner, ids: string[], db: Queryable): Promise<Set<string>> {
    const p = new SqlParams([owner.workspaceId, ids]);
    const rows: Array<{ id: string }> = await db.query(
      `SELECT p.id FROM work_item_properties p WHERE p.workspace_id = $1 AND p.id = ANY($2::uuid[]) AND p.deleted_at IS NULL AND ${ownedBy(owner, p)}`,
      p.values,
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Serializes slug allocation of one owner (transaction-scoped advisory lock). */
  async lockOwner(owner: Owner, db: Queryable): Promise<void> {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('work_item_properties:' || $1))`, [
      owner.projectId ?? owner.workspaceId,
    ]);
  }

  /** The first free slug among `base`, `base_2`, `base_3`, ... of the owner. */
  async freeSlug(owner: Owner, base: string, db: Queryable): Promise<string> {
    const p = new SqlParams([owner.workspaceId, base, `${base}\\_%`]);
    const rows: Array<{ name: string }> = await db.query(
      `SELECT p.name FROM work_item_properties p WHERE p.workspace_id = $1 AND p.deleted_at IS NULL AND ${ownedBy(owner, p)}
          AND (p.name = $2 OR p.name LIKE $3)`,
      p.values,
    );
    const taken = new Set(rows.map((r) => r.name));
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
  }

  async insert(
    owner: Owner,
    name: string,
    v: PropertyWrite & { display_name: string; property_type: string },
    createdBy: string,
    db: Queryable,
  ): Promise<PropertyRow> {
    const rows = await db.query(
      `INSERT INTO work_item_properties AS p (workspace_id, project_id, name, display_name, description, property_type, relation_type,
          is_multi, is_required, is_active, default_value, settings, validation_rules, logo_props, external_id, external_source,
          sort_order, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12::jsonb, $13::jsonb, '{}'::jsonb, $14, $15,
               (SELECT coalesce(max(x.sort_order), 0) + 1000 FROM work_item_properties x
                 WHERE x.workspace_id = $1 AND x.project_id IS NOT DISTINCT FROM $2 AND x.deleted_at IS NULL), $16)
       RETURNING ${PROPERTY_COLS}`,
      [
        owner.workspaceId,
        owner.projectId,
        name,
        v.display_name,
        v.description ?? '',
        v.property_type,
        v.relation_type ?? null,
        v.is_multi ?? false,
        v.is_required ?? false,
        v.is_active ?? true,
        JSON.stringify(v.default_value ?? []),
        JSON.stringify(v.settings ?? {}),
        JSON.stringify(v.validation_rules ?? {}),
        v.external_id ?? null,
        v.external_source ?? null,
        createdBy,
      ],
    );
    return rows[0];
  }

  async update(workspaceId: string, id: string, v: PropertyWrite, db: Queryable): Promise<PropertyRow> {
    const p = new SqlParams([id, workspaceId]);
    const rows = writtenRows<PropertyRow>(await db.query(partialUpdateSql(PROPERTY_UPDATE, v, p)!, p.values));
    return rows[0];
  }

  /** Soft-deletes the definition with its options and contexts, and drops its type attachments and context links. */
  async softDelete(workspaceId: string, id: string, db: Queryable): Promise<void> {
    const w = [workspaceId, id];
    const ofContexts = `context_id IN (SELECT c.id FROM work_item_property_contexts c WHERE c.workspace_id = $1 AND c.property_id = $2)`;
    await db.query(`UPDATE work_item_properties SET deleted_at = now() WHERE workspace_id = $1 AND id = $2`, w);
    await db.query(
      `UPDATE work_item_property_options SET deleted_at = now(), is_default = false WHERE workspace_id = $1 AND property_id = $2 AND deleted_at IS NULL`,
      w,
    );
    await db.query(`DELETE FROM work_item_property_context_options WHERE workspace_id = $1 AND ${ofContexts}`, w);
    await db.query(`DELETE FROM work_item_property_context_projects WHERE workspace_id = $1 AND ${ofContexts}`, w);
    await db.query(`DELETE FROM work_item_property_context_types WHERE workspace_id = $1 AND ${ofContexts}`, w);
    await db.query(
      `UPDATE work_item_property_contexts SET deleted_at = now() WHERE workspace_id = $1 AND property_id = $2 AND deleted_at IS NULL`,
      w,
    );
    await db.query(`DELETE FROM work_item_type_properties WHERE workspace_id = $1 AND property_id = $2`, w);
  }

  // --- type attachments ---

  async isAttached(workspaceId: string, typeId: string, propertyId: string, db: Queryable = this.ds): Promise<boolean> {
    const rows = await db.query(
      `SELECT 1 FROM work_item_type_properties WHERE workspace_id = $1 AND type_id = $2 AND property_id = $3`,
      [workspaceId, typeId, propertyId],
    );
    return rows.length > 0;
  }

  /** Attaches in request order after the existing ones; an id already attached is left alone. */
  async attach(workspaceId: string, typeId: string, ids: string[], db: Queryable): Promise<void> {
    await db.query(
      `INSERT INTO work_item_type_properties (type_id, property_id, workspace_id, sort_order)
       SELECT $2, x.id, $1, (SELECT coalesce(max(sort_order), 0) FROM work_item_type_properties WHERE workspace_id = $1 AND type_id = $2) + x.ord * 1000
         FROM unnest($3::uuid[]) WITH ORDINALITY AS x(id, ord)
       ON CONFLICT (workspace_id, type_id, property_id) DO NOTHING`,
      [workspaceId, typeId, ids],
    );
  }

  async detach(workspaceId: string, typeId: string, propertyId: string, db: Queryable): Promise<boolean> {
    const rows = writtenRows(
      await db.query(
        `DELETE FROM work_item_type_properties WHERE workspace_id = $1 AND type_id = $2 AND property_id = $3 RETURNING 1`,
        [workspaceId, typeId, propertyId],
      ),
    );
    return rows.length > 0;
  }
}
