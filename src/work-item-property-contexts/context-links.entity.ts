import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { WorkspaceIdColumn } from '../common/database/columns';

/** A project listed by a context (`project_ids`). */
@Entity('work_item_property_context_projects')
@Index('ix_wipcp_project', ['project_id'])
export class ContextProjectEntity {
  @PrimaryColumn('uuid') context_id!: string;
  @PrimaryColumn('uuid') project_id!: string;
  @WorkspaceIdColumn() workspace_id!: string;
}

/** A workspace-level type listed by a context (`issue_type_ids`). */
@Entity('work_item_property_context_types')
@Index('ix_wipct_type', ['type_id'])
export class ContextTypeEntity {
  @PrimaryColumn('uuid') context_id!: string;
  @PrimaryColumn('uuid') type_id!: string;
  @WorkspaceIdColumn() workspace_id!: string;
}

/** An option offered in a context, in the context's order, with the context's own default flag. */
@Entity('work_item_property_context_options')
@Index('ix_wipco_option', ['option_id'])
export class ContextOptionEntity {
  @PrimaryColumn('uuid') context_id!: string;
  @PrimaryColumn('uuid') option_id!: string;
  @WorkspaceIdColumn() workspace_id!: string;
  @Column('double precision') sort_order!: number;
  @Column('boolean', { default: false }) is_default!: boolean;
}
