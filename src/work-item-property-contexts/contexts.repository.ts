import { CONTEXT_LIST } from './contexts.queries';
import { Injectable } from '@nestjs/common';
import { PartialUpdate, runPartialUpdate } from '../common/database/partial-update';
import { DataSource } from 'typeorm';
import { ListQuery } from '../common/pagination/list-query';
import { runList } from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';

export interface ContextOptionRef {
  id: string;
  name: string;
  is_default: boolean;
  sort_order: number;
}

export interface ContextRow extends Record<string, unknown> {
  id: string;
  property_id: string;
  name: string;
  is_required: boolean;
  is_multi: boolean;
  is_default: boolean;
  default_value: string[];
  settings: Record<string, unknown>;
  sort_order: number;
  applies_to_all_projects: boolean;
  applies_to_all_work_item_types: boolean;
  external_id: string | null;
  external_source: string | null;
  created_at: Date;
  project_ids: string[];
  issue_type_ids: string[];
  options: ContextOptionRef[];
}

/** Context columns with its links read back (live projects, live types, live options in context order). */
export const CONTEXT_COLS = `c.id, c.property_id, c.name, c.is_required, c.is_multi, c.is_default, c.default_value, c.settings, c.sort_order,
  c.applies_to_all_projects, c.applies_to_all_work_item_types, c.external_id, c.external_source, c.created_at,
  ARRAY(SELECT cp.project_id FROM work_item_property_context_projects cp
           JOIN projects pr ON pr.workspace_id = c.workspace_id AND pr.id = cp.project_id AND pr.deleted_at IS NULL
         WHERE cp.workspace_id = c.workspace_id AND cp.context_id = c.id ORDER BY cp.project_id) AS project_ids,
  ARRAY(SELECT ct.type_id FROM work_item_property_context_types ct
           JOIN work_item_types t ON t.workspace_id = c.workspace_id AND t.id = ct.type_id AND t.deleted_at IS NULL
         WHERE ct.workspace_id = c.workspace_id AND ct.context_id = c.id ORDER BY ct.type_id) AS issue_type_ids,
  coalesce((SELECT jsonb_agg(jsonb_build_object('id', o.id, 'name', o.name, 'is_default', co.is_default, 'sort_order', co.sort_order)
                             ORDER BY co.sort_order, o.id)
              FROM work_item_property_context_options co
              JOIN work_item_property_options o ON o.workspace_id = c.workspace_id AND o.id = co.option_id AND o.deleted_at IS NULL
             WHERE co.workspace_id = c.workspace_id AND co.context_id = c.id), '[]'::jsonb) AS options`;

export interface ContextWrite {
  name?: string;
  is_required?: boolean;
  is_multi?: boolean;
  is_default?: boolean;
  default_value?: string[];
  settings?: Record<string, unknown>;
  sort_order?: number;
  applies_to_all_projects?: boolean;
  applies_to_all_work_item_types?: boolean;
  external_id?: string | null;
  external_source?: string | null;
}

/** The columns a context PATCH writes (the allow-list of its partial update); it always stamps updated_at. */
const CONTEXT_UPDATE: PartialUpdate<ContextWrite> = {
  table: 'work_item_property_contexts',
  where: 'id = $1 AND workspace_id = $2',
  columns: {
    name: {},
    is_required: {},
    is_multi: {},
    is_default: {},
    default_value: { json: true },
    settings: { json: true },
    sort_order: {},
    applies_to_all_projects: {},
    applies_to_all_work_item_types: {},
    external_id: {},
    external_source: {},
  },
  always: true,
};

@Injectable()
export class ContextsRepository {
  constructor(private readonly ds: DataSource) {}

  list(workspaceId: string, propertyId: string, q: ListQuery) {
    const p = new SqlParams([workspaceId, propertyId]);
    return runList<ContextRow>(this.ds, CONTEXT_LIST, q, {
      select: CONTEXT_COLS,
      from: 'work_item_property_contexts c',
      where: ['c.workspace_id = $1', 'c.property_id = $2', 'c.deleted_at IS NULL'],
      params: p,
    });
  }

  async get(
    workspaceId: string,
    propertyId: string,
    id: string,
    db: Queryable = this.ds,
    forUpdate = false,
  ): Promise<ContextRow | null> {
    if (forUpdate)
      await db.query(`SELECT 1 FROM work_item_property_contexts WHERE workspace_id = $1 AND id = $2 FOR UPDATE`, [
        workspaceId,
        id,
      ]);
    const rows = await db.query(
      `SELECT ${CONTEXT_COLS} FROM work_item_property_contexts c WHERE c.workspace_id = $1 AND c.property_id = $2 AND c.id = $3 AND c.deleted_at IS NULL`,
      [workspaceId, propertyId, id],
    );
    return rows[0] ?? null;
  }

