import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CreatedAt, TenantWorkspaceId, tenantKey } from '../common/database/columns';

/** A workspace-level type imported into a project (gap-reference 3.10 import): a roster link, nothing copied. */
@Entity('project_work_item_types')
@Index('ix_pwit_type', ['type_id'])
export class ProjectWorkItemTypeEntity {
  @PrimaryColumn('uuid', tenantKey('project_work_item_types')) project_id!: string;
  @PrimaryColumn('uuid', tenantKey('project_work_item_types')) type_id!: string;
  @TenantWorkspaceId('project_work_item_types') workspace_id!: string;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
}
