import { Column, Entity, PrimaryColumn } from 'typeorm';
import { tenantKey } from '../common/database/columns';

/**
 * One entry of a work item's history: a field change (old and new value), a membership change, or a comment,
 * link or relation created, updated or deleted. Written only by the triggers of migration
 * WorkItemLinksRelationsHistory (ids: ActivityTimeOrderedIds), in the transaction of the change; never updated. `epoch` (ms) and `xact_id`
 * (the PostgreSQL transaction) are the same for every entry of one change, so a reader (the webhook outbox,
 * v1's activities) can group them.
 *
 * The primary key `(workspace_id, work_item_id, created_at, id)` (migration ActivityEntryOneIndex) is the table's
 * only index: it serves the list in both orderings and the one-entry read, so an entry costs one index insertion.
 */
/** A new options object per column: TypeORM writes the column's type into the one it is given. */
const key = () => tenantKey('work_item_activities');

@Entity('work_item_activities')
export class WorkItemActivityEntity {
  @PrimaryColumn('uuid', key()) workspace_id!: string;
  /** Time-ordered (migration ActivityTimeOrderedIds): the triggers write wt_uuid_v7(created_at). */
  @PrimaryColumn('uuid', { ...key(), default: () => 'wt_uuid_v7(now())' })
  id!: string;
  @Column('uuid') project_id!: string;
  @PrimaryColumn('uuid', key()) work_item_id!: string;
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
  @PrimaryColumn('timestamptz', { ...key(), default: () => 'now()' }) created_at!: Date;
}
