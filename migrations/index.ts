/** Every migration, in order. The schema changes only through these. */
import { Foundation1795323810286 } from './1795323810286-Foundation';

import { FeaturesAndAudit1795335339762 } from './1795335339762-FeaturesAndAudit';
import { StatesLabelsEstimatesWorkflows1795335771762 } from './1795335771762-StatesLabelsEstimatesWorkflows';
import { CyclesModules1795335773611 } from './1795335773611-CyclesModules';
import { WorkItemTypesAndProperties1795335818299 } from './1795335818299-WorkItemTypesAndProperties';
import { WorkItemsComments1795337132188 } from './1795337132188-WorkItemsComments';
import { CustomValuesIndex1795337181511 } from './1795337181511-CustomValuesIndex';
import { AuditTrail1795337423235 } from './1795337423235-AuditTrail';
import { ProjectWorkItemCount1795340000000 } from './1795340000000-ProjectWorkItemCount';
import { AuditInstanceTrail1795360231759 } from './1795360231759-AuditInstanceTrail';
import { WorkItemCountSlots1795362000000 } from './1795362000000-WorkItemCountSlots';
import { WorkItemStateGroupRank1795362600000 } from './1795362600000-WorkItemStateGroupRank';
import { WorkItemStateIndexCovering1795363200000 } from './1795363200000-WorkItemStateIndexCovering';
import { WorkItemLinkListColumns1795364000000 } from './1795364000000-WorkItemLinkListColumns';
import { WorkItemLinkCounts1795365000000 } from './1795365000000-WorkItemLinkCounts';
import { AuthChangeNotify1795366000000 } from './1795366000000-AuthChangeNotify';
import { WorkItemStatePriorityCounts1795367000000 } from './1795367000000-WorkItemStatePriorityCounts';
import { WorkItemNameSearch1795368000000 } from './1795368000000-WorkItemNameSearch';
import { WorkItemStateGroupCreatedIndex1795369000000 } from './1795369000000-WorkItemStateGroupCreatedIndex';
import { WorkItemLinkSyncStatement1795370000000 } from './1795370000000-WorkItemLinkSyncStatement';
import { WorkItemLiveSetChanges1795371000000 } from './1795371000000-WorkItemLiveSetChanges';
import { OAuthApps1795430000000 } from './1795430000000-OAuthApps';
import { ApiKeyLastUsed1795450000000 } from './1795450000000-ApiKeyLastUsed';
import { WorkItemLinksRelationsHistory1795510000000 } from './1795510000000-WorkItemLinksRelationsHistory';
import { WorkspaceWorkItemsArchivedProjects1795520000000 } from './1795520000000-WorkspaceWorkItemsArchivedProjects';
import { IdempotencyAndRowVersions1795540000000 } from './1795540000000-IdempotencyAndRowVersions';
import { Webhooks1795600000000 } from './1795600000000-Webhooks';
import { ExternalPairIndexes1795630000000 } from './1795630000000-ExternalPairIndexes';
import { DistributionReadyKeys1795640000000 } from './1795640000000-DistributionReadyKeys';
import { MemberRowVersions1795640001000 } from './1795640001000-MemberRowVersions';
import { RemainingRowVersions1795640002000 } from './1795640002000-RemainingRowVersions';
import { CycleArchive1795650000000 } from './1795650000000-CycleArchive';
import { ModuleWorkItemsWorkspaceItemIndex1795652000000 } from './1795652000000-ModuleWorkItemsWorkspaceItemIndex';
import { WorkItemOrderIndexesWorkspace1795660000000 } from './1795660000000-WorkItemOrderIndexesWorkspace';
import { ActivityTimeOrderedIds1795665000000 } from './1795665000000-ActivityTimeOrderedIds';
import { ActivityIdOrderIsCreationOrder1795666000000 } from './1795666000000-ActivityIdOrderIsCreationOrder';
import { DropPlainIdIndexes1795670000000 } from './1795670000000-DropPlainIdIndexes';
import { HistoryTriggersNameWorkspace1795680000000 } from './1795680000000-HistoryTriggersNameWorkspace';
import { WorkItemProjectWorkspaceStatistics1795690000000 } from './1795690000000-WorkItemProjectWorkspaceStatistics';
import { ActivityEntryOneIndex1795700000000 } from './1795700000000-ActivityEntryOneIndex';
import { CheaperActivityStamps1795701000000 } from './1795701000000-CheaperActivityStamps';
import { WorkItemFilterIndexes1795710000000 } from './1795710000000-WorkItemFilterIndexes';
import { WorkItemDatedIndexes1795720000000 } from './1795720000000-WorkItemDatedIndexes';
import { LinkSyncCheckWithoutEarlyExit1795730000000 } from './1795730000000-LinkSyncCheckWithoutEarlyExit';
import { WorkItemLinkPriorityCopies1795750000000 } from './1795750000000-WorkItemLinkPriorityCopies';
import { WorkItemDatedIndexesCarryKeys1795760000000 } from './1795760000000-WorkItemDatedIndexesCarryKeys';
import { TriggerJoinsWithoutNestedLoops1795770000000 } from './1795770000000-TriggerJoinsWithoutNestedLoops';
import { WorkItemTimeOrderedIds1795780000000 } from './1795780000000-WorkItemTimeOrderedIds';
import { WorkItemLinkGaps1795800000000 } from './1795800000000-WorkItemLinkGaps';
import { LinkKeyIndexesNotLiveOnly1795820000000 } from './1795820000000-LinkKeyIndexesNotLiveOnly';
import { CounterSlotLeases1795850000000 } from './1795850000000-CounterSlotLeases';
import { WorkItemPriorityCreatedIndex1795870000000 } from './1795870000000-WorkItemPriorityCreatedIndex';
import { WorkspaceIndexesOptIn1795880000000 } from './1795880000000-WorkspaceIndexesOptIn';

