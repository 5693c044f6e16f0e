import { Injectable } from '@nestjs/common';
import { partialUpdateSql, PartialUpdate, UpdatableColumns } from '../common/database/partial-update';
import { SqlParams } from '../common/pagination/sql-params';
import { Queryable } from '../common/pagination/sql-params';

/** Columns a features PATCH may set (the allow-list of its partial update: only these names reach the SQL). */
const WRITABLE_COLUMNS = [
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
];

const FEATURE_COLUMNS: UpdatableColumns<Record<string, unknown>> = Object.fromEntries(
  WRITABLE_COLUMNS.map((c) => [c, {}]),
);

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
    const update: PartialUpdate<Record<string, unknown>> = {
      table,
      where: 'workspace_id = $1 AND id = $2',
      columns: FEATURE_COLUMNS,
      returning: '*',
      always: true,
    };
    const p = new SqlParams([workspaceId, id]);
    // UPDATE through TypeORM returns [rows, rowCount].
    const [rows] = await db.query(partialUpdateSql(update, changes, p)!, p.values);
    return rows[0];
  }
}
