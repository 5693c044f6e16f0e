import { ListSpec } from '../common/pagination/list-spec';

export const ACTIVITY_VERBS = ['created', 'updated', 'deleted', 'archived', 'unarchived'] as const;

/*
 * The list contract of this feature (filters, search, orderings), read by its controller and repository and
 * by other features (v1) that parse the same list: an exported, named query module.
 */

/**
 * Every filter narrows one work item's history, which the list index (work_item_id, created_at, id) reads as one
 * range, in both orderings: the filters apply to that range's rows (docs/work-item-links-relations-history.md, plans).
 */
export const ACTIVITY_LIST: ListSpec = {
  filters: [
    { name: 'actor_id', type: 'uuid', ops: ['eq', 'in'], column: 'a.actor_id' },
    {
      name: 'field',
      type: 'string',
      ops: ['eq', 'in', 'isnull'],
      column: 'a.field',
      description: 'The changed field (name, state, assignees, comment, link, relation, dependency, ...).',
    },
    { name: 'verb', type: 'enum', values: ACTIVITY_VERBS, ops: ['eq', 'in'], column: 'a.verb' },
    { name: 'created_at', type: 'datetime', ops: ['gte', 'lte'], column: 'a.created_at' },
  ],
  search: ['a.field', 'a.old_value', 'a.new_value'],
  orderings: {
    created_at: { expr: 'a.created_at', cursor: true, cast: 'timestamptz', immutable: true },
    // An entry's id is wt_uuid_v7(created_at) (migrations ActivityTimeOrderedIds, ActivityIdOrderIsCreationOrder):
    // id order is (created_at, id) order, so `id` reads the list index like `created_at` (no index of its own).
    id: { expr: 'a.created_at', cursor: true, cast: 'timestamptz', immutable: true },
  },
  defaultOrder: 'created_at',
  idExpr: 'a.id',
};
