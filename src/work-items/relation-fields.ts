import type { NameOrIdPair } from '../common/resolve/name-or-id';
import { ESTIMATE_POINT_FIELDS } from '../estimates/estimates.service';

/**
 * The name-or-id pairs of work item writes: the DTO's id checks (IdOf) and the service's resolvers
 * (common/resolve) take their field names and messages from here.
 */
export const WORK_ITEM_PAIRS = {
  state: { idField: 'state_id', nameField: 'state', nameTakes: 'a state name' },
  type: { idField: 'type_id', nameField: 'type', nameTakes: 'a type name' },
  parent: { idField: 'parent_id', nameField: 'parent', nameTakes: 'a work item identifier such as PROJ-12' },
  assignees: { idField: 'assignee_ids', nameField: 'assignees', nameTakes: 'member emails', many: true },
  labels: { idField: 'label_ids', nameField: 'labels', nameTakes: 'label names', many: true },
  estimate: ESTIMATE_POINT_FIELDS,
} satisfies Record<string, NameOrIdPair>;
