import { TenantWorkspaceId, tenantKey } from '../common/database/columns';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A counter row's value and tenant; the key columns are the table's own. */
abstract class WorkItemCount {
  @Column('integer', { default: 0 }) n!: number;
}

/**
 * Live links of a project's work items counted per key (assignee or label) and state group rank, spread
 * over slots like ProjectWorkItemCountEntity; kept exact by statement triggers on the link tables
 * (migration WorkItemLinkCounts). The `total_count` of `assignee_id=` / `label_id=`, alone or with
 * `state_group`, is the sum of the matching rows.
 */
@Entity('work_item_assignee_counts')
export class WorkItemAssigneeCountEntity extends WorkItemCount {
  @TenantWorkspaceId('work_item_assignee_counts') workspace_id!: string;
  @PrimaryColumn('uuid', tenantKey('work_item_assignee_counts')) assignee_id!: string;
  @PrimaryColumn('uuid', tenantKey('work_item_assignee_counts')) project_id!: string;
  @PrimaryColumn('smallint', tenantKey('work_item_assignee_counts')) state_group_rank!: number;
  @PrimaryColumn('smallint', tenantKey('work_item_assignee_counts')) slot!: number;
}

@Entity('work_item_label_counts')
export class WorkItemLabelCountEntity extends WorkItemCount {
  @TenantWorkspaceId('work_item_label_counts') workspace_id!: string;
  @PrimaryColumn('uuid', tenantKey('work_item_label_counts')) label_id!: string;
  @PrimaryColumn('uuid', tenantKey('work_item_label_counts')) project_id!: string;
  @PrimaryColumn('smallint', tenantKey('work_item_label_counts')) state_group_rank!: number;
  @PrimaryColumn('smallint', tenantKey('work_item_label_counts')) slot!: number;
}

/**
 * Live work items of a project counted per state and priority, spread over slots; kept exact by statement
 * triggers on work_items (migration WorkItemStatePriorityCounts). The `total_count` of a list filtered only by
 * state_id, state_group and priority is the sum of the matching rows.
 */
@Entity('work_item_state_priority_counts')
export class WorkItemStatePriorityCountEntity extends WorkItemCount {
  @TenantWorkspaceId('work_item_state_priority_counts') workspace_id!: string;
  @PrimaryColumn('uuid', tenantKey('work_item_state_priority_counts')) project_id!: string;
  @PrimaryColumn('uuid', tenantKey('work_item_state_priority_counts')) state_id!: string;
  @PrimaryColumn('varchar', { length: 8, ...tenantKey('work_item_state_priority_counts') }) priority!: string;
  @PrimaryColumn('smallint', tenantKey('work_item_state_priority_counts')) slot!: number;
}
