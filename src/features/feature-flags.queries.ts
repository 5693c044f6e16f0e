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
 * The feature flags other features read (an exported query module, FeaturesCoreModule): feature rows, created
 * with their defaults on first read, so every workspace and project has one. Reads are one statement:
 * insert-if-missing then select.
 */
@Injectable()
export class FeatureFlags {
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
      `SELECT * FROM project_features WHERE workspace_id = $1 AND project_id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
      [workspaceId, projectId],
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
