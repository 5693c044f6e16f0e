import { ApiProperty } from '@nestjs/swagger';
import { Queryable } from '../common/pagination/sql-params';
import { MODULE_STATUSES } from '../modules/module.entity';

/**
 * The `cycle` and `modules` expands of work items (later edition's allowlist). Loaded in bulk for a
 * page of work items: one statement each. Expanded objects are leaves.
 */
export class WorkItemCycleRefDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) start_date!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) end_date!: string | null;
  @ApiProperty({ example: 'UTC' }) timezone!: string;
}

export class WorkItemModuleRefDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: MODULE_STATUSES }) status!: string;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** The live cycle of each work item (absent from the map: in no cycle). */
export async function cyclesOfWorkItems(
  db: Queryable,
  workspaceId: string,
  workItemIds: string[],
): Promise<Map<string, WorkItemCycleRefDto>> {
  const out = new Map<string, WorkItemCycleRefDto>();
  if (!workItemIds.length) return out;
  const rows: Array<{
    work_item_id: string;
    id: string;
    name: string;
    start_date: Date | null;
    end_date: Date | null;
    timezone: string;
  }> = await db.query(
    `SELECT w.id AS work_item_id, c.id, c.name, c.start_date, c.end_date, c.timezone
       FROM work_items w JOIN cycles c ON c.id = w.cycle_id AND c.workspace_id = w.workspace_id AND c.deleted_at IS NULL
      WHERE w.workspace_id = $1 AND w.id = ANY($2::uuid[])`,
    [workspaceId, workItemIds],
  );
  for (const r of rows)
    out.set(r.work_item_id, {
      id: r.id,
      name: r.name,
      start_date: iso(r.start_date),
      end_date: iso(r.end_date),
      timezone: r.timezone,
    });
  return out;
}

/** The live modules of each work item, by module sort order (absent from the map: in none). */
export async function modulesOfWorkItems(
  db: Queryable,
  workspaceId: string,
  workItemIds: string[],
): Promise<Map<string, WorkItemModuleRefDto[]>> {
  const out = new Map<string, WorkItemModuleRefDto[]>();
  if (!workItemIds.length) return out;
  const rows: Array<{ work_item_id: string; id: string; name: string; status: string }> = await db.query(
    `SELECT l.work_item_id, m.id, m.name, m.status
       FROM module_work_items l JOIN modules m ON m.id = l.module_id AND m.workspace_id = l.workspace_id AND m.deleted_at IS NULL
      WHERE l.workspace_id = $1 AND l.work_item_id = ANY($2::uuid[])
      ORDER BY m.sort_order, m.id`,
    [workspaceId, workItemIds],
  );
  for (const r of rows) {
    const list = out.get(r.work_item_id) ?? [];
    list.push({ id: r.id, name: r.name, status: r.status });
    out.set(r.work_item_id, list);
  }
  return out;
}
