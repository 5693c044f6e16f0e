import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

/** One row per project (later edition's project features, plus cycles/modules/estimates switches). */
@Entity('project_features')
@Index('uq_project_features_project', ['workspace_id', 'project_id'], { unique: true })
export class ProjectFeaturesEntity {
  @TenantId('project_features') id!: string;
  @TenantWorkspaceId('project_features') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @Column('boolean', { default: false }) is_workflow_enabled!: boolean;
  @Column('boolean', { default: true }) is_cycles_enabled!: boolean;
  @Column('boolean', { default: true }) is_modules_enabled!: boolean;
  @Column('boolean', { default: true }) is_estimates_enabled!: boolean;
  @Column('boolean', { default: false }) is_automated_cycle_enabled!: boolean;
  @Column('boolean', { default: false }) is_epic_enabled!: boolean;
  @Column('boolean', { default: false }) is_manually_start_end_cycles_enabled!: boolean;
  @Column('boolean', { default: false }) is_milestone_enabled!: boolean;
  @Column('boolean', { default: false }) is_parallel_cycles_enabled!: boolean;
  @Column('boolean', { default: false }) is_project_updates_enabled!: boolean;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @RowVersion() version!: number;
}
