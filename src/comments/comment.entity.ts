import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

export const COMMENT_ACCESS = ['INTERNAL', 'EXTERNAL'] as const;
export type CommentAccess = (typeof COMMENT_ACCESS)[number];

/** A comment on a work item (gap-reference 3.2). `comment_stripped` is derived from the sanitized HTML. */
@Entity('work_item_comments')
@Index('ix_work_item_comments_external', ['workspace_id', 'work_item_id', 'external_source', 'external_id'], {
  where: '"external_id" IS NOT NULL AND "deleted_at" IS NULL',
})
@Index('ix_work_item_comments_list', ['work_item_id', 'created_at', 'id'], { where: '"deleted_at" IS NULL' })
@Index('ix_work_item_comments_id', ['work_item_id', 'id'], { where: '"deleted_at" IS NULL' })
export class WorkItemCommentEntity {
  @TenantId('work_item_comments') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('work_item_comments') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @Column('uuid') work_item_id!: string;
  @Column('text') comment_html!: string;
  @Column('text', { default: '' }) comment_stripped!: string;
  @Column('varchar', { length: 8, default: 'INTERNAL' }) access!: CommentAccess;
  @Column('uuid', { nullable: true }) actor_id!: string | null;
  @Column('timestamptz', { nullable: true }) edited_at!: Date | null;
  @Column('varchar', { length: 255, nullable: true }) external_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_source!: string | null;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}
