import { Column, Entity, Index } from 'typeorm';
import { CreatedAt, DeletedAt, RowVersion, TenantId, TenantWorkspaceId, UpdatedAt } from '../common/database/columns';

/** A workflow of a project. At most one live workflow per project is active, and at most one is the default. */
@Entity('workflows')
@Index('uq_workflows_name', ['workspace_id', 'project_id', 'name'], { unique: true, where: '"deleted_at" IS NULL' })
@Index('uq_workflows_active', ['workspace_id', 'project_id'], {
  unique: true,
  where: '"is_active" AND "deleted_at" IS NULL',
})
@Index('uq_workflows_default', ['workspace_id', 'project_id'], {
  unique: true,
  where: '"is_default" AND "deleted_at" IS NULL',
})
@Index('ix_workflows_created', ['project_id', 'created_at', 'id'])
export class WorkflowEntity {
  @TenantId('workflows') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('workflows') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @Column('varchar', { length: 255 }) name!: string;
  @Column('text', { default: '' }) description!: string;
  @Column('boolean', { default: false }) is_active!: boolean;
  @Column('boolean', { default: false }) is_default!: boolean;
  /** Work item types the workflow is meant for (stored and returned; not used by enforcement). */
  @Column('uuid', { array: true }) work_item_type_ids!: string[];
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}

/** A state's rules inside a workflow: whether work items may be created in it. One row per state and workflow. */
@Entity('workflow_states')
@Index('uq_workflow_states_state', ['workspace_id', 'workflow_id', 'state_id'], {
  unique: true,
  where: '"deleted_at" IS NULL',
})
@Index('uq_workflow_states_default', ['workspace_id', 'workflow_id'], {
  unique: true,
  where: '"is_default" AND "deleted_at" IS NULL',
})
@Index('ix_workflow_states_created', ['workflow_id', 'created_at', 'id'])
@Index('ix_workflow_states_state', ['state_id'])
export class WorkflowStateEntity {
  @TenantId('workflow_states') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('workflow_states') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @Column('uuid') workflow_id!: string;
  @Column('uuid') state_id!: string;
  @Column('boolean', { default: true }) allow_issue_creation!: boolean;
  @Column('boolean', { default: false }) is_default!: boolean;
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}

/** An allowed move out of a workflow state, to `transition_state_id`. */
@Entity('workflow_state_transitions')
@Index('uq_workflow_transitions_pair', ['workspace_id', 'workflow_state_id', 'transition_state_id'], {
  unique: true,
  where: '"deleted_at" IS NULL',
})
@Index('ix_workflow_transitions_created', ['workflow_id', 'created_at', 'id'])
@Index('ix_workflow_transitions_target', ['transition_state_id'])
export class WorkflowTransitionEntity {
  @TenantId('workflow_state_transitions') id!: string;
  @RowVersion() version!: number;
  @TenantWorkspaceId('workflow_state_transitions') workspace_id!: string;
  @Column('uuid') project_id!: string;
  @Column('uuid') workflow_id!: string;
  @Column('uuid') workflow_state_id!: string;
  @Column('uuid') transition_state_id!: string;
  @Column('uuid', { nullable: true }) rejection_state_id!: string | null;
  @Column('integer', { default: 0 }) required_approvals!: number;
  @Column('uuid', { array: true }) member_ids!: string[];
  @Column('uuid', { nullable: true }) created_by_id!: string | null;
  @CreatedAt() created_at!: Date;
  @UpdatedAt() updated_at!: Date;
  @DeletedAt() deleted_at!: Date | null;
}