export const MIGRATIONS: Array<new () => unknown> = [
  Foundation1795323810286,
  FeaturesAndAudit1795335339762,
  StatesLabelsEstimatesWorkflows1795335771762,
  CyclesModules1795335773611,
  WorkItemTypesAndProperties1795335818299,
  WorkItemsComments1795337132188,
  CustomValuesIndex1795337181511,
  AuditTrail1795337423235,
  ProjectWorkItemCount1795340000000,
  AuditInstanceTrail1795360231759,
  WorkItemCountSlots1795362000000,
  WorkItemStateGroupRank1795362600000,
  WorkItemStateIndexCovering1795363200000,
  WorkItemLinkListColumns1795364000000,
  WorkItemLinkCounts1795365000000,
  AuthChangeNotify1795366000000,
  WorkItemStatePriorityCounts1795367000000,
  WorkItemNameSearch1795368000000,
  WorkItemStateGroupCreatedIndex1795369000000,
  WorkItemLinkSyncStatement1795370000000,
  WorkItemLiveSetChanges1795371000000,
  OAuthApps1795430000000,
  ApiKeyLastUsed1795450000000,
  WorkItemLinksRelationsHistory1795510000000,
  WorkspaceWorkItemsArchivedProjects1795520000000,
  IdempotencyAndRowVersions1795540000000,
  Webhooks1795600000000,
  ExternalPairIndexes1795630000000,
  DistributionReadyKeys1795640000000,
  MemberRowVersions1795640001000,
  RemainingRowVersions1795640002000,
  CycleArchive1795650000000,
  ModuleWorkItemsWorkspaceItemIndex1795652000000,
  WorkItemOrderIndexesWorkspace1795660000000,
  ActivityTimeOrderedIds1795665000000,
  ActivityIdOrderIsCreationOrder1795666000000,
  DropPlainIdIndexes1795670000000,
  HistoryTriggersNameWorkspace1795680000000,
  WorkItemProjectWorkspaceStatistics1795690000000,
  ActivityEntryOneIndex1795700000000,
  CheaperActivityStamps1795701000000,
  WorkItemFilterIndexes1795710000000,
  WorkItemDatedIndexes1795720000000,
  LinkSyncCheckWithoutEarlyExit1795730000000,
  WorkItemLinkPriorityCopies1795750000000,
  WorkItemDatedIndexesCarryKeys1795760000000,
  TriggerJoinsWithoutNestedLoops1795770000000,
  WorkItemTimeOrderedIds1795780000000,
  WorkItemLinkGaps1795800000000,
  LinkKeyIndexesNotLiveOnly1795820000000,
  CounterSlotLeases1795850000000,
  WorkItemPriorityCreatedIndex1795870000000,
  WorkspaceIndexesOptIn1795880000000,
];
