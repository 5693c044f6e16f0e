import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

/**
 * A scope of a workspace-level property: which projects and types it covers (wildcard flags or
 * link tables) and the configuration that replaces the property's own inside that scope.
 */
@Entity('work_item_property_contexts')
@Index('uq_wipc_name', { synchronize: false })
@Index('uq_wipc_all_projects', ['workspace_id', 'property_id'], {
  unique: true,
  where: '"applies_to_all_projects" AND "deleted_at" IS NULL',
})
@Index('uq_wipc_external', ['workspace_id', 'property_id', 'external_source', 'external_id'], {
  unique: true,
  where: '"external_id" IS NOT NULL AND "deleted_at" IS NULL',
})
@Index('ix_wipc_order', ['property_id', 'sort_order', 'id'])
export class PropertyContextEntity {
  @TenantId('work_item_property_contexts') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('work_item_property_contexts') workspace_id!: string;
  @Column('uuid') property_id!: string;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('boolean', { default: false }) is_required!: boolean;
  @Column('boolean', { default: false }) is_multi!: boolean;
  /** True only on the context seeded with the property; a marker, no effect on resolution. */
  @Column('boolean', { default: false }) is_default!: boolean;
  @Column('jsonb', { default: () => "'[]'" }) default_value!: string[];
  @Column('jsonb', { default: () => "'{}'" }) settings!: Record<string, unknown>;
  @Column('double precision') sort_order!: number;
  @Column('boolean', { default: false }) applies_to_all_projects!: boolean;
  @Column('boolean', { default: false }) applies_to_all_work_item_types!: boolean;
  @Column('varchar', { length: 255, nullable: true }) external_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_source!: string | null;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}
