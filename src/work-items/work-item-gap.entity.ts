import { TenantWorkspaceId, tenantKey } from '../common/database/columns';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A live work item that has no link of one kind (migration WorkItemLinkGaps): a row while the item has no assignee
 * (resp. no label), kept by statement triggers on the link tables and on work_items. `assignee_id__isnull=true` /
 * `label_id__isnull=true` read their created_at-ordered page off `ix_<table>_list` (workspace_id, project_id,
 * item_created_at, work_item_id).
 */
abstract class WorkItemGap {
  @Column('uuid') project_id!: string;
  @Column('timestamptz') item_created_at!: Date;
}

@Entity('work_item_assignee_gaps')
@Index('ix_work_item_assignee_gaps_list', ['workspace_id', 'project_id', 'item_created_at', 'work_item_id'])
export class WorkItemAssigneeGapEntity extends WorkItemGap {
  @TenantWorkspaceId('work_item_assignee_gaps') workspace_id!: string;
  @PrimaryColumn('uuid', tenantKey('work_item_assignee_gaps')) work_item_id!: string;
}

@Entity('work_item_label_gaps')
@Index('ix_work_item_label_gaps_list', ['workspace_id', 'project_id', 'item_created_at', 'work_item_id'])
export class WorkItemLabelGapEntity extends WorkItemGap {
  @TenantWorkspaceId('work_item_label_gaps') workspace_id!: string;
  @PrimaryColumn('uuid', tenantKey('work_item_label_gaps')) work_item_id!: string;
}

/**
 * The gap rows of a project counted per kind, spread over slots like ProjectWorkItemCountEntity; kept exact by
 * statement triggers on the gap tables. The `total_count` of `assignee_id__isnull=true` / `label_id__isnull=true`
 * alone is the sum of the project's rows.
 */
@Entity('work_item_gap_counts')
export class WorkItemGapCountEntity {
  @PrimaryColumn('uuid', tenantKey('work_item_gap_counts')) project_id!: string;
  @PrimaryColumn('smallint', tenantKey('work_item_gap_counts')) slot!: number;
  @TenantWorkspaceId('work_item_gap_counts') workspace_id!: string;
  @Column('integer', { default: 0 }) unassigned!: number;
  @Column('integer', { default: 0 }) unlabelled!: number;
}
