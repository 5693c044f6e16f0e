import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

/** A user's membership of a project; `role` is a slug (admin, contributor, commenter, guest). */
@Entity('project_members')
@Index('uq_project_members_member', ['workspace_id', 'project_id', 'member_id'], {
  unique: true,
  where: '"deleted_at" IS NULL',
})
@Index('ix_project_members_list', ['project_id', 'created_at', 'id'])
@Index('ix_project_members_user', ['workspace_id', 'member_id'])
export class ProjectMemberEntity {
  @TenantId('project_members') id!: string;
  @TenantWorkspaceId('project_members') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @Column('uuid') member_id!: string;
  @Column('varchar', { length: 64 }) role!: string;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
  @RowVersion() version!: number;
}
