import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Live links of a project's work items counted per key (assignee or label) and state group rank, spread
 * over slots like ProjectWorkItemCountEntity; kept exact by statement triggers on the link tables
 * (migration WorkItemLinkCounts). The `total_count` of `assignee_id=` / `label_id=`, alone or with
 * `state_group`, is the sum of the matching rows.
 */
abstract class WorkItemLinkCount {
  @Column('uuid') workspace_id!: string;
  @Column('integer', { default: 0 }) n!: number;
}

const pk = (table: string) => ({ primaryKeyConstraintName: `PK_${table}` });

@Entity('work_item_assignee_counts')
export class WorkItemAssigneeCountEntity extends WorkItemLinkCount {
  @PrimaryColumn('uuid', pk('work_item_assignee_counts')) assignee_id!: string;
  @PrimaryColumn('uuid', pk('work_item_assignee_counts')) project_id!: string;
  @PrimaryColumn('smallint', pk('work_item_assignee_counts')) state_group_rank!: number;
  @PrimaryColumn('smallint', pk('work_item_assignee_counts')) slot!: number;
}

@Entity('work_item_label_counts')
export class WorkItemLabelCountEntity extends WorkItemLinkCount {
  @PrimaryColumn('uuid', pk('work_item_label_counts')) label_id!: string;
  @PrimaryColumn('uuid', pk('work_item_label_counts')) project_id!: string;
  @PrimaryColumn('smallint', pk('work_item_label_counts')) state_group_rank!: number;
  @PrimaryColumn('smallint', pk('work_item_label_counts')) slot!: number;
}
