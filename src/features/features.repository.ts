import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Queryable } from '../common/pagination/sql-params';

export type WorkspaceFeaturesRow = Record<string, unknown> & {
  id: string;
  workspace_id: string;
  is_work_item_types_enabled: boolean;
  is_custom_properties_enabled: boolean;
  created_at: Date;
};

export type ProjectFeaturesRow = Record<string, unknown> & {
  id: string;
  project_id: string;
  is_workflow_enabled: boolean;
  is_cycles_enabled: boolean;
  is_modules_enabled: boolean;
  is_estimates_enabled: boolean;
  created_at: Date;
};

/**
 * Feature rows, created with their defaults on first read, so every workspace and project has one.
 * Reads are one statement: insert-if-missing then select.
 */
@Injectable()
export class FeaturesRepository {
  constructor(private readonly ds: DataSource) {}

  async workspace(workspaceId: string, db: Queryable = this.ds, forUpdate = false): Promise<WorkspaceFeaturesRow> {
    await db.query(`INSERT INTO workspace_features (workspace_id) VALUES ($1) ON CONFLICT (workspace_id) DO NOTHING`, [
      workspaceId,
    ]);
    const rows = await db.query(
      `SELECT * FROM workspace_features WHERE workspace_id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [workspaceId],
    );
    return rows[0];
  }

  async project(
    workspaceId: string,
    projectId: string,
    db: Queryable = this.ds,
    forUpdate = false,
  ): Promise<ProjectFeaturesRow> {
    await db.query(
      `INSERT INTO project_features (workspace_id, project_id) VALUES ($1, $2) ON CONFLICT (workspace_id, project_id) DO NOTHING`,
      [workspaceId, projectId],
    );
    const rows = await db.query(
      `SELECT * FROM project_features WHERE project_id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [projectId],
    );
    return rows[0];
  }

  /** Work item type mode: true means workspace mode. */
  async isWorkspaceTypeMode(workspaceId: string, db: Queryable = this.ds): Promise<boolean> {
    const rows = await db.query(`SELECT is_work_item_types_enabled FROM workspace_features WHERE workspace_id = $1`, [
      workspaceId,
    ]);
    return rows[0]?.is_work_item_types_enabled ?? false;
  }

  /**
   * The mode read under a share lock of the features row, inside a type surface write's transaction: a mode
   * switch (which updates the row) waits for the writes in flight, and a write started meanwhile waits for
   * the switch and then reads the new mode.
   */
  async lockWorkspaceTypeMode(workspaceId: string, db: Queryable): Promise<boolean> {
    await db.query(`INSERT INTO workspace_features (workspace_id) VALUES ($1) ON CONFLICT (workspace_id) DO NOTHING`, [
      workspaceId,
    ]);
    const rows = await db.query(
      `SELECT is_work_item_types_enabled FROM workspace_features WHERE workspace_id = $1 FOR SHARE`,
      [workspaceId],
    );
    return rows[0].is_work_item_types_enabled;
  }

  async isCustomPropertiesEnabled(workspaceId: string, db: Queryable = this.ds): Promise<boolean> {
    const rows = await db.query(`SELECT is_custom_properties_enabled FROM workspace_features WHERE workspace_id = $1`, [
      workspaceId,
    ]);
    return rows[0]?.is_custom_properties_enabled ?? true;
  }
}

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

/** Writes of the features endpoints (src/features/features.service.ts); reads stay in FeaturesRepository. */
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
