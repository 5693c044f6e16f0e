import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

/** A choice of an OPTION property. Work items store its id. At most one default per property. */
@Entity('work_item_property_options')
@Index('uq_wipo_default', ['workspace_id', 'property_id'], {
  unique: true,
  where: '"is_default" AND "deleted_at" IS NULL',
})
@Index('ix_wipo_order', ['property_id', 'sort_order', 'id'])
export class PropertyOptionEntity {
  @TenantId('work_item_property_options') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('work_item_property_options') workspace_id!: string;
  @Column('uuid') property_id!: string;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('text', { default: '' }) description!: string;
  @Column('boolean', { default: false }) is_default!: boolean;
  @Column('double precision') sort_order!: number;
  @Column('varchar', { length: 255, nullable: true }) external_id!: string | null;
  @Column('varchar', { length: 255, nullable: true }) external_source!: string | null;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}
