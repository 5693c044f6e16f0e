import { Injectable } from '@nestjs/common';
import { WorkspaceContext } from '../common/auth/request-context';
import { toV1 } from './v1-shape';
import { V1RecordsRepository, V1Table } from './v1-records.repository';

/** Puts v2 service results in v1's shape, with the tenant ids and stored columns v1 shows (one read per call). */
@Injectable()
export class V1Shaper {
  constructor(private readonly records: V1RecordsRepository) {}

  async many<T extends { id: string }>(
    table: V1Table,
    ctx: WorkspaceContext,
    rows: T[],
    renames: Record<string, string> = {},
  ): Promise<Array<Record<string, unknown>>> {
    const stored = await this.records.stored(table, ctx.workspace.id, rows);
    const inProject = ctx.project && table !== 'projects';
    const tenant = { workspace: ctx.workspace.id, ...(inProject ? { project: ctx.project!.id } : {}) };
    return rows.map((r) => toV1(r, { ...tenant, ...(stored.get(r.id) ?? {}) }, renames));
  }

  async one<T extends { id: string }>(
    table: V1Table,
    ctx: WorkspaceContext,
    row: T,
    renames: Record<string, string> = {},
  ): Promise<Record<string, unknown>> {
    return (await this.many(table, ctx, [row], renames))[0];
  }
}
