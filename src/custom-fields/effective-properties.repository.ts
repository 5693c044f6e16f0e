import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Queryable } from '../common/pagination/sql-params';
import { LIVE_PROJECT_OF } from '../work-items/work-items.queries';
import { CONTEXT_TIER_SQL, contextMatchesSql } from '../work-item-property-contexts/context-resolution';

export interface EffectiveOption {
  id: string;
  name: string;
  is_default: boolean;
}

/**
 * A property as it applies to work items of one (project, type): attached to the type, and for a
 * workspace-level property covered by a context, whose is_required, is_multi, default_value,
 * settings and options replace the property's own wholesale. A FORMULA property is never required
 * (it has no writable value), whatever a context says.
 */
export interface EffectiveProperty {
  id: string;
  name: string;
  display_name: string;
  description: string;
  property_type: string;
  relation_type: string | null;
  is_active: boolean;
  is_required: boolean;
  is_multi: boolean;
  default_value: string[];
  settings: Record<string, unknown>;
  validation_rules: Record<string, unknown>;
  /** The winning context (workspace-level properties), null for project-level ones. */
  context_id: string | null;
  options: EffectiveOption[];
}

export function pairKey(projectId: string, typeId: string): string {
  return `${projectId}:${typeId}`;
}

@Injectable()
export class EffectivePropertiesRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * Resolves the properties of every (project, type) pair in one statement (a page of work items
   * costs one query, whatever its size). Inactive properties are included with is_active false.
   */
  async forPairs(
    workspaceId: string,
    pairs: Array<{ projectId: string; typeId: string }>,
    db: Queryable = this.ds,
  ): Promise<Map<string, EffectiveProperty[]>> {
    const out = new Map<string, EffectiveProperty[]>();
    const unique = [...new Map(pairs.map((p) => [pairKey(p.projectId, p.typeId), p])).values()];
    if (!unique.length) return out;
    const rows: Array<EffectiveProperty & { pair_project: string; pair_type: string }> = await db.query(
      `SELECT pr.project_id AS pair_project, pr.type_id AS pair_type,
              p.id, p.name, p.display_name, p.description, p.property_type, p.relation_type, p.is_active, p.validation_rules,
              c.id AS context_id,
              CASE WHEN p.property_type = 'FORMULA' THEN false WHEN c.id IS NULL THEN p.is_required ELSE c.is_required END AS is_required,
              CASE WHEN c.id IS NULL THEN p.is_multi ELSE c.is_multi END AS is_multi,
              CASE WHEN c.id IS NULL THEN p.default_value ELSE c.default_value END AS default_value,
              CASE WHEN c.id IS NULL THEN p.settings ELSE c.settings END AS settings,
              CASE WHEN p.property_type <> 'OPTION' THEN '[]'::jsonb
                   WHEN c.id IS NULL THEN coalesce((
                     SELECT jsonb_agg(jsonb_build_object('id', o.id, 'name', o.name, 'is_default', o.is_default) ORDER BY o.sort_order, o.id)
                       FROM work_item_property_options o WHERE o.workspace_id = $1 AND o.property_id = p.id AND o.deleted_at IS NULL), '[]'::jsonb)
                   ELSE coalesce((
                     SELECT jsonb_agg(jsonb_build_object('id', o.id, 'name', o.name, 'is_default', co.is_default) ORDER BY co.sort_order, o.id)
                       FROM work_item_property_context_options co
                       JOIN work_item_property_options o ON o.workspace_id = $1 AND o.id = co.option_id AND o.deleted_at IS NULL
                      WHERE co.workspace_id = $1 AND co.context_id = c.id), '[]'::jsonb) END AS options
         FROM unnest($2::uuid[], $3::uuid[]) AS pr(project_id, type_id)
         JOIN work_item_type_properties tp ON tp.type_id = pr.type_id AND tp.workspace_id = $1
         JOIN work_item_properties p ON p.workspace_id = $1 AND p.id = tp.property_id AND p.deleted_at IS NULL
         LEFT JOIN LATERAL (
           SELECT c.id, c.is_required, c.is_multi, c.default_value, c.settings FROM work_item_property_contexts c
            WHERE p.project_id IS NULL AND c.workspace_id = $1 AND c.property_id = p.id AND c.deleted_at IS NULL
              AND ${contextMatchesSql('c', 'pr.project_id', 'pr.type_id')}
            ORDER BY ${CONTEXT_TIER_SQL('c')}, c.sort_order, c.id LIMIT 1
         ) c ON true
        WHERE p.project_id IS NOT NULL OR c.id IS NOT NULL
        ORDER BY tp.sort_order, p.id`,
      [workspaceId, unique.map((p) => p.projectId), unique.map((p) => p.typeId)],
    );
    for (const r of rows) {
      const key = pairKey(r.pair_project, r.pair_type);
      const { pair_project: _p, pair_type: _t, ...prop } = r;
      const list = out.get(key) ?? [];
      list.push(prop);
      out.set(key, list);
    }
    return out;
  }

  async forType(
    workspaceId: string,
    projectId: string,
    typeId: string,
    db: Queryable = this.ds,
  ): Promise<EffectiveProperty[]> {
    return (await this.forPairs(workspaceId, [{ projectId, typeId }], db)).get(pairKey(projectId, typeId)) ?? [];
  }

  /** Names for value_detail of RELATION values: work items and users, one query each. */
  async relationDetails(workspaceId: string, issueIds: string[], userIds: string[], db: Queryable = this.ds) {
    const issues = new Map<string, { id: string; name: string; logo_props: Record<string, unknown> }>();
    const users = new Map<string, { id: string; name: string; logo_props: Record<string, unknown> }>();
    if (issueIds.length) {
      const rows: Array<{ id: string; name: string }> = await db.query(
        `SELECT id, name FROM work_items w WHERE workspace_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL AND ${LIVE_PROJECT_OF('w')}`,
        [workspaceId, issueIds],
      );
      for (const r of rows) issues.set(r.id, { id: r.id, name: r.name, logo_props: {} });
    }
    if (userIds.length) {
      const rows: Array<{ id: string; display_name: string; avatar_url: string | null }> = await db.query(
        `SELECT id, display_name, avatar_url FROM users WHERE id = ANY($1::uuid[])`,
        [userIds],
      );
      for (const r of rows)
        users.set(r.id, {
          id: r.id,
          name: r.display_name,
          logo_props: r.avatar_url ? { avatar_url: r.avatar_url } : {},
        });
    }
    return { issues, users };
  }
}
