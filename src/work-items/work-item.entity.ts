import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantWorkspaceId, UpdatedAt, tenantKey } from '../common/database/columns';

export const PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'] as const;
export type Priority = (typeof PRIORITIES)[number];

const LIVE = '"deleted_at" IS NULL AND "archived_at" IS NULL';

/**
 * A work item (spec "Work item", gap-reference 3.1). Every list index is partial on live rows
 * (not deleted, not archived): the list never shows the others, so they never cost a list anything.
 * `sequence_id` comes from `projects.last_sequence_id` (never reused); its unique index covers
 * deleted rows too. `custom_values` holds custom property values keyed by property id (types area).
 * Expression indexes (priority by meaning) and the trigram index of `?search=` (pg_trgm) are created by the
 * migrations (synchronize: false).
 */
@Entity('work_items')
@Index('uq_work_items_sequence', ['workspace_id', 'project_id', 'sequence_id'], { unique: true })
@Index('uq_work_items_external', ['workspace_id', 'project_id', 'external_source', 'external_id'], {
  unique: true,
  where: '"deleted_at" IS NULL AND "external_id" IS NOT NULL',
})
/*
 * The project list's ordering indexes, live rows, INCLUDE (workspace_id) (migration WorkItemOrderIndexesWorkspace:
 * an offset page's walk equates the workspace too and stays index-only; TypeORM cannot express INCLUDE):
 * created (project_id, created_at, id), updated (project_id, updated_at, id), seq (project_id, sequence_id, id),
 * id (project_id, id), sort (project_id, sort_order, id) and state_group (project_id, state_group_rank, id).
 */
@Index('ix_work_items_created', { synchronize: false })
@Index('ix_work_items_updated', { synchronize: false })
@Index('ix_work_items_seq', { synchronize: false })
// The workspace-wide list's orderings (issue 19): (workspace_id, created_at | updated_at, id) over live items, with
// the predicate written as only that list states it, so that no project's list can walk the workspace (migration
// WorkspaceIndexesOptIn; the repository's WORKSPACE_INDEXES_OPT_IN).
@Index('ix_work_items_ws_created', { synchronize: false })
@Index('ix_work_items_ws_updated', { synchronize: false })
@Index('ix_work_items_id', { synchronize: false })
@Index('ix_work_items_sort', { synchronize: false })
/** (project_id, state_id, created_at, id) INCLUDE (workspace_id), live rows: TypeORM cannot express INCLUDE (migration WorkItemStateIndexCovering). */
@Index('ix_work_items_state', { synchronize: false })
@Index('ix_work_items_state_group', { synchronize: false })
@Index('ix_work_items_state_group_created', ['project_id', 'state_group_rank', 'created_at', 'id'], { where: LIVE })
/*
 * The filter indexes of migration WorkItemFilterIndexes, live rows, INCLUDE (workspace_id): type (project_id,
 * type_id, created_at, id); with_parent and in_cycle (project_id, created_at, id) over items with a parent / a cycle.
 */
@Index('ix_work_items_type', { synchronize: false })
@Index('ix_work_items_with_parent', { synchronize: false })
@Index('ix_work_items_in_cycle', { synchronize: false })
@Index('ix_work_items_parent', ['parent_id'], { where: '"deleted_at" IS NULL AND "parent_id" IS NOT NULL' })
@Index('ix_work_items_cycle', ['cycle_id'], { where: '"deleted_at" IS NULL AND "cycle_id" IS NOT NULL' })
/*
 * The date filters' indexes (migration WorkItemDatedIndexes): (project_id, date) INCLUDE (workspace_id, archived_at)
 * over undeleted items that have the date.
 */
@Index('ix_work_items_start', { synchronize: false })
@Index('ix_work_items_target', { synchronize: false })
@Index('ix_work_items_estimate', ['estimate_point_id'], { where: '"estimate_point_id" IS NOT NULL' })
@Index('ix_work_items_priority', { synchronize: false })
/**
 * (project_id, priority rank, created_at, id), live rows, partial on the rank being set (always true, implied only by
 * a condition on the rank): a priority's items in created_at order (migration WorkItemPriorityCreatedIndex).
 */
@Index('ix_work_items_priority_created', { synchronize: false })
@Index('ix_work_items_name_trgm', { synchronize: false })
/** GIN over custom_values (created by migration CustomValuesIndex, types area): value clean-ups and future custom property filters. */
@Index('ix_work_items_custom_values', { synchronize: false })
export class WorkItemEntity {
  /** Time-ordered (migration WorkItemTimeOrderedIds): new items' keys append instead of landing on random pages. */
  @PrimaryColumn('uuid', { ...tenantKey('work_items'), default: () => 'wt_uuid_v7_strong(now())' })
  id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('work_items') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @Column('integer') sequence_id!: number;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('text', { default: '' }) description_html!: string;
  @Column('text', { default: '' }) description_stripped!: string;
  @Column('varchar', { length: 8, default: 'none' }) priority!: Priority;
  @Column('uuid') state_id!: string;
  /** The state's group by meaning (backlog 0 … triage 5), kept by triggers: the `state_group` ordering. */
  @Column('smallint', { default: 0 }) state_group_rank!: number;
  @Column('uuid', { nullable: true }) type_id!: string | null;
  @Column('uuid', { nullable: true }) parent_id!: string | null;
  @Column('uuid', { nullable: true }) estimate_point_id!: string | null;
  @Column('uuid', { nullable: true }) cycle_id!: string | null;
  @Column('date', { nullable: true }) start_date!: string | null;
  @Column('date', { nullable: true }) target_date!: string | null;
  @Column('boolean', { default: false }) is_draft!: boolean;
  @Column('double precision', { default: 65535 }) sort_order!: number;
  @Column('varchar', { length: 255, nullable: true }) external_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_source!: string | null;
  @Column('jsonb', { default: () => "'{}'" }) custom_values!: Record<string, unknown>;
  @Column('timestamptz', { nullable: true }) archived_at!: Date | null;
  @CreatedAt() created_at!: Date;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @UpdatedAt() updated_at!: Date;
  @Column('uuid', { nullable: true }) updated_by_id!: string | null;
  @DeletedAt() deleted_at!: Date | null;
}

