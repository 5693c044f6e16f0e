import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAt } from '../common/database/columns';

/**
 * One entry of a work item's history: a field change (old and new value), a membership change, or a comment,
 * link or relation created, updated or deleted. Written only by the triggers of migration
 * WorkItemLinksRelationsHistory (ids: ActivityTimeOrderedIds), in the transaction of the change; never updated. `epoch` (ms) and `xact_id`
 * (the PostgreSQL transaction) are the same for every entry of one change, so a reader (the webhook outbox,
 * v1's activities) can group them.
 */
@Entity('work_item_activities')
@Index('ix_work_item_activities_list', ['work_item_id', 'created_at', 'id'])
export class WorkItemActivityEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_work_item_activities' }) workspace_id!: string;
  /** Time-ordered (migration ActivityTimeOrderedIds): the triggers write wt_uuid_v7(created_at). */
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_work_item_activities', default: () => 'wt_uuid_v7(now())' })
  id!: string;
  @Column('uuid') project_id!: string;
  @Column('uuid') work_item_id!: string;
  @Column('varchar', { length: 16 }) verb!: string;
  @Column('varchar', { length: 32, nullable: true }) field!: string | null;
  @Column('text', { nullable: true }) old_value!: string | null;
  @Column('text', { nullable: true }) new_value!: string | null;
  @Column('uuid', { nullable: true }) old_identifier_id!: string | null;
  @Column('uuid', { nullable: true }) new_identifier_id!: string | null;
  @Column('uuid', { nullable: true }) issue_comment_id!: string | null;
  @Column('uuid', { nullable: true }) actor_id!: string | null;
  @Column('bigint') epoch!: string;
  @Column('bigint') xact_id!: string;
  @CreatedAt() created_at!: Date;
}
