import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Queryable } from '../common/pagination/sql-params';
import { GroupMembers } from '../common/membership/membership';

/**
 * Module side of the `module_work_items` link table (owned by the work items area): membership,
 * the derived member_ids, and the cleanup when a module is deleted.
 */
@Injectable()
export class ModuleWorkItemsRepository implements GroupMembers {
  constructor(private readonly ds: DataSource) {}

  /** Of `ids`, those that are work items of the project (not deleted). */
  async existing(workspaceId: string, projectId: string, ids: string[], db: Queryable): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows: Array<{ id: string }> = await db.query(
      `SELECT id FROM work_items WHERE workspace_id = $1 AND project_id = $2 AND id = ANY($3::uuid[]) AND deleted_at IS NULL`,
      [workspaceId, projectId, ids],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Links the work items to the module; returns those that were not linked yet. */
  async add(workspaceId: string, projectId: string, moduleId: string, ids: string[], db: Queryable): Promise<string[]> {
    if (!ids.length) return [];
    const rows: Array<{ work_item_id: string }> = await db.query(
      `INSERT INTO module_work_items (workspace_id, project_id, module_id, work_item_id)
       SELECT $1, $2, $3, x.id FROM unnest($4::uuid[]) AS x(id)
        WHERE NOT EXISTS (SELECT 1 FROM module_work_items l WHERE l.workspace_id = $1 AND l.module_id = $3 AND l.work_item_id = x.id)
       RETURNING work_item_id`,
      [workspaceId, projectId, moduleId, ids],
    );
    return rows.map((r) => r.work_item_id);
  }

  /** Unlinks the work items; returns those that were linked. */
  async remove(
    workspaceId: string,
    _projectId: string,
    moduleId: string,
    ids: string[],
    db: Queryable,
  ): Promise<string[]> {
    if (!ids.length) return [];
    const [rows] = await db.query(
      `DELETE FROM module_work_items WHERE workspace_id = $1 AND module_id = $2 AND work_item_id = ANY($3::uuid[]) RETURNING work_item_id`,
      [workspaceId, moduleId, ids],
    );
    return (rows as Array<{ work_item_id: string }>).map((r) => r.work_item_id);
  }

  /** Deleting a module: the work items stay, only the grouping goes. */
  async detachAll(workspaceId: string, moduleId: string, db: Queryable): Promise<void> {
    await db.query(`DELETE FROM module_work_items WHERE workspace_id = $1 AND module_id = $2`, [workspaceId, moduleId]);
  }

  /**
   * member_ids of each module: the distinct assignees of its work items that are not deleted or
   * archived, ordered by id. One query for a whole page.
   */
  async memberIds(workspaceId: string, moduleIds: string[], db: Queryable = this.ds): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(moduleIds.map((id) => [id, []]));
    if (!moduleIds.length) return out;
    const rows: Array<{ module_id: string; ids: string[] }> = await db.query(
      `SELECT l.module_id, array_agg(DISTINCT a.assignee_id ORDER BY a.assignee_id) AS ids
         FROM module_work_items l
         JOIN work_items w ON w.workspace_id = l.workspace_id AND w.id = l.work_item_id AND w.deleted_at IS NULL AND w.archived_at IS NULL
         JOIN work_item_assignees a ON a.workspace_id = w.workspace_id AND a.work_item_id = w.id
        WHERE l.workspace_id = $1 AND l.module_id = ANY($2::uuid[])
        GROUP BY l.module_id`,
      [workspaceId, moduleIds],
    );
    for (const r of rows) out.set(r.module_id, r.ids);
    return out;
  }
}