  /** Every live context of the property (for overlap and uniqueness checks). */
  async all(workspaceId: string, propertyId: string, db: Queryable): Promise<ContextRow[]> {
    return db.query(
      `SELECT ${CONTEXT_COLS} FROM work_item_property_contexts c WHERE c.workspace_id = $1 AND c.property_id = $2 AND c.deleted_at IS NULL ORDER BY c.sort_order, c.id`,
      [workspaceId, propertyId],
    );
  }

  /** The all-projects/all-types context (where options created on the options endpoint are offered). */
  async allAll(workspaceId: string, propertyId: string, db: Queryable): Promise<ContextRow | null> {
    const rows = await db.query(
      `SELECT ${CONTEXT_COLS} FROM work_item_property_contexts c
        WHERE c.workspace_id = $1 AND c.property_id = $2 AND c.deleted_at IS NULL AND c.applies_to_all_projects AND c.applies_to_all_work_item_types`,
      [workspaceId, propertyId],
    );
    return rows[0] ?? null;
  }

  /** The context seeded with the property (`is_default`), which mirrors the property's own settings. */
  async seeded(workspaceId: string, propertyId: string, db: Queryable): Promise<ContextRow | null> {
    const rows = await db.query(
      `SELECT ${CONTEXT_COLS} FROM work_item_property_contexts c WHERE c.workspace_id = $1 AND c.property_id = $2 AND c.deleted_at IS NULL AND c.is_default`,
      [workspaceId, propertyId],
    );
    return rows[0] ?? null;
  }

  async nextSortOrder(workspaceId: string, propertyId: string, db: Queryable): Promise<number> {
    const rows = await db.query(
      `SELECT coalesce(max(sort_order), 0) + 1000 AS n FROM work_item_property_contexts WHERE workspace_id = $1 AND property_id = $2 AND deleted_at IS NULL`,
      [workspaceId, propertyId],
    );
    return Number(rows[0].n);
  }

  async insert(
    workspaceId: string,
    propertyId: string,
    v: ContextWrite & { name: string; sort_order: number },
    createdBy: string,
    db: Queryable,
  ): Promise<string> {
    const rows = await db.query(
      `INSERT INTO work_item_property_contexts (workspace_id, property_id, name, is_required, is_multi, is_default, default_value, settings,
          sort_order, applies_to_all_projects, applies_to_all_work_item_types, external_id, external_source, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11, $12, $13, $14) RETURNING id`,
      [
        workspaceId,
        propertyId,
        v.name,
        v.is_required ?? false,
        v.is_multi ?? false,
        v.is_default ?? false,
        JSON.stringify(v.default_value ?? []),
        JSON.stringify(v.settings ?? {}),
        v.sort_order,
        v.applies_to_all_projects ?? false,
        v.applies_to_all_work_item_types ?? false,
        v.external_id ?? null,
        v.external_source ?? null,
        createdBy,
      ],
    );
    return rows[0].id;
  }

  async update(workspaceId: string, id: string, v: ContextWrite, db: Queryable): Promise<void> {
    await runPartialUpdate(db, CONTEXT_UPDATE, v, new SqlParams([id, workspaceId]));
  }

  async setProjects(workspaceId: string, contextId: string, ids: string[], db: Queryable): Promise<void> {
    await db.query(`DELETE FROM work_item_property_context_projects WHERE workspace_id = $1 AND context_id = $2`, [
      workspaceId,
      contextId,
    ]);
    if (ids.length) {
      await db.query(
        `INSERT INTO work_item_property_context_projects (context_id, project_id, workspace_id) SELECT $2, x, $1 FROM unnest($3::uuid[]) AS x`,
        [workspaceId, contextId, ids],
      );
    }
  }

  async setTypes(workspaceId: string, contextId: string, ids: string[], db: Queryable): Promise<void> {
    await db.query(`DELETE FROM work_item_property_context_types WHERE workspace_id = $1 AND context_id = $2`, [
      workspaceId,
      contextId,
    ]);
    if (ids.length) {
      await db.query(
        `INSERT INTO work_item_property_context_types (context_id, type_id, workspace_id) SELECT $2, x, $1 FROM unnest($3::uuid[]) AS x`,
        [workspaceId, contextId, ids],
      );
    }
  }