/**
 * What a link row copies from its work item so the list's relation filters run on the link table alone
 * (`assignee_id=…` with or without `state_group`: one index range for the page, an index-only count).
 * Kept by the triggers of migration WorkItemLinkListColumns; the create statement sets them itself.
 */
abstract class WorkItemLinkCopies {
  @Column('timestamptz') item_created_at!: Date;
  @Column('smallint') item_state_group_rank!: number;
  /** The item is neither deleted nor archived. */
  @Column('boolean') item_live!: boolean;
  /**
   * The item's priority rank, urgent 0 ... none 4 (migration WorkItemLinkPriorityCopies). Nullable for one release:
   * the previous release's create statement does not set it, and a trigger fills it at that statement's end.
   */
  @Column('smallint', { nullable: true }) item_priority_rank!: number | null;
}

/**
 * One (key, priority)'s live links in created_at order (`assignee_id=…&priority=…`, `label_id=…&priority=…`; migration
 * WorkItemLinkPriorityCopies): a page is one range, a count index-only.
 */
const linkPriorityIndex = (table: string, key: string) =>
  Index(
    `ix_${table}_priority`,
    [
      key,
      'project_id',
      'item_priority_rank',
      'item_created_at',
      'work_item_id',
      'item_state_group_rank',
      'workspace_id',
    ],
    { where: '"item_live"' },
  );

/** Assignees of a work item; the set is replaced as a whole on writes. */
@Entity('work_item_assignees')
// A key's links of deleted or archived items (its live ones lead the list index): migration LinkKeyIndexesNotLiveOnly.
@Index('ix_work_item_assignees_not_live', ['assignee_id', 'work_item_id'], { where: 'NOT "item_live"' })
@Index(
  'ix_work_item_assignees_list',
  ['assignee_id', 'project_id', 'item_created_at', 'work_item_id', 'item_state_group_rank', 'workspace_id'],
  { where: '"item_live"' },
)
@Index(
  'ix_work_item_assignees_group',
  ['assignee_id', 'project_id', 'item_state_group_rank', 'item_created_at', 'work_item_id', 'workspace_id'],
  { where: '"item_live"' },
)
@linkPriorityIndex('work_item_assignees', 'assignee_id')
export class WorkItemAssigneeEntity extends WorkItemLinkCopies {
  @PrimaryColumn('uuid', tenantKey('work_item_assignees')) work_item_id!: string;
  @PrimaryColumn('uuid', tenantKey('work_item_assignees')) assignee_id!: string;
  @TenantWorkspaceId('work_item_assignees') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @CreatedAt() created_at!: Date;
}

/** Labels of a work item (project or workspace-level labels); replaced as a whole on writes. */
@Entity('work_item_labels')
// A key's links of deleted or archived items (its live ones lead the list index): migration LinkKeyIndexesNotLiveOnly.
@Index('ix_work_item_labels_not_live', ['label_id', 'work_item_id'], { where: 'NOT "item_live"' })
@Index(
  'ix_work_item_labels_list',
  ['label_id', 'project_id', 'item_created_at', 'work_item_id', 'item_state_group_rank', 'workspace_id'],
  { where: '"item_live"' },
)
@Index(
  'ix_work_item_labels_group',
  ['label_id', 'project_id', 'item_state_group_rank', 'item_created_at', 'work_item_id', 'workspace_id'],
  { where: '"item_live"' },
)
@linkPriorityIndex('work_item_labels', 'label_id')
export class WorkItemLabelEntity extends WorkItemLinkCopies {
  @PrimaryColumn('uuid', tenantKey('work_item_labels')) work_item_id!: string;
  @PrimaryColumn('uuid', tenantKey('work_item_labels')) label_id!: string;
  @TenantWorkspaceId('work_item_labels') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @CreatedAt() created_at!: Date;
}

/** Module membership of work items (written by the modules area; the list's module_id filter reads it). */
@Entity('module_work_items')
@Index('ix_module_work_items_item', ['work_item_id', 'module_id'])
/** A work item's modules within its workspace (the read shape's module_ids; migration ModuleWorkItemsWorkspaceItemIndex). */
@Index('ix_module_work_items_ws_item', ['workspace_id', 'work_item_id', 'module_id'])
export class ModuleWorkItemEntity {
  @PrimaryColumn('uuid', tenantKey('module_work_items')) module_id!: string;
  @PrimaryColumn('uuid', tenantKey('module_work_items')) work_item_id!: string;
  @TenantWorkspaceId('module_work_items') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @CreatedAt() created_at!: Date;
}
