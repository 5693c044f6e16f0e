import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 19. The workspace-wide work item list (`GET /workspaces/{slug}/work-items/`) walks the workspace's live
 * items in created_at or updated_at order: one index each, (workspace_id, key, id) over live items, like the
 * per-project ones. Project archive: the auth resolution now reads `projects.archived_at` (archived projects refuse
 * writes), so a change of it must empty the auth caches like the other columns the resolution reads.
 */
export class WorkspaceWorkItemsArchivedProjects1795520000000 implements MigrationInterface {
  name = 'WorkspaceWorkItemsArchivedProjects1795520000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX "ix_work_items_ws_created" ON "work_items" ("workspace_id", "created_at", "id") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_work_items_ws_updated" ON "work_items" ("workspace_id", "updated_at", "id") WHERE "deleted_at" IS NULL AND "archived_at" IS NULL`,
    );
    await this.projectsTrigger(q, 'workspace_id, identifier, name, default_assignee_id, archived_at, deleted_at');
  }

  public async down(q: QueryRunner): Promise<void> {
    await this.projectsTrigger(q, 'workspace_id, identifier, name, default_assignee_id, deleted_at');
    await q.query(`DROP INDEX "ix_work_items_ws_updated"`);
    await q.query(`DROP INDEX "ix_work_items_ws_created"`);
  }

  private async projectsTrigger(q: QueryRunner, columns: string): Promise<void> {
    await q.query(`DROP TRIGGER trg_projects_auth_changed ON projects`);
    await q.query(
      `CREATE TRIGGER trg_projects_auth_changed AFTER INSERT OR UPDATE OF ${columns} OR DELETE
         ON projects FOR EACH STATEMENT EXECUTE FUNCTION wt_notify_auth_changed()`,
    );
  }
}