  /** Replaces the context's offered options: their order is the list order, with the context's own default flag. */
  async setOptions(
    workspaceId: string,
    contextId: string,
    items: Array<{ option_id: string; is_default: boolean }>,
    db: Queryable,
  ): Promise<void> {
    await db.query(`DELETE FROM work_item_property_context_options WHERE workspace_id = $1 AND context_id = $2`, [
      workspaceId,
      contextId,
    ]);
    if (items.length) {
      await db.query(
        `INSERT INTO work_item_property_context_options (context_id, option_id, workspace_id, sort_order, is_default)
         SELECT $2, x.option_id, $1, x.ord, x.is_default FROM jsonb_to_recordset($3::jsonb) AS x(option_id uuid, is_default boolean, ord int)`,
        [workspaceId, contextId, JSON.stringify(items.map((i, n) => ({ ...i, ord: n + 1 })))],
      );
    }
  }

  /** Offers more options in a context, after the ones it has. */
  async appendOptions(
    workspaceId: string,
    contextId: string,
    items: Array<{ option_id: string; is_default: boolean }>,
    db: Queryable,
  ): Promise<void> {
    if (!items.length) return;
    await db.query(
      `INSERT INTO work_item_property_context_options (context_id, option_id, workspace_id, sort_order, is_default)
       SELECT $2, x.option_id, $1, (SELECT coalesce(max(sort_order), 0) FROM work_item_property_context_options WHERE workspace_id = $1 AND context_id = $2) + x.ord, x.is_default
         FROM jsonb_to_recordset($3::jsonb) AS x(option_id uuid, is_default boolean, ord int)
       ON CONFLICT (workspace_id, context_id, option_id) DO UPDATE SET is_default = EXCLUDED.is_default`,
      [workspaceId, contextId, JSON.stringify(items.map((i, n) => ({ ...i, ord: n + 1 })))],
    );
  }

  /** Makes `optionId` the only default of the context (or clears its flag). */
  async setContextDefault(
    workspaceId: string,
    contextId: string,
    optionId: string,
    isDefault: boolean,
    db: Queryable,
  ): Promise<void> {
    if (isDefault) {
      await db.query(
        `UPDATE work_item_property_context_options SET is_default = (option_id = $3) WHERE workspace_id = $1 AND context_id = $2`,
        [workspaceId, contextId, optionId],
      );
    } else {
      await db.query(
        `UPDATE work_item_property_context_options SET is_default = false WHERE workspace_id = $1 AND context_id = $2 AND option_id = $3`,
        [workspaceId, contextId, optionId],
      );
    }
  }

  /** Among `optionIds`, those no live context of the property offers any more. */
  async unofferedOptions(
    workspaceId: string,
    propertyId: string,
    optionIds: string[],
    db: Queryable,
  ): Promise<string[]> {
    if (!optionIds.length) return [];
    const rows: Array<{ id: string }> = await db.query(
      `SELECT x AS id FROM unnest($3::uuid[]) AS x
        WHERE NOT EXISTS (SELECT 1 FROM work_item_property_context_options co JOIN work_item_property_contexts c ON c.workspace_id = $1 AND c.id = co.context_id
                           WHERE co.workspace_id = $1 AND co.option_id = x AND c.property_id = $2 AND c.deleted_at IS NULL)`,
      [workspaceId, propertyId, optionIds],
    );
    return rows.map((r) => r.id);
  }

  async softDelete(workspaceId: string, id: string, db: Queryable): Promise<void> {
    const w = [workspaceId, id];
    await db.query(`UPDATE work_item_property_contexts SET deleted_at = now() WHERE workspace_id = $1 AND id = $2`, w);
    await db.query(`DELETE FROM work_item_property_context_options WHERE workspace_id = $1 AND context_id = $2`, w);
    await db.query(`DELETE FROM work_item_property_context_projects WHERE workspace_id = $1 AND context_id = $2`, w);
    await db.query(`DELETE FROM work_item_property_context_types WHERE workspace_id = $1 AND context_id = $2`, w);
  }

  /** Ids among `ids` that are live projects of the workspace. */
  async workspaceProjectIds(workspaceId: string, ids: string[], db: Queryable): Promise<Set<string>> {
    const rows: Array<{ id: string }> = await db.query(
      `SELECT id FROM projects WHERE workspace_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL`,
      [workspaceId, ids],
    );
    return new Set(rows.map((r) => r.id));
  }
}
