import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

/** One row per workspace (gap-reference 3.8). `is_work_item_types_enabled` is the work item type mode. */
@Entity('workspace_features')
@Index('uq_workspace_features_ws', ['workspace_id'], { unique: true })
export class WorkspaceFeaturesEntity {
  @TenantId('workspace_features') id!: string;
  @TenantWorkspaceId('workspace_features') workspace_id!: string;
  /** true: types and properties are managed at the workspace level; false: per project. */
  @Column('boolean', { default: false }) is_work_item_types_enabled!: boolean;
  @Column('integer', { default: 0 }) work_item_type_default_level!: number;
  @Column('boolean', { default: false }) is_workitem_hierarchy_enabled!: boolean;
  @Column('boolean', { default: false }) is_project_grouping_enabled!: boolean;
  @Column('boolean', { default: false }) is_teams_enabled!: boolean;
  @Column('boolean', { default: false }) is_wiki_enabled!: boolean;
  @Column('boolean', { default: false }) is_initiative_enabled!: boolean;
  @Column('boolean', { default: false }) is_customer_enabled!: boolean;
  @Column('boolean', { default: false }) is_release_enabled!: boolean;
  @Column('boolean', { default: false }) is_state_duration_enabled!: boolean;
  @Column('boolean', { default: false }) is_pi_enabled!: boolean;
  /** Addition: gates `custom_fields` on work items. */
  @Column('boolean', { default: true }) is_custom_properties_enabled!: boolean;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @RowVersion() version!: number;
}
