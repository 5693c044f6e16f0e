import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

/** A user's membership of a workspace; `role` is a slug (owner, admin, member, guest). */
@Entity('workspace_members')
@Index('uq_workspace_members_member', ['workspace_id', 'member_id'], { unique: true, where: '"deleted_at" IS NULL' })
@Index('ix_workspace_members_list', ['workspace_id', 'created_at', 'id'])
@Index('ix_workspace_members_user', ['member_id'])
export class WorkspaceMemberEntity {
  @TenantId('workspace_members') id!: string;
  @TenantWorkspaceId('workspace_members') workspace_id!: string;
  @Column('uuid') member_id!: string;
  @Column('varchar', { length: 64 }) role!: string;
  @Column('boolean', { default: true }) is_active!: boolean;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
  @RowVersion() version!: number;
}
