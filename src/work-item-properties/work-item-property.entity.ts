import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

/**
 * A custom property definition. `project_id` set: a project-level property; null: workspace-level
 * (reaches work items through its contexts). `name` is the slug derived once from `display_name`.
 */
@Entity('work_item_properties')
@Index('uq_wip_project_name', ['workspace_id', 'project_id', 'name'], {
  unique: true,
  where: '"deleted_at" IS NULL AND "project_id" IS NOT NULL',
})
@Index('uq_wip_workspace_name', ['workspace_id', 'name'], {
  unique: true,
  where: '"deleted_at" IS NULL AND "project_id" IS NULL',
})
@Index('ix_wip_owner', ['workspace_id', 'project_id', 'sort_order', 'id'])
export class WorkItemPropertyEntity {
  @TenantId('work_item_properties') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('work_item_properties') workspace_id!: string;
  @Column('uuid', { nullable: true }) project_id!: string | null;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('varchar', { length: 255 }) display_name!: string;
  @Column('text', { default: '' }) description!: string;
  @Column('varchar', { length: 16 }) property_type!: string;
  @Column('varchar', { length: 16, nullable: true }) relation_type!: string | null;
  @Column('boolean', { default: false }) is_multi!: boolean;
  @Column('boolean', { default: false }) is_required!: boolean;
  @Column('boolean', { default: true }) is_active!: boolean;
  @Column('jsonb', { default: () => "'[]'" }) default_value!: string[];
  @Column('jsonb', { default: () => "'{}'" }) settings!: Record<string, unknown>;
  @Column('jsonb', { default: () => "'{}'" }) validation_rules!: Record<string, unknown>;
  @Column('jsonb', { default: () => "'{}'" }) logo_props!: Record<string, unknown>;
  @Column('varchar', { length: 255, nullable: true }) external_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_source!: string | null;
  @Column('double precision') sort_order!: number;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}
