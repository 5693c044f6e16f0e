import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, UpdatedAt } from '../common/database/columns';

/**
 * A workspace's kind of relation between work items, read from either end: `outward` from the source
 * ("blocks"), `inward` from the target ("is blocked by"). Built-in ones (is_default) are seeded for every
 * workspace by a trigger and cannot be changed. Name unique per workspace (case-insensitive, expression index).
 */
@Entity('work_item_relation_definitions')
@Index('uq_work_item_relation_definitions_name', { synchronize: false })
@Index('ix_work_item_relation_definitions_list', ['workspace_id', 'sort_order', 'id'], {
  where: '"deleted_at" IS NULL',
})
export class WorkItemRelationDefinitionEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_work_item_relation_definitions' }) workspace_id!: string;
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_work_item_relation_definitions' }) id!: string;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('text', { default: '' }) description!: string;
  @Column('varchar', { length: 64 }) outward!: string;
  @Column('varchar', { length: 64 }) inward!: string;
  @Column('varchar', { length: 32, nullable: true }) color!: string | null;
  @Column('boolean', { default: true }) is_active!: boolean;
  @Column('boolean', { default: false }) is_default!: boolean;
  @Column('jsonb', { default: () => "'{}'" }) logo_props!: unknown;
  @Column('double precision', { default: 65535 }) sort_order!: number;
  @Column('varchar', { length: 255, nullable: true }) external_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_source!: string | null;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @RowVersion() version!: number;
  @DeletedAt() deleted_at!: Date | null;
}

/**
 * One relation (kind `relation`, through a definition) or dependency (kind `dependency`, a fixed type) between
 * two work items of the workspace, stored once: `source` is the outward end (A blocks B: source A). The inverse
 * is the same row read from the target, so it cannot disagree. A symmetric definition (outward = inward) stores
 * the pair in id order. Unique per kind, definition or type and unordered pair (expression index).
 */
@Entity('work_item_relations')
@Index('ix_work_item_relations_source', ['source_id', 'kind'])
@Index('ix_work_item_relations_target', ['target_id', 'kind'])
@Index('ix_work_item_relations_definition', ['definition_id'], { where: '"definition_id" IS NOT NULL' })
@Index('uq_work_item_relations_pair', { synchronize: false })
export class WorkItemRelationEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_work_item_relations' }) workspace_id!: string;
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'PK_work_item_relations' }) id!: string;
  @Column('varchar', { length: 16 }) kind!: 'relation' | 'dependency';
  @Column('uuid', { nullable: true }) definition_id!: string | null;
  @Column('varchar', { length: 16, nullable: true }) dependency_type!: string | null;
  @Column('uuid') source_id!: string;
  @Column('uuid') target_id!: string;
  @Column('uuid') source_project_id!: string;
  @Column('uuid') target_project_id!: string;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
}
