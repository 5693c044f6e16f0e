import { WorkflowDto, WorkflowStateDto, WorkflowTransitionDto } from './workflows.dto';

export interface WorkflowRow extends Record<string, unknown> {
  id: string;
  name: string;
  description: string;
  is_active: boolean;
  is_default: boolean;
  work_item_type_ids: string[];
  created_at: Date;
  created_by_id: string | null;
}

export interface WorkflowStateRow extends Record<string, unknown> {
  id: string;
  workflow_id: string;
  state_id: string;
  allow_issue_creation: boolean;
  is_default: boolean;
}

export interface WorkflowTransitionRow extends Record<string, unknown> {
  id: string;
  workflow_id: string;
  workflow_state_id: string;
  transition_state_id: string;
  rejection_state_id: string | null;
  required_approvals: number;
  member_ids: string[];
}

export function mapWorkflow(r: WorkflowRow): WorkflowDto {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    is_active: r.is_active,
    is_default: r.is_default,
    work_item_type_ids: r.work_item_type_ids ?? [],
    created_at: new Date(r.created_at).toISOString(),
    created_by_id: r.created_by_id,
  };
}

export function mapWorkflowState(r: WorkflowStateRow): WorkflowStateDto {
  return {
    id: r.id,
    workflow_id: r.workflow_id,
    state_id: r.state_id,
    allow_issue_creation: r.allow_issue_creation,
    is_default: r.is_default,
  };
}

export function mapTransition(r: WorkflowTransitionRow): WorkflowTransitionDto {
  return {
    id: r.id,
    workflow_state_id: r.workflow_state_id,
    transition_state_id: r.transition_state_id,
    rejection_state_id: r.rejection_state_id,
    required_approvals: Number(r.required_approvals),
    member_ids: r.member_ids ?? [],
  };
}
