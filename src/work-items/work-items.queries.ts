import { FilterDef, FilterOp, ListSpec } from '../common/pagination/list-spec';
import { STATE_GROUPS } from '../states/state.entity';
import { PRIORITIES } from './work-item.entity';
import { WORK_ITEM_READER_ROLES } from '../common/auth/roles';

/**
 * SQL fragments of work items that other features' statements embed (an exported, named query module: other
 * features never import work-items.repository). Arguments are SQL references, never values.
 */

/**
 * SQL: the project `projectCol` of the workspace `workspaceRef` is one whose work items the viewer can read
 * (Viewer: `userRef` binds the user id, `allRef` the all-projects flag): a member of it with WORK_ITEM_READER or
 * above, or a workspace owner/admin. The membership read names the workspace (routable, docs/scaling.md).
 */
export const READABLE_PROJECT = (workspaceRef: string, projectCol: string, userRef: string, allRef: string) =>
  `(${allRef}::boolean OR EXISTS (SELECT 1 FROM project_members rp WHERE rp.workspace_id = ${workspaceRef} AND rp.project_id = ${projectCol}
      AND rp.member_id = ${userRef}::uuid AND rp.deleted_at IS NULL
      AND rp.role IN (${WORK_ITEM_READER_ROLES.map((r) => `'${r}'`).join(', ')})))`;

/**
 * A work item is live while neither it nor its project is deleted (deleting a project leaves its rows alone).
 * The project row is locked too: a project delete takes it FOR UPDATE first, so a write that links a parent
 * of that project either commits before the delete detaches children or sees the project gone.
 */
export const LIVE_PROJECT_OF = (w: string) =>
  `EXISTS (SELECT 1 FROM projects lp WHERE lp.workspace_id = ${w}.workspace_id AND lp.id = ${w}.project_id AND lp.deleted_at IS NULL)`;

/** The priority rank of the work item row `alias`: its position in PRIORITIES (urgent 0 ... none 4). */
export const priorityRankOf = (alias: string) =>
  `(CASE ${alias}.priority WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END)`;
/** Priority by meaning, urgent first. The expression index `ix_work_items_priority` is built on exactly this. */
export const PRIORITY_RANK = priorityRankOf('w');
/** The priorities in rank order, as SQL: a priority's rank is its position here, less one. */
export const PRIORITY_ARRAY = `ARRAY[${PRIORITIES.map((p) => `'${p}'`).join(', ')}]::text[]`;
/** The state groups in rank order, as SQL: the rank `state_group_rank` stores is the position here, less one. */
export const STATE_GROUP_ARRAY = `ARRAY[${STATE_GROUPS.map((g) => `'${g}'`).join(', ')}]::text[]`;
/** State group by meaning, backlog first: the trigger-kept column behind the index `ix_work_items_state_group`. */
export const STATE_GROUP_RANK = 'w.state_group_rank';

/**
 * A filter on an enum by its rank expression (`rank`, over the enum's values in rank order: `order`, and `values` the
 * same as an SQL array): the value is turned into its rank, so the index on the rank answers the filter. When it pins
 * the ordering by that rank (FilterDef.pinned), one value is a range of one rank, its bounds integers of the text:
 * the rank stays a key of the range's ordering, which only the rank's own index gives (never analyzed, an equated
 * rank let PostgreSQL walk `ix_work_items_id` filtering the rank, a table visit for every item of the project), and
 * with statistics the planner sizes the range from them (with bounds it could not see, it guessed a few thousand of
 * a priority's 200,000 items and read them all to sort them).
 */
function rankFilter(
  rank: string,
  values: string,
  order: readonly string[],
): Pick<FilterDef, 'sql' | 'pinned' | 'ranged'> {
  return {
    sql: (op, ref) =>
      op === 'in'
        ? `${rank} = ANY(ARRAY(SELECT array_position(${values}, v) - 1 FROM unnest(${ref}) v))`
        : `${rank} = array_position(${values}, ${ref}) - 1`,
    pinned: (value) => `${rank} BETWEEN ${order.indexOf(value)} AND ${order.indexOf(value)}`,
    // In another ordering (rangedBy) the rank is equated to its constant: an index of (scope, rank, key, id) then
    // gives the range in the ordering's order.
    ranged: (value) => `${rank} = ${order.indexOf(value)}`,
  };
}

