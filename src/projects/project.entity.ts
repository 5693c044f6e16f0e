import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

@Index('ix_projects_by_id', ['id'])
@Entity('projects')
@Index('ix_projects_external', ['workspace_id', 'external_source', 'external_id'], {
  where: '"external_id" IS NOT NULL AND "deleted_at" IS NULL',
})
@Index('uq_projects_identifier', ['workspace_id', 'identifier'], { unique: true, where: '"deleted_at" IS NULL' })
@Index('uq_projects_name', ['workspace_id', 'name'], { unique: true, where: '"deleted_at" IS NULL' })
@Index('ix_projects_list', ['workspace_id', 'created_at', 'id'])
export class ProjectEntity {
  @TenantId('projects') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('projects') workspace_id!: string;
  @Column('varchar', { length: 255 }) name!: string;
  /** Upper-case, unique in the workspace; prefixes work item identifiers (PROJ-12). */
  @Column('varchar', { length: 12 }) identifier!: string;
  @Column('text', { default: '' }) description!: string;
  @Column('uuid', { nullable: true }) default_assignee_id!: string | null;
  @Column('uuid', { nullable: true }) project_lead_id!: string | null;
  @Column('jsonb', { default: () => "'{}'" }) logo_props!: Record<string, unknown>;
  /** Last work item sequence number handed out (wt_next_work_item_sequence); never decreases, never reused. */
  @Column('integer', { default: 0 }) last_sequence_id!: number;
  @Column('varchar', { length: 255, nullable: true }) external_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_source!: string | null;
  @Column('timestamptz', { nullable: true }) archived_at!: Date | null;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}
