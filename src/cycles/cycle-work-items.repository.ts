import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Queryable } from '../common/pagination/sql-params';
import { GroupMembers } from '../common/membership/membership';
import { CycleProgressDto } from './cycles.dto';

/**
 * Cycle side of `work_items.cycle_id` (the column belongs to the work items area): membership,
 * transfer, progress and the cleanup when a cycle is deleted.
 */
@Injectable()
export class CycleWorkItemsRepository implements GroupMembers {
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

  /** Puts the work items in the cycle (moving them out of any other); returns those that were not in it. */
  async add(workspaceId: string, projectId: string, cycleId: string, ids: string[], db: Queryable): Promise<string[]> {
    if (!ids.length) return [];
    const [rows] = await db.query(
      `UPDATE work_items SET cycle_id = $3, updated_at = now()
        WHERE workspace_id = $1 AND project_id = $2 AND id = ANY($4::uuid[]) AND deleted_at IS NULL AND cycle_id IS DISTINCT FROM $3
        RETURNING id`,
      [workspaceId, projectId, cycleId, ids],
    );
    return (rows as Array<{ id: string }>).map((r) => r.id);
  }

  /** Takes the work items out of the cycle; returns those that were in it. */
  async remove(
    workspaceId: string,
    projectId: string,
    cycleId: string,
    ids: string[],
    db: Queryable,
  ): Promise<string[]> {
    if (!ids.length) return [];
    const [rows] = await db.query(
      `UPDATE work_items SET cycle_id = NULL, updated_at = now()
        WHERE workspace_id = $1 AND project_id = $2 AND id = ANY($4::uuid[]) AND cycle_id = $3
        RETURNING id`,
      [workspaceId, projectId, cycleId, ids],
    );
    return (rows as Array<{ id: string }>).map((r) => r.id);
  }

  /** Moves the cycle's unfinished work items (state group neither completed nor cancelled, not archived). */
  async transferUnfinished(
    workspaceId: string,
    projectId: string,
    fromId: string,
    toId: string,
    db: Queryable,
  ): Promise<string[]> {
    const [rows] = await db.query(
      `UPDATE work_items w SET cycle_id = $4, updated_at = now()
         FROM states s
        WHERE w.workspace_id = $1 AND w.project_id = $2 AND w.cycle_id = $3 AND w.deleted_at IS NULL AND w.archived_at IS NULL
          AND s.workspace_id = $1 AND s.id = w.state_id AND s."group" NOT IN ('completed', 'cancelled')
        RETURNING w.id`,
      [workspaceId, projectId, fromId, toId],
    );
    return (rows as Array<{ id: string }>).map((r) => r.id).sort();
  }

  /** Deleting a cycle: its work items stay and lose the assignment. */
  async detachAll(workspaceId: string, cycleId: string, db: Queryable): Promise<void> {
    await db.query(
      `UPDATE work_items SET cycle_id = NULL, updated_at = now() WHERE workspace_id = $1 AND cycle_id = $2`,
      [workspaceId, cycleId],
    );
  }

  /** Work items of the cycle per state group (deleted, archived and draft work items excluded). */
  async progress(workspaceId: string, cycleId: string, db: Queryable = this.ds): Promise<CycleProgressDto> {
    const rows: Array<{ grp: string; c: number }> = await db.query(
      `SELECT s."group" AS grp, count(*)::int AS c
         FROM work_items w JOIN states s ON s.workspace_id = w.workspace_id AND s.id = w.state_id
        WHERE w.workspace_id = $1 AND w.cycle_id = $2 AND w.deleted_at IS NULL AND w.archived_at IS NULL AND NOT w.is_draft
        GROUP BY s."group"`,
      [workspaceId, cycleId],
    );
    const p: CycleProgressDto = {
      total: 0,
      backlog: 0,
      unstarted: 0,
      started: 0,
      completed: 0,
      cancelled: 0,
      triage: 0,
    };
    for (const r of rows) {
      if (r.grp in p) (p as unknown as Record<string, number>)[r.grp] = r.c;
      p.total += r.c;
    }
    return p;
  }
}
