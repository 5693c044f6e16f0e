import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

/**
 * A work item type. `project_id` set: owned by that project (project mode); null: a workspace-level
 * type (workspace mode) that reaches projects by import (project_work_item_types).
 * Names are unique case-insensitively per owner (expression indexes created by the migration).
 */
@Entity('work_item_types')
@Index('uq_wit_project_name', { synchronize: false })
@Index('uq_wit_workspace_name', { synchronize: false })
@Index('uq_wit_project_default', ['workspace_id', 'project_id'], {
  unique: true,
  where: '"is_default" AND "deleted_at" IS NULL AND "project_id" IS NOT NULL',
})
@Index('uq_wit_workspace_default', ['workspace_id'], {
  unique: true,
  where: '"is_default" AND "deleted_at" IS NULL AND "project_id" IS NULL',
})
@Index('uq_wit_project_external', ['workspace_id', 'project_id', 'external_source', 'external_id'], {
  unique: true,
  where: '"external_id" IS NOT NULL AND "deleted_at" IS NULL AND "project_id" IS NOT NULL',
})
@Index('uq_wit_workspace_external', ['workspace_id', 'external_source', 'external_id'], {
  unique: true,
  where: '"external_id" IS NOT NULL AND "deleted_at" IS NULL AND "project_id" IS NULL',
})
@Index('ix_wit_owner', ['workspace_id', 'project_id', 'created_at', 'id'])
export class WorkItemTypeEntity {
  @TenantId('work_item_types') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('work_item_types') workspace_id!: string;
  @Column('uuid', { nullable: true }) project_id!: string | null;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('text', { default: '' }) description!: string;
  @Column('boolean', { default: true }) is_active!: boolean;
  @Column('boolean', { default: false }) is_default!: boolean;
  @Column('boolean', { default: false }) is_epic!: boolean;
  @Column('integer', { default: 0 }) level!: number;
  @Column('jsonb', { default: () => "'{}'" }) logo_props!: Record<string, unknown>;
  @Column('varchar', { length: 255, nullable: true }) external_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_source!: string | null;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}
