import { TenantWorkspaceId } from '../common/database/columns';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Live (not deleted, not archived) work items of a project, spread over slots so concurrent writers
 * never touch the same row (each transaction leases a slot of its own: `wt_counter_slot()`, migration
 * CounterSlotLeases); kept exact by statement triggers on work_items. The unfiltered list's
 * `total_count` is the sum of a project's slots.
 */
@Entity('project_work_item_counts')
export class ProjectWorkItemCountEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_project_work_item_counts' }) project_id!: string;
  @PrimaryColumn('smallint', { primaryKeyConstraintName: 'PK_project_work_item_counts' }) slot!: number;
  @TenantWorkspaceId('project_work_item_counts') workspace_id!: string;
  @Column('integer', { default: 0 }) n!: number;
  /** Live-set changes (items in, out, or a live created_at rewritten) counted here; the project's sum only grows (OffsetAnchors). */
  @Column('bigint', { default: 0 }) changes!: string;
}
