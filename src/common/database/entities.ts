/**
 * Every TypeORM entity of the service. The schema itself changes only through migrations/;
 * `npm run migration:check` fails when these entities and the migrations disagree.
 */
import { UserEntity } from '../../users/user.entity';
import { WorkspaceEntity } from '../../workspaces/workspace.entity';
import { WorkspaceMemberEntity } from '../../members/workspace-member.entity';
import { ProjectMemberEntity } from '../../members/project-member.entity';
import { ApiKeyEntity } from '../../api-keys/api-key.entity';
import { OAuthTokenEntity } from '../../oauth/oauth-token.entity';
import { ProjectEntity } from '../../projects/project.entity';
import { StateEntity } from '../../states/state.entity';
import { WorkspaceFeaturesEntity } from '../../features/workspace-features.entity';
import { ProjectFeaturesEntity } from '../../features/project-features.entity';
import { AuditLogEntity } from '../../audit/audit-log.entity';
import { AuditAggregateEntity } from '../../audit/audit-aggregate.entity';
import { CycleEntity } from '../../cycles/cycle.entity';
import { ModuleEntity } from '../../modules/module.entity';
import { LabelEntity } from '../../labels/label.entity';
import { EstimateEntity, EstimatePointEntity } from '../../estimates/estimate.entity';
import { WorkflowEntity, WorkflowStateEntity, WorkflowTransitionEntity } from '../../workflows/workflow.entity';
import { WorkItemTypeEntity } from '../../work-item-types/work-item-type.entity';
import { ProjectWorkItemTypeEntity } from '../../work-item-types/project-work-item-type.entity';
import { WorkItemTypePropertyEntity } from '../../work-item-types/work-item-type-property.entity';
import { WorkItemPropertyEntity } from '../../work-item-properties/work-item-property.entity';
import { PropertyOptionEntity } from '../../work-item-properties/property-option.entity';
import { PropertyContextEntity } from '../../work-item-property-contexts/property-context.entity';
import {
  ContextOptionEntity,
  ContextProjectEntity,
  ContextTypeEntity,
} from '../../work-item-property-contexts/context-links.entity';
import {
  ModuleWorkItemEntity,
  WorkItemAssigneeEntity,
  WorkItemEntity,
  WorkItemLabelEntity,
} from '../../work-items/work-item.entity';
import { ProjectWorkItemCountEntity } from '../../work-items/project-work-item-count.entity';
import {
  WorkItemAssigneeCountEntity,
  WorkItemLabelCountEntity,
  WorkItemStatePriorityCountEntity,
} from '../../work-items/work-item-counts.entity';
import { WorkItemCommentEntity } from '../../comments/comment.entity';
import { AppEntity, AppInstallationEntity } from '../../apps/app.entity';
import { IdempotencyKeyEntity } from '../../idempotency/idempotency-key.entity';
import { WorkItemActivityEntity } from '../../work-item-activities/work-item-activity.entity';
import { WorkItemLinkEntity } from '../../work-item-links/work-item-link.entity';
import {
  WorkItemRelationDefinitionEntity,
  WorkItemRelationEntity,
} from '../../work-item-relations/work-item-relation.entity';

export const ENTITIES = [
  AppEntity,
  AppInstallationEntity,
  UserEntity,
  WorkspaceEntity,
  WorkspaceMemberEntity,
  ProjectMemberEntity,
  ApiKeyEntity,
  OAuthTokenEntity,
  ProjectEntity,
  StateEntity,
  WorkspaceFeaturesEntity,
  ProjectFeaturesEntity,
  AuditLogEntity,
  AuditAggregateEntity,
  CycleEntity,
  ModuleEntity,
  LabelEntity,
  EstimateEntity,
  EstimatePointEntity,
  WorkflowEntity,
  WorkflowStateEntity,
  WorkflowTransitionEntity,
  WorkItemTypeEntity,
  ProjectWorkItemTypeEntity,
  WorkItemTypePropertyEntity,
  WorkItemPropertyEntity,
  PropertyOptionEntity,
  PropertyContextEntity,
  ContextOptionEntity,
  ContextProjectEntity,
  ContextTypeEntity,
  WorkItemEntity,
  ProjectWorkItemCountEntity,
  WorkItemAssigneeCountEntity,
  WorkItemLabelCountEntity,
  WorkItemStatePriorityCountEntity,
  WorkItemAssigneeEntity,
  WorkItemLabelEntity,
  ModuleWorkItemEntity,
  WorkItemCommentEntity,
  IdempotencyKeyEntity,
  WorkItemActivityEntity,
  WorkItemLinkEntity,
  WorkItemRelationDefinitionEntity,
  WorkItemRelationEntity,
];
