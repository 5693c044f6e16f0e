import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

export const MODULE_STATUSES = ['backlog', 'planned', 'in-progress', 'paused', 'completed', 'cancelled'] as const;
export type ModuleStatus = (typeof MODULE_STATUSES)[number];

/**
 * A grouping of work items inside a project (spec "Module", gap-reference 3.6). Membership of work
 * items lives in `module_work_items` (owned by the work items area); `member_ids` is derived.
 */
@Entity('modules')
@Index('ix_modules_external', ['workspace_id', 'project_id', 'external_source', 'external_id'], {
  where: '"external_id" IS NOT NULL AND "deleted_at" IS NULL',
})
@Index('uq_modules_name', ['workspace_id', 'project_id', 'name'], { unique: true, where: '"deleted_at" IS NULL' })
@Index('ix_modules_sort', ['project_id', 'sort_order', 'id'])
@Index('ix_modules_created', ['project_id', 'created_at', 'id'])
// The archived list (issue 20): a project's few archived rows.
@Index('ix_modules_archived', ['project_id', 'created_at', 'id'], {
  where: '"archived_at" IS NOT NULL AND "deleted_at" IS NULL',
})
export class ModuleEntity {
  @TenantId('modules') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('modules') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('text', { default: '' }) description!: string;
  @Column('varchar', { length: 16, default: 'planned' }) status!: ModuleStatus;
  @Column('date', { nullable: true }) start_date!: string | null;
  @Column('date', { nullable: true }) target_date!: string | null;
  @Column('uuid', { nullable: true }) lead_id!: string | null;
  @Column('double precision') sort_order!: number;
  @Column('jsonb', { default: () => "'{}'" }) logo_props!: Record<string, unknown>;
  @Column('varchar', { length: 255, nullable: true }) external_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_source!: string | null;
  @Column('timestamptz', { nullable: true }) archived_at!: Date | null;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}
