import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { TenantWorkspaceId, tenantKey } from '../common/database/columns';

/** A project listed by a context (`project_ids`). */
@Entity('work_item_property_context_projects')
@Index('ix_wipcp_project', ['project_id'])
export class ContextProjectEntity {
  @PrimaryColumn('uuid', tenantKey('work_item_property_context_projects')) context_id!: string;
  @PrimaryColumn('uuid', tenantKey('work_item_property_context_projects')) project_id!: string;
  @TenantWorkspaceId('work_item_property_context_projects') workspace_id!: string;
}

/** A workspace-level type listed by a context (`issue_type_ids`). */
@Entity('work_item_property_context_types')
@Index('ix_wipct_type', ['type_id'])
export class ContextTypeEntity {
  @PrimaryColumn('uuid', tenantKey('work_item_property_context_types')) context_id!: string;
  @PrimaryColumn('uuid', tenantKey('work_item_property_context_types')) type_id!: string;
  @TenantWorkspaceId('work_item_property_context_types') workspace_id!: string;
}

/** An option offered in a context, in the context's order, with the context's own default flag. */
@Entity('work_item_property_context_options')
@Index('ix_wipco_option', ['option_id'])
export class ContextOptionEntity {
  @PrimaryColumn('uuid', tenantKey('work_item_property_context_options')) context_id!: string;
  @PrimaryColumn('uuid', tenantKey('work_item_property_context_options')) option_id!: string;
  @TenantWorkspaceId('work_item_property_context_options') workspace_id!: string;
  @Column('double precision') sort_order!: number;
  @Column('boolean', { default: false }) is_default!: boolean;
}
