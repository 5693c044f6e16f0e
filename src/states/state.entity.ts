import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

export const STATE_GROUPS = ['backlog', 'unstarted', 'started', 'completed', 'cancelled', 'triage'] as const;
export type StateGroup = (typeof STATE_GROUPS)[number];

@Entity('states')
@Index('ix_states_external', ['workspace_id', 'project_id', 'external_source', 'external_id'], {
  where: '"external_id" IS NOT NULL AND "deleted_at" IS NULL',
})
@Index('uq_states_name', ['workspace_id', 'project_id', 'name'], { unique: true, where: '"deleted_at" IS NULL' })
@Index('uq_states_default', ['workspace_id', 'project_id'], {
  unique: true,
  where: '"is_default" AND "deleted_at" IS NULL',
})
@Index('ix_states_list', ['project_id', 'sequence', 'id'])
@Index('ix_states_created', ['project_id', 'created_at', 'id'])
export class StateEntity {
  @TenantId('states') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('states') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('text', { default: '' }) description!: string;
  @Column('varchar', { length: 255 }) color!: string;
  @Column('varchar', { length: 16, default: 'backlog' }) group!: StateGroup;
  @Column('double precision') sequence!: number;
  @Column('boolean', { default: false }) is_default!: boolean;
  @Column('boolean', { default: false }) is_triage!: boolean;
  @Column('varchar', { length: 255, nullable: true }) external_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_source!: string | null;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}
