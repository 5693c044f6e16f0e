import { OPTION_LIST } from './property-options.queries';
import { Injectable } from '@nestjs/common';
import { PartialUpdate, partialUpdateSql } from '../common/database/partial-update';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';
import { writtenRows } from '../work-item-types/sql-result';
import { OptionRow } from './work-item-properties.mapper';

export const OPTION_COLS = `o.id, o.property_id, o.name, o.description, o.is_default, o.sort_order, o.external_id, o.external_source, o.created_at`;

export interface OptionWrite {
  name?: string;
  description?: string | null;
  is_default?: boolean;
  external_id?: string | null;
  external_source?: string | null;
}

/** The columns an option PATCH writes (the allow-list of its partial update); it always stamps and returns the row. */
const OPTION_UPDATE: PartialUpdate<OptionWrite> = {
  table: 'work_item_property_options o',
  where: 'o.id = $1 AND o.workspace_id = $2',
  columns: { name: {}, description: { nullAs: '' }, is_default: {}, external_id: {}, external_source: {} },
  always: true,
  returning: OPTION_COLS,
};

@Injectable()
export class PropertyOptionsRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * Options of a property. `workspaceLevelOnly`: the property must be a live workspace-level property
   * of the workspace, else the page is empty (the workspace options list never 404s on the property).
   */
  list(workspaceId: string, propertyId: string, q: ListQuery, workspaceLevelOnly: boolean) {
    const p = new SqlParams([workspaceId, propertyId]);
    return runList<OptionRow>(this.ds, OPTION_LIST, q, {
      select: OPTION_COLS,
      from: 'work_item_property_options o JOIN work_item_properties p ON p.workspace_id = o.workspace_id AND p.id = o.property_id',
      where: [
        'o.workspace_id = $1',
        'o.property_id = $2',
        'o.deleted_at IS NULL',
        'p.deleted_at IS NULL',
        "p.property_type = 'OPTION'",
        ...(workspaceLevelOnly ? ['p.project_id IS NULL'] : []),
      ],
      params: p,
    });
  }

  /** Options of many properties in one query, in sort order. */
  async forProperties(
    workspaceId: string,
    propertyIds: string[],
    db: Queryable = this.ds,
  ): Promise<Map<string, OptionRow[]>> {
    const out = new Map<string, OptionRow[]>();
    if (!propertyIds.length) return out;
    const rows: OptionRow[] = await db.query(
      `SELECT ${OPTION_COLS} FROM work_item_property_options o WHERE o.workspace_id = $1 AND o.property_id = ANY($2::uuid[]) AND o.deleted_at IS NULL
        ORDER BY o.sort_order, o.id`,
      [workspaceId, propertyIds],
    );
    for (const r of rows) {
      const list = out.get(r.property_id) ?? [];
      list.push(r);
      out.set(r.property_id, list);
    }
    return out;
  }

  async get(
    workspaceId: string,
    propertyId: string,
    id: string,
    db: Queryable = this.ds,
    forUpdate = false,
  ): Promise<OptionRow | null> {
    const rows = await db.query(
      `SELECT ${OPTION_COLS} FROM work_item_property_options o
        WHERE o.workspace_id = $1 AND o.property_id = $2 AND o.id = $3 AND o.deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
      [workspaceId, propertyId, id],
    );
    return rows[0] ?? null;
  }

  /** Appends options after the existing ones, in the given order. */
  async insertMany(
    workspaceId: string,
    propertyId: string,
    items: Array<OptionWrite & { name: string }>,
    createdBy: string,
    db: Queryable,
  ): Promise<OptionRow[]> {
    if (!items.length) return [];
    const rows: OptionRow[] = await db.query(
      `INSERT INTO work_item_property_options AS o (workspace_id, property_id, name, description, is_default, sort_order, external_id, external_source, created_by_id)
       SELECT $1, $2, x.name, coalesce(x.description, ''), coalesce(x.is_default, false),
              (SELECT coalesce(max(sort_order), 0) FROM work_item_property_options WHERE workspace_id = $1 AND property_id = $2) + x.ord * 1000,
              x.external_id, x.external_source, $4
         FROM jsonb_to_recordset($3::jsonb) AS x(name text, description text, is_default boolean, external_id text, external_source text, ord int)
        ORDER BY x.ord
       RETURNING ${OPTION_COLS}`,
      [
        workspaceId,
        propertyId,
        JSON.stringify(items.map((i, n) => ({ ...i, description: i.description ?? '', ord: n + 1 }))),
        createdBy,
      ],
    );
    return rows.sort((a, b) => a.sort_order - b.sort_order);
  }

  async update(workspaceId: string, id: string, v: OptionWrite, db: Queryable): Promise<OptionRow> {
    const p = new SqlParams([id, workspaceId]);
    const rows = writtenRows<OptionRow>(await db.query(partialUpdateSql(OPTION_UPDATE, v, p)!, p.values));
    return rows[0];
  }

  /** Clears the default flag of every other option of the property (project surface hand-off). */
  async clearDefault(workspaceId: string, propertyId: string, exceptId: string | null, db: Queryable): Promise<void> {
    await db.query(
      `UPDATE work_item_property_options SET is_default = false, updated_at = now()
        WHERE workspace_id = $1 AND property_id = $2 AND is_default AND deleted_at IS NULL AND ($3::uuid IS NULL OR id <> $3)`,
      [workspaceId, propertyId, exceptId],
    );
  }

  async currentDefault(workspaceId: string, propertyId: string, db: Queryable): Promise<OptionRow | null> {
    const rows = await db.query(
      `SELECT ${OPTION_COLS} FROM work_item_property_options o WHERE o.workspace_id = $1 AND o.property_id = $2 AND o.is_default AND o.deleted_at IS NULL`,
      [workspaceId, propertyId],
    );
    return rows[0] ?? null;
  }

  /**
   * Soft-deletes options, unlinks them from every context and removes their ids from the
   * `default_value` of their properties and of those properties' contexts (so no default keeps
   * naming an option that is gone). Returns how many definitions (properties and contexts) had their
   * default pruned.
   */
  async softDelete(workspaceId: string, ids: string[], db: Queryable): Promise<number> {
    if (!ids.length) return 0;
    const lowered = ids.map((i) => i.toLowerCase());
    await db.query(
      `UPDATE work_item_property_options SET deleted_at = now(), is_default = false WHERE workspace_id = $1 AND id = ANY($2::uuid[])`,
      [workspaceId, lowered],
    );
    await db.query(
      `DELETE FROM work_item_property_context_options WHERE workspace_id = $1 AND option_id = ANY($2::uuid[])`,
      [workspaceId, lowered],
    );
    // default_value is a jsonb array of strings; ids are compared case-insensitively.
    const pruned = (table: string, propertyCol: string) => `
      UPDATE ${table} d SET default_value = coalesce((
               SELECT jsonb_agg(e ORDER BY ord) FROM jsonb_array_elements(d.default_value) WITH ORDINALITY AS x(e, ord)
                WHERE NOT (lower(e #>> '{}') = ANY($2::text[]))), '[]'::jsonb), updated_at = now()
       WHERE d.workspace_id = $1
         AND d.${propertyCol} IN (SELECT o.property_id FROM work_item_property_options o WHERE o.workspace_id = $1 AND o.id = ANY($2::uuid[]))
         AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(d.default_value) AS v(s) WHERE lower(v.s) = ANY($2::text[]))
      RETURNING 1`;
    const props = writtenRows(await db.query(pruned('work_item_properties', 'id'), [workspaceId, lowered]));
    const contexts = writtenRows(
      await db.query(pruned('work_item_property_contexts', 'property_id'), [workspaceId, lowered]),
    );
    return props.length + contexts.length;
  }
}
