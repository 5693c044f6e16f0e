import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAt, RowVersion, TenantWorkspaceId, tenantKey } from '../common/database/columns';

/** A property attached to a type (one property, many types). Same level on both ends. */
@Entity('work_item_type_properties')
@Index('ix_witp_property', ['property_id'])
@Index('ix_witp_order', ['type_id', 'sort_order'])
export class WorkItemTypePropertyEntity {
  @PrimaryColumn('uuid', tenantKey('work_item_type_properties')) type_id!: string;
  @PrimaryColumn('uuid', tenantKey('work_item_type_properties')) property_id!: string;
  @TenantWorkspaceId('work_item_type_properties') workspace_id!: string;
  @Column('double precision') sort_order!: number;
  @CreatedAt() created_at!: Date;
  @RowVersion() version!: number;
}
