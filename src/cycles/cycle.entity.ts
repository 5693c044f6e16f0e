import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

/** A time-boxed iteration of a project (spec "Cycle", gap-reference 3.5). Work items point at it with `work_items.cycle_id`. */
@Entity('cycles')
@Index('ix_cycles_external', ['workspace_id', 'project_id', 'external_source', 'external_id'], {
  where: '"external_id" IS NOT NULL AND "deleted_at" IS NULL',
})
@Index('uq_cycles_name', ['workspace_id', 'project_id', 'name'], { unique: true, where: '"deleted_at" IS NULL' })
@Index('ix_cycles_created', ['project_id', 'created_at', 'id'])
// The archived list (issue 20): a project's few archived rows.
@Index('ix_cycles_archived', ['project_id', 'created_at', 'id'], {
  where: '"archived_at" IS NOT NULL AND "deleted_at" IS NULL',
})
@Index('ix_cycles_sort', ['project_id', 'sort_order', 'id'])
export class CycleEntity {
  @TenantId('cycles') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('cycles') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('text', { default: '' }) description!: string;
  @Column('timestamptz', { nullable: true }) start_date!: Date | null;
  @Column('timestamptz', { nullable: true }) end_date!: Date | null;
  /** IANA time zone name the dates are planned in. */
  @Column('varchar', { length: 64, default: 'UTC' }) timezone!: string;
  /** Read-only: the creator. */
  @Column('uuid') owned_by_id!: string;
  @Column('double precision') sort_order!: number;
  @Column('jsonb', { default: () => "'{}'" }) logo_props!: Record<string, unknown>;
  @Column('varchar', { length: 255, nullable: true }) external_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_source!: string | null;
  /** Set while archived (issue 20): out of the list and the detail read, every write refused. */
  @Column('timestamptz', { nullable: true }) archived_at!: Date | null;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}
