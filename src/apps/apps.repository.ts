import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Queryable } from '../common/pagination/sql-params';

export interface AppRow {
  id: string;
  workspace_id: string;
  name: string;
  client_id: string;
  client_secret_hash: string | null;
  redirect_uris: string[];
  scopes: string[];
  /** Read with the app (byClientId): the workspace it is registered and installed in. */
  workspace_slug?: string;
  workspace_name?: string;
}

export interface InstallationRow {
  id: string;
  app_id: string;
  workspace_id: string;
  workspace_slug: string;
  workspace_name: string;
  bot_user_id: string;
  status: string;
}

const APP_COLUMNS = 'id, workspace_id, name, client_id, client_secret_hash, redirect_uris, scopes';
const INSTALLATION_SELECT = `SELECT i.id, i.app_id, i.workspace_id, w.slug AS workspace_slug, w.name AS workspace_name,
       i.bot_user_id, i.status
  FROM app_installations i JOIN workspaces w ON w.id = i.workspace_id AND w.deleted_at IS NULL`;

/** The SQL of apps and their installations. */
@Injectable()
export class AppsRepository {
  constructor(private readonly ds: DataSource) {}

  async insertApp(db: Queryable, a: Omit<AppRow, 'id'>): Promise<AppRow & { created_at: Date }> {
    const rows = await db.query(
      `INSERT INTO apps (workspace_id, name, client_id, client_secret_hash, redirect_uris, scopes)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${APP_COLUMNS}, created_at`,
      [a.workspace_id, a.name, a.client_id, a.client_secret_hash, a.redirect_uris, a.scopes],
    );
    return rows[0];
  }

  async insertInstallation(db: Queryable, appId: string, workspaceId: string, botUserId: string): Promise<string> {
    const rows = await db.query(
      `INSERT INTO app_installations (app_id, workspace_id, bot_user_id) VALUES ($1, $2, $3) RETURNING id`,
      [appId, workspaceId, botUserId],
    );
    return rows[0].id;
  }

  /** A live app of a live workspace, by its client id. */
  async byClientId(clientId: string, db: Queryable = this.ds): Promise<AppRow | null> {
    const rows = await db.query(
      `SELECT ${APP_COLUMNS.split(', ')
        .map((c) => `a.${c}`)
        .join(', ')}, w.slug AS workspace_slug, w.name AS workspace_name
         FROM apps a JOIN workspaces w ON w.id = a.workspace_id AND w.deleted_at IS NULL
        WHERE a.client_id = $1 AND a.deleted_at IS NULL`,
      [clientId],
    );
    return rows[0] ?? null;
  }

  async listByWorkspace(workspaceId: string): Promise<Array<AppRow & { created_at: Date }>> {
    return this.ds.query(
      `SELECT ${APP_COLUMNS}, created_at FROM apps WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
      [workspaceId],
    );
  }

  /** The app's installations, oldest first (today exactly one: in the workspace it was registered in). */
  async installationsOf(appId: string, db: Queryable = this.ds): Promise<InstallationRow[]> {
    return db.query(
      `${INSTALLATION_SELECT} WHERE i.app_id = $1 AND i.status = 'installed' ORDER BY i.created_at, i.id`,
      [appId],
    );
  }

  async installationById(id: string): Promise<InstallationRow | null> {
    const rows = await this.ds.query(`${INSTALLATION_SELECT} WHERE i.id = $1`, [id]);
    return rows[0] ?? null;
  }
}
