import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

/**
 * A label. `project_id` null means a workspace-level label, usable on the work items of every project
 * of the workspace. Names are unique among the live labels of a project, and among the live
 * workspace-level labels of a workspace (a name may exist at both levels).
 */
@Entity('labels')
@Index('ix_labels_external', ['workspace_id', 'project_id', 'external_source', 'external_id'], {
  where: '"external_id" IS NOT NULL AND "deleted_at" IS NULL',
})
@Index('uq_labels_project_name', ['workspace_id', 'project_id', 'name'], {
  unique: true,
  where: '"deleted_at" IS NULL AND "project_id" IS NOT NULL',
})
@Index('uq_labels_workspace_name', ['workspace_id', 'name'], {
  unique: true,
  where: '"deleted_at" IS NULL AND "project_id" IS NULL',
})
@Index('ix_labels_list', ['workspace_id', 'project_id', 'sort_order', 'id'])
@Index('ix_labels_created', ['workspace_id', 'project_id', 'created_at', 'id'])
@Index('ix_labels_parent', ['parent_id'])
export class LabelEntity {
  @TenantId('labels') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('labels') workspace_id!: string;
  @Column('uuid', { nullable: true }) project_id!: string | null;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('text', { default: '' }) description!: string;
  @Column('varchar', { length: 255, nullable: true }) color!: string | null;
  @Column('double precision') sort_order!: number;
  @Column('uuid', { nullable: true }) parent_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_source!: string | null;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}
