import { Injectable } from '@nestjs/common';
import { Queryable } from '../common/pagination/sql-params';

/** Columns a features PATCH may set (whitelisted: the names are interpolated into SQL). */
const WRITABLE_COLUMNS = new Set([
  'is_work_item_types_enabled',
  'work_item_type_default_level',
  'is_workitem_hierarchy_enabled',
  'is_project_grouping_enabled',
  'is_teams_enabled',
  'is_wiki_enabled',
  'is_initiative_enabled',
  'is_customer_enabled',
  'is_release_enabled',
  'is_state_duration_enabled',
  'is_pi_enabled',
  'is_custom_properties_enabled',
  'is_workflow_enabled',
  'is_cycles_enabled',
  'is_modules_enabled',
  'is_estimates_enabled',
  'is_automated_cycle_enabled',
  'is_epic_enabled',
  'is_manually_start_end_cycles_enabled',
  'is_milestone_enabled',
  'is_parallel_cycles_enabled',
  'is_project_updates_enabled',
]);

/** Writes of the features endpoints (src/features/features.service.ts); reads are FeatureFlags (feature-flags.queries.ts). */
@Injectable()
export class FeaturesWriteRepository {
  async update(
    table: 'workspace_features' | 'project_features',
    workspaceId: string,
    id: string,
    changes: Record<string, unknown>,
    db: Queryable,
  ): Promise<Record<string, unknown>> {
    const sets: string[] = [];
    const values: unknown[] = [workspaceId, id];
    for (const [k, v] of Object.entries(changes)) {
      if (!WRITABLE_COLUMNS.has(k)) throw new Error(`not a features column: ${k}`);
      values.push(v);
      sets.push(`"${k}" = $${values.length}`);
    }
    // UPDATE through TypeORM returns [rows, rowCount].
    const [rows] = await db.query(
      `UPDATE ${table} SET ${sets.join(', ')}, updated_at = now() WHERE workspace_id = $1 AND id = $2 RETURNING *`,
      values,
    );
    return rows[0];
  }
}