/**
 * Relation filters on link tables: eq / in / isnull as EXISTS probes of the link's primary key, which starts
 * (workspace_id, work_item_id) or (workspace_id, module_id, work_item_id): with the item's workspace equated every
 * column is an index condition (and the statement stays routable to one workspace's shard). OFFSET 0 keeps the
 * probe a per-item subplan: turned into a semi-join, a planner without statistics (guessing one matching item)
 * chose a join that re-read the link rows for every item, filtering them by item (1.5 million rows removed).
 */
function linkFilter(table: string, col: string) {
  return (op: FilterOp, ref: string | null, value: unknown): string => {
    const base = `SELECT 1 FROM ${table} x WHERE x.workspace_id = w.workspace_id AND x.work_item_id = w.id`;
    if (op === 'isnull') return `${value ? 'NOT ' : ''}EXISTS (${base} OFFSET 0)`;
    return `EXISTS (${base} AND x.${col} ${op === 'in' ? `= ANY(${ref})` : `= ${ref}`} OFFSET 0)`;
  };
}

/** The work item list (gap-reference 3.1). Every query of WorkItemsRepository.list binds the workspace as $1 and the project as $2. */
export const WORK_ITEM_LIST: ListSpec = {
  filters: [
    // In created_at order one state is one range of ix_work_items_state (project, state, created_at, id), and one
    // state group one of ix_work_items_state_group_created: a page filtered by them alone keeps its generic plan.
    // Several states in created_at order (rangedBy): one range of that index per state, each bound on its own; read
    // by the `= ANY` of them, a plan guessing few matches read and sorted all of them (90,804 rows at 100,000 items).
    {
      name: 'state_id',
      type: 'uuid',
      ops: ['eq', 'in'],
      column: 'w.state_id',
      opaque: true,
      pinned: (value, bind) => `w.state_id = ${bind(value)}`,
    },
    {
      // The item's trigger-kept rank (exact copy of its state's group): one range of ix_work_items_state_group_created.
      name: 'state_group',
      type: 'enum',
      values: STATE_GROUPS,
      ops: ['eq', 'in'],
      opaque: true,
      ...rankFilter(STATE_GROUP_RANK, STATE_GROUP_ARRAY, STATE_GROUPS),
      description: 'State group: backlog, unstarted, started, completed, cancelled, triage.',
    },
    {
      // On the rank expression, not the column: `ix_work_items_priority` then answers the filter too, so
      // `order_by=priority&priority=low` is one index range instead of a walk past every more urgent item. In
      // created_at order one priority is one range of ix_work_items_priority_created (project, rank, created_at, id),
      // several one range each (rangedBy): a plan guessing few matches read and sorted every item of the priority
      // (0.6 s per page at a million items in a workspace of many projects).
      name: 'priority',
      type: 'enum',
      values: PRIORITIES,
      ops: ['eq', 'in'],
      opaque: true,
      ...rankFilter(PRIORITY_RANK, PRIORITY_ARRAY, PRIORITIES),
    },
    {
      name: 'assignee_id',
      type: 'uuid',
      ops: ['eq', 'in', 'isnull'],
      sql: linkFilter('work_item_assignees', 'assignee_id'),
      description: 'assignee_id__isnull=true: items without assignees.',
    },
    {
      name: 'label_id',
      type: 'uuid',
      ops: ['eq', 'in', 'isnull'],
      sql: linkFilter('work_item_labels', 'label_id'),
      description: 'label_id__isnull=true: items without labels.',
    },
    {
      name: 'type_id',
      type: 'uuid',
      ops: ['eq', 'in'],
      column: 'w.type_id',
      // type_id__in (rangedBy): a range per type, each type bound on its own. Read as an array's element, a rare type
      // was guessed a third of the project (three types in all) and PostgreSQL at times walked the project instead.
      pinned: (value, bind) => `w.type_id = ${bind(value)}`,
    },
    { name: 'parent_id', type: 'uuid', ops: ['eq', 'in', 'isnull'], column: 'w.parent_id' },
    {
      name: 'cycle_id',
      type: 'uuid',
      ops: ['eq', 'in', 'isnull'],
      column: 'w.cycle_id',
      description: 'cycle_id__isnull=true: items in no cycle.',
    },
    {
      name: 'module_id',
      type: 'uuid',
      ops: ['eq', 'in', 'isnull'],
      sql: linkFilter('module_work_items', 'module_id'),
      description: 'module_id__isnull=true: items in no module.',
    },
    {
      // Unique in a project (uq_work_items_sequence, deleted rows too): the one id it names is read by that index
      // first (an InitPlan), so the page is a primary key probe. Written only as a filter, a planner without
      // statistics walked the ordering's index filtering the whole project (1.8-2.4 s at a million items).
      name: 'sequence_id',
      type: 'int',
      ops: ['eq'],
      sql: (_op, ref) =>
        `w.sequence_id = ${ref} AND w.id = (SELECT s.id FROM work_items s WHERE s.workspace_id = $1 AND s.project_id = $2 AND s.sequence_id = ${ref})`,
    },
    { name: 'is_draft', type: 'bool', ops: ['eq'], column: 'w.is_draft' },
    { name: 'external_id', type: 'string', ops: ['eq'], column: 'w.external_id' },
    { name: 'external_source', type: 'string', ops: ['eq'], column: 'w.external_source' },
    { name: 'created_at', type: 'datetime', ops: ['gte', 'lte'], column: 'w.created_at' },
    { name: 'updated_at', type: 'datetime', ops: ['gte', 'lte'], column: 'w.updated_at' },
    { name: 'start_date', type: 'date', ops: ['gte', 'lte'], column: 'w.start_date' },
    { name: 'target_date', type: 'date', ops: ['gte', 'lte'], column: 'w.target_date' },
  ],
  search: ['w.name'],
  orderings: {
    // `type_id__in` reads one range of ix_work_items_type (project_id, type_id, created_at, id) per type, `state_id__in`
    // one of ix_work_items_state (project_id, state_id, created_at, id) per state, `priority__in` one of
    // ix_work_items_priority_created (project_id, rank, created_at, id) per priority.
    created_at: {
      expr: 'w.created_at',
      cursor: true,
      cast: 'timestamptz',
      immutable: true,
      rangedBy: ['type_id', 'state_id', 'priority'],
    },
    updated_at: { expr: 'w.updated_at', cursor: true, cast: 'timestamptz' },
    sequence_id: { expr: 'w.sequence_id', cursor: true, cast: 'int', immutable: true },
    id: { expr: 'w.id', cursor: true, cast: 'uuid', immutable: true },
    sort_order: { expr: 'w.sort_order', cursor: false },
    // `priority` / `state_group` and their `__in` read one range of ix_work_items_priority / ix_work_items_state_group
    // per value (FilterDef.pinned).
    priority: { expr: PRIORITY_RANK, cursor: false, pinnedBy: 'priority' },
    state_group: { expr: STATE_GROUP_RANK, cursor: false, pinnedBy: 'state_group' },
  },
  defaultOrder: '-created_at',
  idExpr: 'w.id',
};

/**
 * The workspace-wide work item list (later edition): the project list's filters plus `project_id`, in created_at or
 * updated_at order (ix_work_items_ws_created / ix_work_items_ws_updated); another `order_by` falls back to the
 * default like any unknown one. Every query binds the workspace as $1 and the readable projects (uuid[]) as $2.
 */
export const WORKSPACE_WORK_ITEM_LIST: ListSpec = {
  ...WORK_ITEM_LIST,
  filters: [
    {
      name: 'project_id',
      type: 'uuid',
      ops: ['eq', 'in'],
      column: 'w.project_id',
      description: 'Projects to list (UUIDs); one the caller cannot read adds nothing.',
    },
    // A sequence number is unique in one project only: here it is a plain filter (its $2 is the projects' array).
    ...WORK_ITEM_LIST.filters.map((f) =>
      f.name === 'sequence_id' ? { name: f.name, type: f.type, ops: f.ops, column: 'w.sequence_id' } : f,
    ),
  ],
  // ix_work_items_type leads with one project: the workspace list's type filter stays a filter of its walk.
  orderings: {
    created_at: { ...WORK_ITEM_LIST.orderings.created_at, rangedBy: undefined },
    updated_at: WORK_ITEM_LIST.orderings.updated_at,
  },
};
