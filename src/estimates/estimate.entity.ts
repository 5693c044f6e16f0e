import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

export const ESTIMATE_TYPES = ['categories', 'points', 'time'] as const;
export type EstimateType = (typeof ESTIMATE_TYPES)[number];

/** An estimate system of a project. At most one live estimate per project is active. */
@Entity('estimates')
@Index('ix_estimates_external', ['workspace_id', 'project_id', 'external_source', 'external_id'], {
  where: '"external_id" IS NOT NULL AND "deleted_at" IS NULL',
})
@Index('uq_estimates_active', ['workspace_id', 'project_id'], {
  unique: true,
  where: '"is_active" AND "deleted_at" IS NULL',
})
@Index('uq_estimates_name', ['workspace_id', 'project_id', 'name'], { unique: true, where: '"deleted_at" IS NULL' })
@Index('ix_estimates_created', ['project_id', 'created_at', 'id'])
export class EstimateEntity {
  @TenantId('estimates') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('estimates') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('text', { default: '' }) description!: string;
  @Column('varchar', { length: 16, default: 'categories' }) type!: EstimateType;
  @Column('boolean', { default: false }) is_active!: boolean;
  @Column('boolean', { default: false }) last_used!: boolean;
  @Column('varchar', { length: 255, nullable: true }) external_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_source!: string | null;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}

/** One point (value) of an estimate; values are unique within their estimate. */
@Entity('estimate_points')
@Index('ix_estimate_points_external', ['workspace_id', 'estimate_id', 'external_source', 'external_id'], {
  where: '"external_id" IS NOT NULL AND "deleted_at" IS NULL',
})
@Index('uq_estimate_points_value', ['workspace_id', 'estimate_id', 'value'], {
  unique: true,
  where: '"deleted_at" IS NULL',
})
@Index('ix_estimate_points_list', ['estimate_id', 'key', 'id'])
@Index('ix_estimate_points_created', ['estimate_id', 'created_at', 'id'])
export class EstimatePointEntity {
  @TenantId('estimate_points') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('estimate_points') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @Column('uuid') estimate_id!: string;
  @Column('integer') key!: number;
  @Column('varchar', { length: 255 }) value!: string;
  @Column('text', { default: '' }) description!: string;
  @Column('varchar', { length: 255, nullable: true }) external_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_source!: string | null;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}
