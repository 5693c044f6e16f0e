import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, UpdatedAt } from '../common/database/columns';

/** A URL attached to a work item; one live link per URL and work item. Deletes are soft. */
@Entity('work_item_links')
@Index('ix_work_item_links_list', ['work_item_id', 'created_at', 'id'], { where: '"deleted_at" IS NULL' })
@Index('ix_work_item_links_id', ['work_item_id', 'id'], { where: '"deleted_at" IS NULL' })
@Index('uq_work_item_links_url', ['workspace_id', 'work_item_id', 'url'], {
  unique: true,
  where: '"deleted_at" IS NULL',
})
export class WorkItemLinkEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_work_item_links' }) workspace_id!: string;
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_work_item_links' }) id!: string;
  @Column('uuid') project_id!: string;
  @Column('uuid') work_item_id!: string;
  @Column('varchar', { length: 2048 }) url!: string;
  @Column('varchar', { length: 255, nullable: true }) title!: string | null;
  @Column('jsonb', { default: () => "'{}'" }) metadata!: unknown;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @Column('uuid', { nullable: true }) updated_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @RowVersion() version!: number;
  @DeletedAt() deleted_at!: Date | null;
}
