import { webhookChosenSql } from '../webhooks/webhook-outbox';
import { WORKSPACE_WORK_ITEM_LIST, WORK_ITEM_LIST } from './work-items.queries';
import type { CustomValues } from '../custom-fields/custom-fields.service';
import { batchSetClause, sentColumns, UpdatableColumns } from '../common/database/partial-update';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Viewer } from '../common/auth/roles';
import { ListQuery } from '../common/pagination/list-query';
import { ListSpec } from '../common/pagination/list-spec';
import { OffsetAnchors } from '../common/pagination/offset-anchors';
import {
  applyFilters,
  BRANCHES_MAX,
  distinctValues,
  KeyWalk,
  ListSource,
  probeByKey,
  Ranges,
  rangeValues,
  runList,
} from '../common/pagination/run-list';
import { Queryable, SqlParams } from '../common/pagination/sql-params';
import { poolReader } from '../common/database/prepared';
import { STATE_GROUPS, StateGroup } from '../states/state.entity';
import { PRIORITIES } from './work-item.entity';
import { visibleInProject } from '../work-item-types/work-item-types.queries';
import { creationRuleSql } from '../workflows/workflows.queries';
import { LIVE_PROJECT_OF, priorityRankOf, READABLE_PROJECT } from './work-items.queries';

/** The list's scope: $1 workspace, $2 project, live items. */
const liveItems = () => ['w.workspace_id = $1', 'w.project_id = $2', 'w.deleted_at IS NULL', 'w.archived_at IS NULL'];
/**
 * The workspace-wide list's own statement of liveness: the predicate of `ix_work_items_ws_created` and
 * `ix_work_items_ws_updated` (migration WorkspaceIndexesOptIn). PostgreSQL reads a partial index only for statements
 * that imply its predicate, and only this expression implies it, so a project's list, which does not state it, can
 * never walk the whole workspace in place of its project's range (0.3-0.8 s for a small project's page beside a
 * million items).
 */
const WORKSPACE_INDEXES_OPT_IN = '(w.deleted_at IS NULL AND w.archived_at IS NULL) IS TRUE';
/** The live items of the readable projects (binds $1 workspace, $2 the projects' array): the workspace list's scope. */
const workspaceLiveItems = () => [
  'w.workspace_id = $1',
  'w.project_id = ANY($2::uuid[])',
  'w.deleted_at IS NULL',
  'w.archived_at IS NULL',
  WORKSPACE_INDEXES_OPT_IN,
];
/**
 * The scope of a page in id order: the project bound through an array, so that it stays a sort key
 * (ListSource.leadingOrder) and only `ix_work_items_id` (project_id, id) gives the order, never the primary key
 * (workspace_id, id) walked past other projects' newer items (time-ordered ids).
 */
const liveItemsProjectLeading = () => [
  'w.workspace_id = $1',
  'w.project_id = ANY(ARRAY[$2::uuid])',
  'w.deleted_at IS NULL',
  'w.archived_at IS NULL',
];
/**
 * The same scope with the project as a one-row subquery, whose value the planner does not look at. For a list
 * without filters the plan is the same for every project (a walk of the ordering's index), but a project holding
 * most rows made the plan PostgreSQL builds for its value look cheaper than the cached generic one, so it planned the
 * page again on every request (0.4 ms, as much as running it). The workspace stays a plain equality: it is what
 * routes the statement to one shard (docs/scaling.md); the extended statistics st_work_items_project_workspace (a
 * project implies its workspace) keep its value out of the estimate, so it does not cost the generic plan
 * (docs/work-items-plans.md, "The unfiltered page's workspace"). For filtered lists only when every filter is one whose
 * value never steers the plan (FilterDef.opaque: a state, a state group); elsewhere the filter values steer the plan and
 * the project's size weighs in.
 */
const liveItemsAnyProject = () => [
  'w.workspace_id = $1',
  'w.project_id = (SELECT $2::uuid)',
  'w.deleted_at IS NULL',
  'w.archived_at IS NULL',
];

/**
 * Relation filters whose link rows carry copies of the item's created_at, state group rank, liveness (migration
 * WorkItemLinkListColumns) and priority rank (WorkItemLinkPriorityCopies), indexed on live links by (key, project,
 * item_created_at, id, …), (key, project, group rank, item_created_at, id, …) and (key, project, priority rank,
 * item_created_at, id, …). A filter on one of them drives the created_at-ordered page from those ranges (each link
 * row's item then read by primary key), and its count, alone or with `state_group` / `priority`, reads counters or
 * link rows only.
 */
const LINK_DRIVERS: Record<string, { table: string; key: string; counts: string }> = {
  assignee_id: { table: 'work_item_assignees', key: 'assignee_id', counts: 'work_item_assignee_counts' },
  label_id: { table: 'work_item_labels', key: 'label_id', counts: 'work_item_label_counts' },
};

/**
 * Filters the per-(state, priority) counters (migration WorkItemStatePriorityCounts) answer: each builds its
 * condition from a bound reference (`$n::cast`, or `ANY($n::cast[])` for the `__in` form), the state filters on the
 * states `s` that drive the sum (statePriorityCount), the priority on the counter rows `k`.
 */
const STATE_PRIORITY_COUNTED: Record<string, { cast: string; cond: (ref: string) => string }> = {
  state_id: { cast: 'uuid', cond: (ref) => `s.id = ${ref}` },
  state_group: { cast: 'text', cond: (ref) => `s.deleted_at IS NULL AND s."group" = ${ref}` },
  priority: { cast: 'text', cond: (ref) => `k.priority = ${ref}` },
};

type ListFilter = ListQuery['filters'][number];

/** The item filters a link row answers from its copies (`state_group`, `priority`), when the request asks them. */
export interface LinkCopied {
  stateGroup?: ListFilter;
  priority?: ListFilter;
}

/** Where a row keeps the copied ranks: a link row has both, its counter row the state group's only. */
const LINK_ROW = { stateGroup: 'item_state_group_rank', priority: 'item_priority_rank' };
const COUNTER_ROW = { stateGroup: 'state_group_rank' };

/** The distinct ranks of an enum filter's value(s): their positions in `order` (STATE_GROUPS, PRIORITIES). */
export function ranksOf(f: ListFilter, order: readonly string[]): number[] {
  return [...new Set(distinctValues(f).map((v) => order.indexOf(v)))];
}

/** `column` is one of `ranks`: one rank is an equality the planner sees in a generic plan too (an index range). */
function rankCond(column: string, ranks: number[], p: SqlParams): string {
  return ranks.length === 1
    ? `${column} = ${p.add(ranks[0])}::smallint`
    : `${column} = ANY(${p.add(ranks)}::smallint[])`;
}

/**
 * The driving key and, if asked, the copied filters (state group, priority), on columns of `alias` (the link row or
 * its counter row, `columns` naming where it keeps the ranks); binds the key, then the ranks.
 */
function linkConds(
  link: (typeof LINK_DRIVERS)[string],
  key: string | string[] | undefined,
  copied: LinkCopied,
  p: SqlParams,
  alias: string,
  columns: { stateGroup: string; priority?: string } = LINK_ROW,
): string[] {
  const conds = [`${alias}.workspace_id = $1`, `${alias}.project_id = $2`];
  if (Array.isArray(key)) conds.push(`${alias}.${link.key} = ANY(${p.add(key)}::uuid[])`);
  else if (key !== undefined) conds.push(`${alias}.${link.key} = ${p.add(key)}::uuid`);
  return [...conds, ...copiedConds(copied, p, alias, columns)];
}

/**
 * For one id of a workspace list with several priorities (or else state groups) asked: one range of the link's
 * priority (group) index per (project, rank), as the ranges' `by`, its condition added to `where` (binds the ranks).
 * Returns the copied filters still to be asked as conditions (the split one taken out).
 */
function rankSplit(copied: LinkCopied, p: SqlParams, where: string[]): { by?: Ranges['by']; asked: LinkCopied } {
  const split = copied.priority ?? copied.stateGroup;
  const byPriority = split === copied.priority;
  const ranks = split ? ranksOf(split, byPriority ? PRIORITIES : STATE_GROUPS) : [];
  if (ranks.length < 2) return { asked: copied };
  const column = `x.${byPriority ? LINK_ROW.priority : LINK_ROW.stateGroup}`;
  const ranksRef = `${p.add(ranks)}::smallint[]`;
  where.push(`${column} = ANY(${ranksRef})`);
  const asked = byPriority ? { ...copied, priority: undefined } : { ...copied, stateGroup: undefined };
  return { by: { values: ranksRef, cond: (v) => `${column} = ${v}` }, asked };
}

/** The copied filters asked (state group, then priority) as rank conditions on `alias`'s `columns`; binds the ranks. */
function copiedConds(
  copied: LinkCopied,
  p: SqlParams,
  alias: string,
  columns: { stateGroup: string; priority?: string },
) {
  const conds: string[] = [];
  if (copied.stateGroup)
    conds.push(rankCond(`${alias}.${columns.stateGroup}`, ranksOf(copied.stateGroup, STATE_GROUPS), p));
  if (copied.priority && columns.priority)
    conds.push(rankCond(`${alias}.${columns.priority}`, ranksOf(copied.priority, PRIORITIES), p));
  return conds;
}

/**
 * The total of a list filtered by state, state group and priority only, as a sum of counter rows; undefined for any
 * other filter combination. `leading` binds $1 (workspace) and $2 (the project, or an array of projects), which
 * `projects` compares to (`= $2`, `= ANY($2::uuid[])`). With a state filter the sum is driven by the matching states
 * of those projects, each state's counter rows read by its own project: asking the counters' project to be any of
 * the list's as well made one index descent per (state, project), 12 million buffers and 4 s for a state group
 * over 2,003 projects (docs/work-items-plans.md, "Many small projects beside a big one").
 */
function statePriorityCount(q: ListQuery, leading: unknown[], projects: string) {
  if (q.search || !q.filters.length || !q.filters.every((f) => f.def.name in STATE_PRIORITY_COUNTED)) return undefined;
  const cp = new SqlParams(leading);
  const conds = q.filters.map((f) => {
    const c = STATE_PRIORITY_COUNTED[f.def.name];
    const ref = f.op === 'in' ? `ANY(${cp.add(f.value)}::${c.cast}[])` : `${cp.add(f.value)}::${c.cast}`;
    return c.cond(ref);
  });
  const byState = q.filters.some((f) => f.def.name !== 'priority');
  const from = byState
    ? `states s JOIN work_item_state_priority_counts k
         ON k.workspace_id = s.workspace_id AND k.project_id = s.project_id AND k.state_id = s.id
       WHERE s.workspace_id = $1 AND s.project_id ${projects}`
    : `work_item_state_priority_counts k WHERE k.workspace_id = $1 AND k.project_id ${projects}`;
  return {
    sql: `SELECT coalesce(sum(k.n), 0)::int AS c FROM ${from} AND ${conds.join(' AND ')}`,
    params: cp.values,
  };
}

/**
 * The total of a list filtered by one assignee or one label, with or without `state_group`, as a sum of that link's
 * counter rows (PK (key, project, rank, slot)); undefined for any other combination. `leading` and `projects` as for
 * statePriorityCount.
 */
function linkCount(q: ListQuery, leading: unknown[], projects: string) {
  if (q.search) return undefined;
  const links = q.filters.filter((f) => LINK_DRIVERS[f.def.name]);
  const one =
    links.length === 1 &&
    (links[0].op === 'eq' || (links[0].op === 'in' && new Set(links[0].value as string[]).size === 1));
  const rest = q.filters.filter((f) => f !== links[0]);
  if (!one || !rest.every((f) => f.def.name === 'state_group')) return undefined;
  const link = LINK_DRIVERS[links[0].def.name];
  const cp = new SqlParams(leading);
  const key = ([] as string[]).concat(links[0].value as string | string[])[0];
  const conds = [`k.workspace_id = $1`, `k.project_id ${projects}`, `k.${link.key} = ${cp.add(key)}::uuid`];
  for (const f of rest) {
    const ranks = ([] as string[])
      .concat(f.value as string | string[])
      .map((g) => STATE_GROUPS.indexOf(g as StateGroup));
    conds.push(`k.state_group_rank = ANY(${cp.add(ranks)}::smallint[])`);
  }
  return {
    sql: `SELECT coalesce(sum(k.n), 0)::int AS c FROM ${link.counts} k WHERE ${conds.join(' AND ')}`,
    params: cp.values,
  };
}

/**
 * The total of a list driven by a link filter (`keys` of `link`, with or without `state_group` / `priority`, the
 * filters its rows copy, plus `itemFilters` on the item): one id and no priority or item filter, a sum of that link's
 * counter rows, read by the page statement; one id and a priority, the count of its link rows (index-only on the
 * priority index, the matches only); several ids, the distinct items of their link rows (an index-only range per id);
 * with filters on the item, those items then each read by primary key. Never a semi-join of every item of the
 * project against the link table, nor a probe of items the copies rule out.
 */
function linkDrivenCount(
  link: (typeof LINK_DRIVERS)[string],
  keys: string[],
  copied: LinkCopied,
  itemFilters: ListFilter[],
  q: ListQuery,
  leading: unknown[],
): ListSource['filteredCount'] {
  const cp = new SqlParams(leading);
  const key = keys.length === 1 ? keys[0] : keys;
  if (keys.length === 1 && !itemFilters.length && !copied.priority) {
    const conds = linkConds(link, key, copied, cp, 'k', COUNTER_ROW);
    return {
      sql: `SELECT coalesce(sum(k.n), 0)::int AS c FROM ${link.counts} k WHERE ${conds.join(' AND ')}`,
      params: cp.values,
      inPage: q.orderKey === 'created_at',
    };
  }
  const linked = copied.priority
    ? prioritizedLinks(link, keys, copied, cp)
    : (mergedLinks(link, keys, copied, cp) ??
      `SELECT DISTINCT x.work_item_id FROM ${link.table} x WHERE ${[...linkConds(link, key, copied, cp, 'x'), 'x.item_live'].join(' AND ')}`);
  if (!itemFilters.length) return { sql: `SELECT count(*)::int AS c FROM (${linked}) k`, params: cp.values };
  const where = liveItems();
  applyFilters(WORK_ITEM_LIST, { ...q, filters: itemFilters, search: null }, where, cp);
  // Each linked item probed by primary key, then checked (probeByKey).
  return {
    sql: `SELECT count(*)::int AS c FROM (${linked}) k WHERE EXISTS (${itemProbe('k.work_item_id', where)})`,
    params: cp.values,
  };
}

/**
 * The ranges a link-driven page reads (KeyWalk.ranges), each one range of a link index in created_at order: one per
 * id when several are asked (`keyed`), one per priority when several are (`prioritized`), one per pair when both;
 * undefined for one id and at most one priority (a single range). Binds the ids, then the priority ranks.
 */
export function linkRanges(link: (typeof LINK_DRIVERS)[string], keys: string[], copied: LinkCopied, p: SqlParams) {
  const ranks = copied.priority ? ranksOf(copied.priority, PRIORITIES) : [];
  const keyed = keys.length > 1;
  const prioritized = ranks.length > 1;
  const byKey = keyed ? { values: `${p.add(keys)}::uuid[]`, cond: (v: string) => `x.${link.key} = ${v}` } : undefined;
  const byPriority = prioritized
    ? { values: `${p.add(ranks)}::smallint[]`, cond: (v: string) => `x.item_priority_rank = ${v}` }
    : undefined;
  const walk = byKey && byPriority ? { ...byKey, by: byPriority } : (byKey ?? byPriority);
  return walk && { walk, keyed, prioritized };
}

/**
 * The live link rows of `keys` whose copies meet `copied`, as read in created_at order: the walk's conditions on `x`
 * and its ranges (linkRanges: undefined for a single range). Binds the ranges' values, then the key and ranks.
 */
function linkWalk(link: (typeof LINK_DRIVERS)[string], keys: string[], copied: LinkCopied, p: SqlParams) {
  const ranges = linkRanges(link, keys, copied, p);
  const conds = linkConds(
    link,
    ranges?.keyed ? undefined : keys[0],
    { ...copied, priority: ranges?.prioritized ? undefined : copied.priority },
    p,
    'x',
  );
  return { ranges: ranges?.walk, conds: [...conds, 'x.item_live'] };
}

/**
 * SQL: the distinct items of the live links of several `keys` (2 to BRANCHES_MAX, no priority copied), as one
 * range of `ix_<link>_list` per id (each id bound on its own) merged in (created_at, item) order, an item under two
 * of the ids kept once by DISTINCT ON over the merge: the rows stream, nothing is hashed. A DISTINCT over the ids'
 * `= ANY` range hashed every link row and spilled to disk (two labels of a million items: 150,000 rows, 230 ms).
 * Undefined for one id or more than BRANCHES_MAX (then a DISTINCT over one `= ANY` range).
 */
function mergedLinks(link: (typeof LINK_DRIVERS)[string], keys: string[], copied: LinkCopied, p: SqlParams) {
  const distinct = [...new Set(keys)];
  if (distinct.length < 2 || distinct.length > BRANCHES_MAX || copied.priority) return undefined;
  const order = 'x.item_created_at, x.work_item_id';
  const ranges = distinct.map((key) => {
    const conds = [...linkConds(link, key, copied, p, 'x'), 'x.item_live'];
    return `(SELECT ${order} FROM ${link.table} x WHERE ${conds.join(' AND ')} ORDER BY ${order})`;
  });
  return `SELECT DISTINCT ON (x.item_created_at, x.work_item_id) x.work_item_id
    FROM (${ranges.join(' UNION ALL ')}) x ORDER BY ${order}`;
}

/**
 * SQL: the distinct items of the live links of `keys` whose copies meet `copied` (a priority among them), read one
 * range of the link's priority index per (id, priority) (linkWalk), each fenced by OFFSET 0: an index-only read of
 * the matches whatever the statistics say (never analyzed, an `= ANY` of the priorities beside the id could be read
 * as a filter of the id's whole range).
 */
function prioritizedLinks(link: (typeof LINK_DRIVERS)[string], keys: string[], copied: LinkCopied, p: SqlParams) {
  const { ranges, conds } = linkWalk(link, keys, copied, p);
  if (!ranges) return `SELECT x.work_item_id FROM ${link.table} x WHERE ${conds.join(' AND ')}`;
  const values = rangeValues(ranges);
  return `SELECT DISTINCT k.work_item_id FROM ${values.from}
    CROSS JOIN LATERAL (SELECT x.work_item_id FROM ${link.table} x WHERE ${[...conds, ...values.conds].join(' AND ')} OFFSET 0) k`;
}

/** SQL: the work item `key` (an outer reference) of the workspace $1, read by primary key, meets `conds` (on `w`). */
const itemProbe = (key: string, conds: string[]) =>
  `SELECT 1 FROM ${probeByKey('work_items', 'w', `w.workspace_id = $1 AND w.id = ${key}`)} WHERE ${conds.join(' AND ')}`;

/** `spec` with the created_at ordering and the id tiebreak read from the driving side row `alias` (link or gap row). */
const drivenBy = (spec: ListSpec, alias: string): ListSpec => ({
  ...spec,
  orderings: {
    ...spec.orderings,
    created_at: { ...spec.orderings.created_at, expr: `${alias}.item_created_at` },
  },
  idExpr: `${alias}.work_item_id`,
});

/** The work item list read from the driving link row `x`. */
const LINK_DRIVEN_LIST = drivenBy(WORK_ITEM_LIST, 'x');
/** The workspace-wide list read from the driving link row (its filters: `project_id` too; a plain `sequence_id`). */
const WORKSPACE_LINK_DRIVEN_LIST = drivenBy(WORKSPACE_WORK_ITEM_LIST, 'x');

/** Link rows `x` of live items in the readable projects (binds $1 workspace, $2 the projects' array). */
const WORKSPACE_LIVE_LINKS = ['x.workspace_id = $1', 'x.project_id = ANY($2::uuid[])', 'x.item_live'];

/**
 * Whether a workspace list page is read one range per readable project (projectRanges) rather than by a walk of
 * `ix_work_items_ws_created`: in created_at order without search, for at most BRANCHES_MAX ranges, when the walk
 * would pass items the page does not want, those of projects outside the list (`partial`: the caller reads only some
 * projects, or named some with project_id) or of other state groups. A member reading two small projects beside a
 * large one walked past the large one's newer items (86 ms at a million items); `state_group=started`, rare among
 * the newest items, past 22,000 others (120 ms). In created_at order with a priority too: with the statistics of a
 * workspace of many projects the walk's plan read every item of the priority and sorted them (240,000 rows, 0.2-0.4 s
 * at a million items). In updated_at order (`ix_work_items_ws_updated`), for a partial list without a state group.
 */
function rangedByProject(q: ListQuery, projectIds: string[], partial: boolean): boolean {
  if (q.search || !projectIds.length) return false;
  const group = q.filters.find((f) => f.def.name === 'state_group');
  // In updated_at order the ranges are `ix_work_items_updated`'s, which has no state group.
  if (q.orderKey === 'updated_at') return partial && !group && projectIds.length <= BRANCHES_MAX;
  if (q.orderKey !== 'created_at') return false;
  const priority = q.filters.find((f) => f.def.name === 'priority');
  const ranges =
    projectIds.length *
    (group ? ranksOf(group, STATE_GROUPS).length : 1) *
    (priority ? ranksOf(priority, PRIORITIES).length : 1);
  return ranges <= BRANCHES_MAX && (partial || !!group || !!priority);
}

/** The workspace list's priority filter when its page is walked with a budget (workspacePriorityList), else undefined. */
function walkedPriority(q: ListQuery): ListFilter | undefined {
  if (q.search || q.orderKey !== 'created_at') return undefined;
  return q.filters.find((f) => f.def.name === 'priority');
}

/**
 * The workspace list's keys read one range per readable project, each project bound on its own (Ranges.bound: a
 * LATERAL over the projects' array left PostgreSQL guessing each project a share of the workspace, and it walked
 * `ix_work_items_ws_created` instead), by `ix_work_items_created` (`ix_work_items_updated` in updated_at order) or,
 * with one state group, `ix_work_items_state_group_created`; with several state groups one range per (project, group).
 * In created_at order a priority filter's ranks split them further, one range per (project, priority) of
 * `ix_work_items_priority_created`, each rank equated to its constant. Each is read only as far as the page reaches,
 * merged; the page's rows are then read by key.
 */
function projectRanges(q: ListQuery, projectIds: string[], where: string[]): KeyWalk {
  const group = q.filters.find((f) => f.def.name === 'state_group' && f.op === 'in');
  const groups = group && distinctValues(group).length > 1 ? rangeConds(group) : [];
  const priority = q.orderKey === 'created_at' ? q.filters.find((f) => f.def.name === 'priority') : undefined;
  const priorities = priority ? rangeConds(priority) : [];
  const by =
    groups.length && priorities.length
      ? groups.flatMap((g) => priorities.map((pr) => `${g} AND ${pr}`))
      : [...groups, ...priorities];
  const ranges: Ranges = {
    values: '',
    cond: () => '',
    bound: { values: projectIds, cast: 'uuid', cond: (ref) => `w.project_id = ${ref}`, by: by.length ? by : undefined },
  };
  // Each range is one project's: without the opt-in, so that it too reads its project's index, not a walk of the
  // workspace's dropping other projects' items.
  const own = where.filter((c) => c !== WORKSPACE_INDEXES_OPT_IN);
  return { from: 'work_items w', where: own, always: true, lookup: { ...ITEM_BY_KEY, where: own }, ranges };
}

/**
 * One condition per distinct value of the rank filter `f` (state group, priority), as its FilterDef.ranged writes it:
 * the rank equated to a constant, a position in a fixed list, never the request's text.
 */
function rangeConds(f: ListFilter): string[] {
  const ranged = f.def.ranged;
  if (!ranged) throw new Error(`filter ${f.def.name} has no ranged form`);
  return distinctValues(f).map((v) => ranged(v, () => ''));
}

/**
 * The assignee or label filter (`=` or `__in`) by which a workspace list in created_at order without search is read
 * off its link table (listWorkspace); undefined for any other request.
 */
function workspaceLinkDriver(q: ListQuery): ListFilter | undefined {
  return q.orderKey === 'created_at' ? workspaceLinkFilter(q) : undefined;
}

/** The workspace list's one assignee or label filter (`=` or `__in`) when it has no search; else undefined. */
function workspaceLinkFilter(q: ListQuery): ListFilter | undefined {
  if (q.search) return undefined;
  const links = q.filters.filter((f) => LINK_DRIVERS[f.def.name]);
  return links.length === 1 && links[0].op !== 'isnull' ? links[0] : undefined;
}

/**
 * SQL: the distinct items of the live links of several `keys` (2 or more) in the readable projects `projectIds` ($2):
 * for at most BRANCHES_MAX (project, id) pairs one range of `ix_<link>_list` per pair, each bound on its own, merged
 * in (created_at, item) order, an item under two of the ids kept once by DISTINCT ON (mergedLinks' form: the rows
 * stream); past that a DISTINCT over the ids' `= ANY` range, which hashes every link row.
 */
function workspaceLinked(
  link: (typeof LINK_DRIVERS)[string],
  keys: string[],
  projectIds: string[],
  copied: LinkCopied,
  p: SqlParams,
) {
  const distinct = [...new Set(keys)];
  const scope = [`x.workspace_id = $1`, 'x.item_live', ...copiedConds(copied, p, 'x', LINK_ROW)];
  if (distinct.length * projectIds.length > BRANCHES_MAX) {
    const conds = [...scope, `x.project_id = ANY($2::uuid[])`, `x.${link.key} = ANY(${p.add(distinct)}::uuid[])`];
    return `SELECT DISTINCT x.work_item_id FROM ${link.table} x WHERE ${conds.join(' AND ')}`;
  }
  const order = 'x.item_created_at, x.work_item_id';
  // Each project as an element of $2 (the readable projects' array): an equality the range's index leads with.
  const ranges = projectIds.flatMap((_, i) =>
    distinct.map((key) => {
      const conds = [...scope, `x.project_id = ($2::uuid[])[${i + 1}]`, `x.${link.key} = ${p.add(key)}::uuid`];
      return `(SELECT ${order} FROM ${link.table} x WHERE ${conds.join(' AND ')} ORDER BY ${order})`;
    }),
  );
  return `SELECT DISTINCT ON (${order}) x.work_item_id FROM (${ranges.join(' UNION ALL ')}) x ORDER BY ${order}`;
}

/** The total of the workspace list's `linked` items (workspaceLinked) whose item meets `itemConds` (bound in `cp`). */
function workspaceLinksCount(linked: string, itemConds: string[], cp: SqlParams) {
  const probe = itemConds.length ? ` WHERE EXISTS (${itemProbe('k.work_item_id', itemConds)})` : '';
  return { sql: `SELECT count(*)::int AS c FROM (${linked}) k${probe}`, params: cp.values };
}

/**
 * Rows of the ordering a search walks before it reads its trigram index instead (ListSource.searchIndex): a term
 * in a tenth of the items fills a page of 50 within them; a rarer one is read by `ix_work_items_name_trgm`.
 */
export const SEARCH_WALK = 1000;

/**
 * `search` by `ix_work_items_name_trgm` (pg_trgm, live items): the workspace's items whose name matches, in a
 * subquery fenced by OFFSET 0 so that the list's other conditions (project, filters, cursor) only check its rows and
 * no other index can be chosen for it. Never analyzed, the planner guessed that walking the ordering's index would
 * find the page sooner, and walked every item of the project for a rare term (issue 27).
 */
const SEARCH_INDEX: NonNullable<ListSource['searchIndex']> = {
  alias: 'w',
  budget: SEARCH_WALK,
  // pg_trgm finds no trigram in a shorter term: the index would be read whole.
  minLength: 3,
  candidates: (cond) =>
    `(SELECT * FROM work_items w WHERE w.workspace_id = $1 AND w.deleted_at IS NULL AND ${cond} OFFSET 0) w`,
};

/** The project's live items, from the counter the count triggers keep (binds $1 workspace, $2 project). */
const PROJECT_COUNT = {
  sql: `SELECT coalesce(sum(n), 0)::int AS c FROM project_work_item_counts WHERE project_id = $2 AND workspace_id = $1`,
};

/**
 * `assignee_id__isnull=true` / `label_id__isnull=true`: the live items without such a link, one narrow row each in a
 * table of their own (migration WorkItemLinkGaps: `ix_<table>_list` holds a project's in created_at order), counted per
 * project in `work_item_gap_counts.<counter>`.
 */
const GAP_DRIVERS: Record<string, { table: string; counter: string }> = {
  assignee_id: { table: 'work_item_assignee_gaps', counter: 'unassigned' },
  label_id: { table: 'work_item_label_gaps', counter: 'unlabelled' },
};

/** The work item list with the created_at ordering and the id tiebreak read from the gap row `g`. */
const GAP_DRIVEN_LIST = drivenBy(WORK_ITEM_LIST, 'g');

/** The gap rows of `gap` in the list's project (binds $1 workspace, $2 project), aliased `g`. */
const gapRows = (gap: (typeof GAP_DRIVERS)[string]) => ({
  from: `${gap.table} g`,
  where: ['g.workspace_id = $1', 'g.project_id = $2'],
});

/**
 * The gap rows' items, each read by primary key (fenced): a FROM item of work item rows aliased `w` (a Probe's
 * candidates), for the orderings the gap table's index does not hold.
 */
const gapCandidates = (gap: (typeof GAP_DRIVERS)[string]) => `(SELECT w.* FROM ${gap.table} g
  CROSS JOIN LATERAL ${probeByKey('work_items', 'w', 'w.workspace_id = $1 AND w.id = g.work_item_id')}
  WHERE g.workspace_id = $1 AND g.project_id = $2 OFFSET 0) w`;

/**
 * The total of a gap-driven list: alone, the project's counter (read by the page statement); with other filters,
 * the gap rows whose item (read by primary key) meets them: O(the project's gap rows), never O(its items).
 */
function gapCount(gap: (typeof GAP_DRIVERS)[string], rest: ListFilter[], q: ListQuery, leading: unknown[]) {
  if (!rest.length)
    return {
      sql: `SELECT coalesce(sum(k.${gap.counter}), 0)::int AS c FROM work_item_gap_counts k WHERE k.project_id = $2 AND k.workspace_id = $1`,
      params: leading,
      inPage: q.orderKey === 'created_at',
    };
  const cp = new SqlParams(leading);
  const where = liveItems();
  applyFilters(WORK_ITEM_LIST, { ...q, filters: rest, search: null }, where, cp);
  const { from, where: scope } = gapRows(gap);
  return {
    sql: `SELECT count(*)::int AS c FROM ${from} WHERE ${scope.join(' AND ')} AND EXISTS (${itemProbe('g.work_item_id', where)})`,
    params: cp.values,
  };
}

/**
 * The workspace list's total of `assignee_id__isnull=true` or `label_id__isnull=true` alone: the counters of the
 * readable projects ($2); undefined for any other filter combination.
 */
function workspaceGapCount(q: ListQuery, leading: unknown[]) {
  const [only] = q.filters;
  const gap = only && GAP_DRIVERS[only.def.name];
  if (q.search || q.filters.length !== 1 || !gap || only.op !== 'isnull' || !only.value) return undefined;
  return {
    sql: `SELECT coalesce(sum(k.${gap.counter}), 0)::int AS c FROM work_item_gap_counts k WHERE k.workspace_id = $1 AND k.project_id = ANY($2::uuid[])`,
    params: leading,
  };
}

/**
 * The ids of the project's items that are in a module (of the bound uuid[] `only`, when given): the project's modules
 * (few), each its links' primary key range (workspace_id, module_id, ...), fenced so that it stays one range per
 * module whatever the statistics say. A module link always names a module of its item's project
 * (WorkItemMembership), and a deleted module's links go with it, so these are exactly the items the module filters
 * ask for (live or not: checked on the item).
 */
const moduleLinked = (only?: string) => `SELECT DISTINCT ml.work_item_id FROM modules m
  CROSS JOIN LATERAL (SELECT x.work_item_id FROM module_work_items x WHERE x.workspace_id = $1 AND x.module_id = m.id OFFSET 0) ml
  WHERE m.workspace_id = $1 AND m.project_id = $2${only ? ` AND m.id = ANY(${only})` : ''}`;

/** moduleLinked's items, each read by primary key: a FROM item of work item rows aliased `w` (a Probe's candidates). */
const moduleCandidates = (only?: string) => `(SELECT w.* FROM (${moduleLinked(only)}) k
  CROSS JOIN LATERAL ${probeByKey('work_items', 'w', 'w.workspace_id = $1 AND w.id = k.work_item_id')} OFFSET 0) w`;

/**
 * The count of `module_id__isnull=true` with the other filters `rest`, when a counter answers the list without the
 * module filter (no other filter, or state, state group and priority only): that total less the items in a module
 * (read off the module links), both read by one statement (one snapshot: exact). Undefined otherwise (the items
 * counted).
 */
function notInModuleCount(q: ListQuery, rest: ListFilter[], leading: unknown[]) {
  const total = rest.length
    ? statePriorityCount({ ...q, filters: rest }, leading, '= $2::uuid')
    : { sql: PROJECT_COUNT.sql, params: leading };
  if (!total) return undefined;
  const linked = candidateCount(q, rest, moduleCandidates(), new SqlParams(total.params));
  return { sql: `SELECT ((${total.sql}) - (${linked.sql}))::int AS c`, params: linked.params };
}

/**
 * Items of a `created_at` range a count reads off the range itself before it counts the items outside the range
 * instead (createdRangeCount).
 */
export const CREATED_RANGE_CAP = 5000;

/**
 * The live items of the project meeting `conds` (on `w`), counted in created_at order: the order fences the index,
 * since only ix_work_items_created (project_id, created_at, id) yields it for live items, so `created_at` bounds are
 * its index conditions whatever the statistics say (without the order, a planner without them read the project
 * through another partial index and filtered the range: 0.98 s at a million items). `limit`, a bound parameter.
 */
const createdOrderCount = (conds: string[], limit?: string) =>
  `(SELECT count(*) FROM (SELECT 1 FROM work_items w WHERE ${[...liveItems(), ...conds].join(' AND ')}
     ORDER BY w.created_at${limit ? ` LIMIT ${limit}` : ''}) x)`;

/**
 * The count of a `created_at` range (`__gte`, `__lte`) with the other filters `rest`, when a counter answers the list
 * without the range (no other filter, or state, state group and priority only): the range's items read up to
 * `cap`; when it holds that many, the counter's total less the items before and after the range. One statement
 * (one snapshot: exact), bounded by the smaller of the range and the rest of the project. Undefined otherwise.
 */
function createdRangeCount(q: ListQuery, rest: ListFilter[], leading: unknown[], cap: number) {
  const total = rest.length
    ? statePriorityCount({ ...q, filters: rest }, leading, '= $2::uuid')
    : { sql: PROJECT_COUNT.sql, params: leading };
  if (!total) return undefined;
  const p = new SqlParams(total.params);
  const others: string[] = [];
  applyFilters(WORK_ITEM_LIST, { ...q, filters: rest, search: null }, others, p);
  const bounds = q.filters
    .filter((f) => f.def.name === 'created_at')
    .map((f) => {
      const cond: string[] = [];
      applyFilters(WORK_ITEM_LIST, { ...q, filters: [f], search: null }, cond, p);
      return cond.join(' AND ');
    });
  const limit = `${p.add(cap)}::int`;
  const outside = bounds.map((b) => createdOrderCount([...others, `NOT (${b})`])).join(' - ');
  return {
    sql: `SELECT (CASE WHEN r.n < ${limit} THEN r.n ELSE (${total.sql}) - ${outside} END)::int AS c
            FROM (SELECT ${createdOrderCount([...others, ...bounds], limit)} AS n) r`,
    params: p.values,
  };
}

/**
 * Date filters counted off their own index (migration WorkItemDatedIndexes: undeleted items that have the date, by
 * project and date), target first when both are asked.
 */
const DATE_RANGED = ['target_date', 'start_date'];

/**
 * Rows of the ordering a date range's page walks before it reads the range off the date's index instead
 * (dateRangeList). Longer than SEARCH_WALK: a range's matches cluster by date, not by the ordering, so a range over a
 * few percent of the items needs a few thousand rows for a page, and reading them sorted off the index costs more
 * per row (every match of the range) than the walk.
 */
export const DATE_WALK = 4000;

/**
 * The project's undeleted items whose date meets `conds` (on `w`), read by the date's index (fenced): aliased `w`.
 * `archived_at` is checked outside: never analyzed, every index partial on live items is guessed to hold about one
 * entry, so with it inside any of them could be chosen; without it only the date's index (undeleted items with the
 * date) and the keys led by the workspace match, and the date's index alone has the range as a condition.
 */
const datedCandidates = (conds: string[]) =>
  `(SELECT * FROM work_items w WHERE w.workspace_id = $1 AND w.project_id = $2 AND w.deleted_at IS NULL AND ${conds.join(' AND ')} OFFSET 0) w`;

/** The project's item whose conditions `conds` (on `w`) name its primary key (sequenceList), fenced: aliased `w`. */
const byKeyCandidates = (conds: string[]) =>
  `(SELECT * FROM work_items w WHERE w.workspace_id = $1 AND w.project_id = $2 AND ${conds.join(' AND ')} OFFSET 0) w`;

/** The workspace list's items meeting `conds` in its readable projects ($2), fenced as byKeyCandidates. */
const readableCandidates = (conds: string[]) =>
  `(SELECT * FROM work_items w WHERE w.workspace_id = $1 AND w.project_id = ANY($2::uuid[]) AND ${conds.join(' AND ')} OFFSET 0) w`;

/**
 * A count read off `candidates` (a FROM item of work item rows aliased `w`, binding `p`'s leading values), checked
 * against `scope` (the list's, or what the candidates do not check themselves) and the other filters `rest` (bound
 * after).
 */
function candidateCount(
  q: ListQuery,
  rest: ListFilter[],
  candidates: string,
  p: SqlParams,
  scope = liveItems(),
  spec: ListSpec = WORK_ITEM_LIST,
) {
  const where = [...scope];
  applyFilters(spec, { ...q, filters: rest, search: null }, where, p);
  return { sql: `SELECT count(*)::int AS c FROM ${candidates} WHERE ${where.join(' AND ')}`, params: p.values };
}

/**
 * The live items linked to any of the bound uuid[] `keys` through `link` (one range of a link index per key, fenced so
 * that it stays one whatever the statistics say; an item under two of the keys once), each read by primary key: a
 * FROM item of work item rows aliased `w` (a Probe's candidates). `projects` compares the link row's project to $2.
 */
const linkCandidates = (link: (typeof LINK_DRIVERS)[string], keys: string, projects: string) => `(SELECT w.* FROM (
    SELECT DISTINCT x.work_item_id FROM unnest(${keys}) AS k(key)
      CROSS JOIN LATERAL (SELECT x.work_item_id FROM ${link.table} x
        WHERE x.workspace_id = $1 AND x.${link.key} = k.key AND x.project_id ${projects} AND x.item_live OFFSET 0) x) k
  CROSS JOIN LATERAL ${probeByKey('work_items', 'w', 'w.workspace_id = $1 AND w.id = k.work_item_id')} OFFSET 0) w`;

/**
 * How many rows of its ordering a page filtered by the bound uuid[] `keys` of `link` walks before it reads their
 * linked items instead (linkCandidateList), from the counters: m items carry the ids among the n of the projects
 * (`projects` compares a counter's project to $2), and the page needs `need` of them. At the density m / n the walk
 * finds them within about need * n / m rows, and the linked items are m rows: when m * m < need * n (few linked
 * items) the linked items are cheaper, read after a short walk (SEARCH_WALK: recent matches are served from it);
 * otherwise the walk is given four times its expected length, at least SEARCH_WALK, before the linked items are read.
 * So a page reads at most about 4 * sqrt(need * n) + m rows, where the walk alone read every item for an id few carry.
 */
const linkWalkBudget = (link: (typeof LINK_DRIVERS)[string], keys: string, projects: string, need: number) => `SELECT
    CASE WHEN m.n = 0 OR m.n * m.n < ${need}::bigint * t.n THEN ${SEARCH_WALK}
         ELSE greatest(${SEARCH_WALK}, least(t.n, 4 * ${need}::bigint * t.n / m.n)) END
  FROM (SELECT coalesce(sum(k.n), 0)::bigint AS n FROM ${link.counts} k
         WHERE k.workspace_id = $1 AND k.${link.key} = ANY(${keys}) AND k.project_id ${projects}) m,
       (SELECT coalesce(sum(c.n), 0)::bigint AS n FROM project_work_item_counts c
         WHERE c.workspace_id = $1 AND c.project_id ${projects}) t`;

/** A walked key's work item: a primary key probe, still scoped to the project's live items. */
const ITEM_BY_KEY = {
  table: 'work_items',
  alias: 'w',
  on: 'w.workspace_id = $1 AND w.id = "__keys"."__key"',
  where: liveItems(),
};

/** Columns of the read shape (assignee_ids / label_ids come from ID_ARRAYS). */
const COLS = `w.id, w.name, w.sequence_id, w.project_id, w.priority, w.state_id, w.type_id, w.parent_id, w.cycle_id,
  to_char(w.start_date, 'YYYY-MM-DD') AS start_date, to_char(w.target_date, 'YYYY-MM-DD') AS target_date,
  w.is_draft, w.archived_at, w.created_at, w.created_by_id`;

/*
 * Per-row id arrays of the item `alias`, in the workspace `ws` (an SQL reference: the item's column, or the list's
 * $1): the link rows of one workspace's item (a statement routed to one workspace), read by an index whose leading
 * columns are exactly (workspace_id, work_item_id), so the read is an index-only range whatever the statistics say.
 */
const ASSIGNEE_IDS = (alias: string, ws: string) =>
  `ARRAY(SELECT a.assignee_id FROM work_item_assignees a WHERE a.workspace_id = ${ws} AND a.work_item_id = ${alias}.id ORDER BY a.assignee_id) AS assignee_ids`;
const LABEL_IDS = (alias: string, ws: string) =>
  `ARRAY(SELECT l.label_id FROM work_item_labels l WHERE l.workspace_id = ${ws} AND l.work_item_id = ${alias}.id ORDER BY l.label_id) AS label_ids`;
/** Index-only on ix_module_work_items_ws_item; a deleted module's links are deleted with it. */
const MODULE_IDS = (alias: string, ws: string) =>
  `ARRAY(SELECT mw.module_id FROM module_work_items mw WHERE mw.workspace_id = ${ws} AND mw.work_item_id = ${alias}.id ORDER BY mw.module_id) AS module_ids`;

/** The id arrays of the work item row `alias` (a row carrying its workspace_id). */
const idArrays = (alias: string) => `
  ${ASSIGNEE_IDS(alias, `${alias}.workspace_id`)},
  ${LABEL_IDS(alias, `${alias}.workspace_id`)},
  ${MODULE_IDS(alias, `${alias}.workspace_id`)}`;

/**
 * A link set's ids after a write that may have replaced it in the same statement (whose snapshot does not see
 * that): the array the write was sent (`sent`, distinct and ordered like the read), else the stored set (`read`,
 * an `... AS name` expression of ASSIGNEE_IDS / LABEL_IDS).
 */
const writtenSet = (sent: string, read: string): string => {
  const [expr, name] = read.split(/ AS (?=\w+$)/);
  return `CASE WHEN ${sent} IS NULL THEN ${expr} ELSE ARRAY(SELECT DISTINCT x FROM unnest(${sent}) x ORDER BY x) END AS ${name}`;
};

/**
 * Which per-row id arrays a list page reads (a `?fields=` projection without them skips their subqueries), and
 * which relations' expanded objects it reads with them (pageExpanded).
 */
export interface ListArrays {
  assignees: boolean;
  labels: boolean;
  modules: boolean;
  expanded?: readonly ExpandedRelation[];
}

const ALL_ARRAYS: ListArrays = { assignees: true, labels: true, modules: true };

/** The per-row id array subqueries a page computes (on its own rows only, aliased `page`). */
const pageArrays = (arrays: ListArrays): string[] =>
  [
    arrays.assignees && ASSIGNEE_IDS('page', '$1'),
    arrays.labels && LABEL_IDS('page', '$1'),
    arrays.modules && MODULE_IDS('page', '$1'),
  ].filter((x): x is string => !!x);

/** Columns a single read also needs: writes compare against them; custom fields render from them. */
const DETAIL_SCALARS = `${COLS}, w.workspace_id, w.custom_values, w.external_id, w.external_source, w.estimate_point_id,
  w.version`;
const DETAIL_COLS = `${DETAIL_SCALARS}, ${idArrays('w')}`;

export interface WorkItemRow extends Record<string, unknown> {
  id: string;
  name: string;
  sequence_id: number;
  project_id: string;
  priority: string;
  state_id: string;
  type_id: string | null;
  parent_id: string | null;
  cycle_id: string | null;
  start_date: string | null;
  target_date: string | null;
  is_draft: boolean;
  /** A Date, or the ISO string on list pages (pageReader). */
  archived_at: Date | string | null;
  created_at: Date | string;
  created_by_id: string | null;
  assignee_ids: string[];
  label_ids: string[];
  module_ids: string[];
}

export interface WorkItemDetailRow extends WorkItemRow {
  workspace_id: string;
  custom_values: CustomValues;
  external_id: string | null;
  external_source: string | null;
  estimate_point_id: string | null;
  /** Project identifier (PROJ), for `identifier`. */
  project_identifier: string;
  /** The row version (strong ETags): read with the row, so the tag and the body are of one snapshot. */
  version: number;
}

/** Scalar columns a write may set (names interpolated: whitelist). */
export interface WorkItemWrite {
  name?: string;
  description_html?: string;
  description_stripped?: string;
  priority?: string;
  state_id?: string;
  type_id?: string | null;
  parent_id?: string | null;
  estimate_point_id?: string | null;
  start_date?: string | null;
  target_date?: string | null;
  external_id?: string | null;
  external_source?: string | null;
  custom_values?: Record<string, unknown>;
}

/** The columns a work item PATCH writes (the allow-list of its partial updates, single or batch: updateMany). */
const WORK_ITEM_COLUMNS: UpdatableColumns<WorkItemWrite> = {
  name: {},
  description_html: {},
  description_stripped: {},
  priority: {},
  state_id: {},
  type_id: {},
  parent_id: {},
  estimate_point_id: {},
  start_date: {},
  target_date: {},
  external_id: {},
  external_source: {},
  custom_values: {},
};

/**
 * Two CTEs of updateMany replacing a link set: the links of each row's item not in the row's `field` array deleted,
 * the missing ones inserted; rows whose array is null (not sent) untouched.
 */
function replaceSet(table: string, column: string, field: string, alias: string): string {
  return `d${alias} AS (
         DELETE FROM ${table} x USING u
          WHERE x.workspace_id = $1 AND x.work_item_id = u.id AND u.${field} IS NOT NULL AND NOT (x.${column} = ANY(u.${field}))
       ), i${alias} AS (
         INSERT INTO ${table} (work_item_id, ${column}, workspace_id, project_id)
         SELECT u.id, v, $1, $2 FROM u, unnest(u.${field}) v WHERE u.${field} IS NOT NULL
         ON CONFLICT DO NOTHING
       )`;
}

/** The record a batch PATCH row travels as (updateMany): every writable column with its type, and the link sets. */
const UPDATE_RECORD = `id uuid, sent text[], name text, description_html text, description_stripped text, priority text,
  state_id uuid, type_id uuid, parent_id uuid, estimate_point_id uuid, start_date date, target_date date,
  external_id text, external_source text, custom_values jsonb, assignee_ids uuid[], label_ids uuid[]`;

/** What a batch PATCH statement writes (updateManySql): the columns any row sent, and whether a link set is replaced. */
export interface UpdateManyShape {
  sent: ReadonlySet<string>;
  assignees: boolean;
  labels: boolean;
}

/**
 * The statement of updateMany; parameters: $1 workspace, $2 project, $3 the rows (JSON, UPDATE_RECORD), $4 the
 * user, $5 unlessHooked. Columns no row sent are not in the SET list (no column trigger fires for them); a link set no
 * row sent is left out (its statement triggers do not fire). History is written by the statement's triggers. A pure
 * function of the shape, so bench/history.js times the statement the service sends.
 */
export function updateManySql(shape: UpdateManyShape): string {
  const columns = Object.fromEntries(
    Object.entries(WORK_ITEM_COLUMNS).filter(([c]) => shape.sent.has(c)),
  ) as UpdatableColumns<WorkItemWrite>;
  const set = batchSetClause(columns, 'w', 'u', ['updated_at = now()', 'updated_by_id = $4']);
  const sets = [
    shape.assignees && replaceSet('work_item_assignees', 'assignee_id', 'assignee_ids', 'a'),
    shape.labels && replaceSet('work_item_labels', 'label_id', 'label_ids', 'l'),
  ].filter((x): x is string => !!x);
  return `WITH u AS (
         SELECT * FROM jsonb_to_recordset($3::jsonb) AS u(${UPDATE_RECORD})
       ), hook AS (SELECT ${webhookChosenSql('$1', 'workitem.updated')} AS hooked),
       ${sets.map((x) => `${x},`).join('\n')}
       up AS (
         UPDATE work_items w ${set}
           FROM u WHERE w.workspace_id = $1 AND w.project_id = $2 AND w.id = u.id
            AND w.deleted_at IS NULL AND w.archived_at IS NULL AND NOT ($5::boolean AND (SELECT hooked FROM hook))
         RETURNING w.*
       )
       SELECT hook.hooked, r.* FROM hook LEFT JOIN (
         SELECT ${DETAIL_SCALARS},
                ${writtenSet('u.assignee_ids', ASSIGNEE_IDS('w', '$1'))},
                ${writtenSet('u.label_ids', LABEL_IDS('w', '$1'))},
                ${MODULE_IDS('w', '$1')}, p.identifier AS project_identifier
           FROM up w JOIN u ON u.id = w.id JOIN projects p ON p.workspace_id = $1 AND p.id = w.project_id) r ON true`;
}

// Re-reads that lock what a write links to FOR KEY SHARE until commit (arguments are SQL references).
// Deleting a label, an estimate (or point) or a work item locks the row (or its estimate) FOR UPDATE first,
// which conflicts with KEY SHARE: the delete waits for our commit and then strips / clears what we wrote,
// or it committed first and the re-read misses the row.
const LOCK_STATE = (ws: string, project: string, id: string) =>
  `SELECT id FROM states WHERE workspace_id = ${ws} AND project_id = ${project} AND id = ${id} AND deleted_at IS NULL FOR KEY SHARE`;
const LOCK_LABELS = (ws: string, project: string, ids: string) =>
  `SELECT id FROM labels WHERE workspace_id = ${ws} AND (project_id = ${project} OR project_id IS NULL) AND id = ANY(${ids}) AND deleted_at IS NULL
     FOR KEY SHARE`;
const LOCK_ESTIMATE_POINT = (ws: string, project: string, id: string) =>
  `SELECT p.id FROM estimate_points p JOIN estimates e ON e.id = p.estimate_id
    WHERE p.workspace_id = ${ws} AND p.project_id = ${project} AND p.id = ${id} AND p.deleted_at IS NULL
      AND e.workspace_id = ${ws} AND e.is_active AND e.deleted_at IS NULL
      FOR KEY SHARE`;
/** A type deletion takes the type FOR UPDATE and then checks it is unused: a write holding it FOR KEY SHARE is waited for. */
const LOCK_TYPE = (ws: string, id: string) =>
  `SELECT t.id FROM work_item_types t WHERE t.workspace_id = ${ws} AND t.id = ${id} AND t.deleted_at IS NULL AND t.is_active FOR KEY SHARE`;
const LOCK_WORK_ITEM = (ws: string, id: string) =>
  `SELECT w.id FROM work_items w JOIN projects wp ON wp.workspace_id = w.workspace_id AND wp.id = w.project_id AND wp.deleted_at IS NULL
    WHERE w.workspace_id = ${ws} AND w.id = ${id} AND w.deleted_at IS NULL FOR KEY SHARE`;

/** Relations whose expanded objects come from EXPANDED_SQL (cycle and modules have their own helpers). */
export type ExpandedRelation = 'state' | 'type' | 'parent' | 'assignees' | 'labels';
export type ExpandedObject = { id: string } & Record<string, unknown>;
/** Each relation's objects, by relation (expandedObjects, pageExpanded). */
export type ExpandedObjects = Partial<Record<ExpandedRelation, ExpandedObject[]>>;

/**
 * The expanded object shapes (gap-reference 4): the objects whose id meets `which` (a condition on the id such as
 * `= ANY($2::uuid[])`); `$1` is the workspace.
 */
const EXPANDED_SQL: Record<ExpandedRelation, (which: string) => string> = {
  state: (which) => `SELECT id, name, color, "group" FROM states WHERE workspace_id = $1 AND id ${which}`,
  type: (which) => `SELECT id, name, logo_props, is_epic FROM work_item_types WHERE workspace_id = $1 AND id ${which}`,
  parent: (which) =>
    `SELECT id, name, sequence_id FROM work_items w WHERE workspace_id = $1 AND id ${which} AND deleted_at IS NULL AND ${LIVE_PROJECT_OF('w')}`,
  // Assignees are members of the workspace; users carry no workspace of their own.
  assignees: (which) => `SELECT id, display_name, avatar_url, email FROM users WHERE id ${which}`,
  labels: (which) => `SELECT id, name, color FROM labels WHERE workspace_id = $1 AND id ${which}`,
};

/**
 * The ids a list page's rows (the CTE `page`, ListSource.pageOnce) hold of each relation, as an array: off the rows'
 * own columns and id arrays, so the objects are read by id, however many the workspace has.
 */
const PAGE_IDS: Record<ExpandedRelation, string> = {
  state: '= ANY(ARRAY(SELECT p.state_id FROM page p))',
  type: '= ANY(ARRAY(SELECT p.type_id FROM page p))',
  parent: '= ANY(ARRAY(SELECT p.parent_id FROM page p))',
  assignees: '= ANY(ARRAY(SELECT unnest(p.assignee_ids) FROM page p))',
  labels: '= ANY(ARRAY(SELECT unnest(p.label_ids) FROM page p))',
};

/** One work item of a project by id ($1 workspace, $2 project, $3 id), unarchived only if `live`. */
const ITEM_DETAIL = (live: boolean, lock: boolean) =>
  `SELECT ${DETAIL_COLS}, p.identifier AS project_identifier
     FROM work_items w JOIN projects p ON p.workspace_id = w.workspace_id AND p.id = w.project_id
    WHERE w.workspace_id = $1 AND w.project_id = $2 AND w.id = $3 AND w.deleted_at IS NULL
      ${live ? 'AND w.archived_at IS NULL' : ''}${lock ? ' FOR UPDATE OF w' : ''}`;

/** The ids one item's detail row (`d`, withExpanded) holds of each relation. */
const DETAIL_IDS: Record<ExpandedRelation, string> = {
  state: '= d.state_id',
  type: '= d.type_id',
  parent: '= d.parent_id',
  assignees: '= ANY(d.assignee_ids)',
  labels: '= ANY(d.label_ids)',
};

/** One JSON object holding each relation's objects whose ids `ids` names, as expandedObjects returns them. */
const expandedJson = (relations: readonly ExpandedRelation[], ids: Record<ExpandedRelation, string>): string =>
  `json_build_object(${relations
    .map((rel) => `'${rel}', (SELECT coalesce(json_agg(x), '[]') FROM (${EXPANDED_SQL[rel](ids[rel])}) x)`)
    .join(', ')})`;

/**
 * A list page's expanded objects, read by the page statement itself, once for the whole page (ListSource.pageOnce).
 * A second statement for them had cost the `?expand=` list a round trip; as per-row columns they cost more (each
 * row's subqueries, each state repeated on every row). The page must read the id arrays of the relations expanded
 * (ListArrays).
 */
const pageExpanded = (relations: readonly ExpandedRelation[]): string | undefined =>
  relations.length ? `SELECT ${expandedJson(relations, PAGE_IDS)}` : undefined;

/**
 * One item's read (`detail`, whose $1 is the workspace and which reads the id arrays) with its expanded objects as
 * the column `expanded`: the single item's `?expand=` in its own statement, as a list page's is (pageExpanded).
 * MATERIALIZED: as a subquery PostgreSQL pulled the read up and computed each id array twice.
 */
const withExpanded = (detail: string, relations: readonly ExpandedRelation[]): string =>
  relations.length
    ? `WITH d AS MATERIALIZED (${detail}) SELECT d.*, ${expandedJson(relations, DETAIL_IDS)} AS expanded FROM d`
    : detail;

/** One row of a batch insert (insertCheckedMany): its position, its sequence number and its values. */
export interface BatchRow {
  ord: number;
  seq: number;
  name: string;
  description_html: string;
  description_stripped: string;
  priority: string;
  state_id: string;
  type_id: string | null;
  parent_id: string | null;
  estimate_point_id: string | null;
  start_date: string | null;
  target_date: string | null;
  external_id: string | null;
  external_source: string | null;
  custom_values: Record<string, unknown>;
  assignee_ids: string[];
  label_ids: string[];
}

/** What the checked insert found: the row it wrote, or (nothing written) which reference failed. */
export interface CheckedInsert {
  /** Whether an active webhook chooses `workitem.created` (with `unlessHooked`, nothing was written then). */
  hooked: boolean;
  state_live: boolean;
  type_live: boolean;
  live_label_ids: string[];
  estimate_point_live: boolean;
  parent_live: boolean;
  creation_allowed: boolean | null;
  row: WorkItemDetailRow | null;
}

export type Archived = 'live' | 'any' | 'archived';

/**
 * The checked insert of a work item (insertChecked): locks what it references, checks each is live (and the
 * workflow's creation rule), inserts the item and its links only if all are, and returns the checks with the row.
 */
const checkedInsert = (links: {
  assignees: boolean;
  labels: boolean;
}) => `WITH st AS (${LOCK_STATE('$1', '$2', '$7::uuid')}),
        lb AS (${LOCK_LABELS('$1', '$2', '$18::uuid[]')}),
        ep AS (${LOCK_ESTIMATE_POINT('$1', '$2', '$10::uuid')}),
        par AS (${LOCK_WORK_ITEM('$1', '$9::uuid')}),
        ty AS (${LOCK_TYPE('$1', '$8::uuid')}),
        chk AS (
          SELECT EXISTS (SELECT 1 FROM st) AS state_live,
                 ($8::uuid IS NULL OR EXISTS (SELECT 1 FROM ty)) AS type_live,
                 ARRAY(SELECT id FROM lb) AS live_label_ids,
                 ($10::uuid IS NULL OR EXISTS (SELECT 1 FROM ep)) AS estimate_point_live,
                 ($9::uuid IS NULL OR EXISTS (SELECT 1 FROM par)) AS parent_live,
                 ${creationRuleSql('$2', '$7::uuid', '$1::uuid')} AS creation_allowed
        ),
        hook AS (SELECT ${webhookChosenSql('$1', 'workitem.created')} AS hooked),
        item AS (
          INSERT INTO work_items (workspace_id, project_id, sequence_id, name, description_html, description_stripped, priority,
                                  state_id, type_id, parent_id, estimate_point_id, start_date, target_date, external_id, external_source,
                                  custom_values, sort_order, created_by_id, updated_by_id)
          SELECT $1, $2, $19::int, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $19::int * 65535.0, $16, $16
            FROM chk, hook
           WHERE chk.state_live AND cardinality(chk.live_label_ids) = cardinality($18::uuid[])
             AND chk.estimate_point_live AND chk.parent_live AND chk.type_live AND chk.creation_allowed IS NOT FALSE
             AND NOT ($21::boolean AND hook.hooked)
          RETURNING *
        )${
          links.assignees
            ? `,
        a AS (
          INSERT INTO work_item_assignees (work_item_id, assignee_id, workspace_id, project_id, item_created_at, item_state_group_rank, item_live,
                                  item_priority_rank)
          SELECT item.id, x, $1, $2, item.created_at, item.state_group_rank, true, ${priorityRankOf('item')} FROM item, unnest($17::uuid[]) AS x
        )`
            : ''
        }${
          links.labels
            ? `,
        l AS (
          INSERT INTO work_item_labels (work_item_id, label_id, workspace_id, project_id, item_created_at, item_state_group_rank, item_live,
                                  item_priority_rank)
          SELECT item.id, x, $1, $2, item.created_at, item.state_group_rank, true, ${priorityRankOf('item')} FROM item, unnest($18::uuid[]) AS x
        )`
            : ''
        }
   SELECT chk.*, hook.hooked, r.*
     FROM chk CROSS JOIN hook LEFT JOIN (
          SELECT ${COLS}, w.workspace_id, w.custom_values, w.external_id, w.external_source, w.estimate_point_id, w.version,
                 ARRAY(SELECT x FROM unnest($17::uuid[]) x ORDER BY x) AS assignee_ids,
                 ARRAY(SELECT x FROM unnest($18::uuid[]) x ORDER BY x) AS label_ids,
                 '{}'::uuid[] AS module_ids,
                 $20::text AS project_identifier
            FROM item w) r ON true`;

/**
 * checkedInsert's four texts, built once: the statement cache (statement-cache.ts) then finds a text's name by a
 * string it has hashed before, where a text built per call was hashed and compared in full on every create
 * (about 1% of a create's CPU, issue 27).
 */
const CHECKED_INSERTS = [false, true].map((assignees) =>
  [false, true].map((labels) => checkedInsert({ assignees, labels })),
);

/** createPrelude's two texts (without and with the sequence number), built once for the same reason. */
const CREATE_PRELUDES = [false, true].map(
  (
    takeSequence,
  ) => `SELECT (SELECT s.id FROM states s WHERE s.workspace_id = $1 AND s.project_id = $2 AND s.is_default AND s.deleted_at IS NULL) AS default_state_id,
              (SELECT t.id FROM work_item_types t
                WHERE t.workspace_id = $1 AND t.is_default AND t.is_active AND NOT t.is_epic AND t.deleted_at IS NULL
                  AND ${visibleInProject('$2::uuid')}
                  AND (CASE WHEN COALESCE((SELECT f.is_work_item_types_enabled FROM workspace_features f WHERE f.workspace_id = $1), false)
                            THEN t.project_id IS NULL ELSE t.project_id IS NOT NULL END)
                LIMIT 1) AS default_type_id,
              ${takeSequence ? 'wt_next_work_item_sequence($1, $2)' : 'NULL::int'} AS sequence_id`,
);

/** The rows of insertCheckedMany's batch, among the ones that reference a row of `col` (for the FOR KEY SHARE re-reads). */
const BATCH_IDS = (col: string) => `ANY(ARRAY(SELECT r.${col} FROM r WHERE r.${col} IS NOT NULL))`;

/** insertChecked for a batch (insertCheckedMany): $3 the rows as JSON, $5 all-or-none. */
const CHECKED_INSERT_MANY = `WITH r AS (
        SELECT * FROM jsonb_to_recordset($3::jsonb) AS r(ord int, seq int, name text, description_html text,
          description_stripped text, priority text, state_id uuid, type_id uuid, parent_id uuid, estimate_point_id uuid,
          start_date date, target_date date, external_id text, external_source text, custom_values jsonb,
          assignee_ids uuid[], label_ids uuid[])
      ),
      st AS (${LOCK_STATE('$1', '$2', BATCH_IDS('state_id'))}),
      lb AS (${LOCK_LABELS('$1', '$2', 'ARRAY(SELECT DISTINCT unnest(r.label_ids) FROM r)')}),
      ep AS (${LOCK_ESTIMATE_POINT('$1', '$2', BATCH_IDS('estimate_point_id'))}),
      par AS (${LOCK_WORK_ITEM('$1', BATCH_IDS('parent_id'))}),
      ty AS (${LOCK_TYPE('$1', BATCH_IDS('type_id'))}),
      chk AS (
        SELECT r.ord,
               EXISTS (SELECT 1 FROM st WHERE st.id = r.state_id) AS state_live,
               (r.type_id IS NULL OR EXISTS (SELECT 1 FROM ty WHERE ty.id = r.type_id)) AS type_live,
               ARRAY(SELECT lb.id FROM lb WHERE lb.id = ANY(r.label_ids)) AS live_label_ids,
               (r.estimate_point_id IS NULL OR EXISTS (SELECT 1 FROM ep WHERE ep.id = r.estimate_point_id)) AS estimate_point_live,
               (r.parent_id IS NULL OR EXISTS (SELECT 1 FROM par WHERE par.id = r.parent_id)) AS parent_live,
               ${creationRuleSql('$2', 'r.state_id', '$1::uuid')} AS creation_allowed
          FROM r
      ),
      pass AS (
        SELECT chk.ord, chk.state_live AND chk.type_live AND chk.estimate_point_live AND chk.parent_live
               AND cardinality(chk.live_label_ids) = cardinality(r.label_ids) AND chk.creation_allowed IS NOT FALSE AS ok
          FROM chk JOIN r ON r.ord = chk.ord
      ),
      ok AS (
        SELECT r.* FROM r JOIN pass ON pass.ord = r.ord
         WHERE pass.ok AND NOT ($5::boolean AND EXISTS (SELECT 1 FROM pass WHERE NOT pass.ok))
      ),
      item AS (
        INSERT INTO work_items (workspace_id, project_id, sequence_id, name, description_html, description_stripped, priority,
                                state_id, type_id, parent_id, estimate_point_id, start_date, target_date, external_id, external_source,
                                custom_values, sort_order, created_by_id, updated_by_id)
        SELECT $1, $2, ok.seq, ok.name, ok.description_html, ok.description_stripped, ok.priority, ok.state_id, ok.type_id,
               ok.parent_id, ok.estimate_point_id, ok.start_date, ok.target_date, ok.external_id, ok.external_source,
               ok.custom_values, ok.seq * 65535.0, $4, $4
          FROM ok ORDER BY ok.ord
        RETURNING id, sequence_id, created_at, state_group_rank, priority
      ),
      a AS (
        INSERT INTO work_item_assignees (work_item_id, assignee_id, workspace_id, project_id, item_created_at, item_state_group_rank, item_live,
                                item_priority_rank)
        SELECT item.id, x, $1, $2, item.created_at, item.state_group_rank, true, ${priorityRankOf('item')}
          FROM item JOIN ok ON ok.seq = item.sequence_id, unnest(ok.assignee_ids) AS x
      ),
      l AS (
        INSERT INTO work_item_labels (work_item_id, label_id, workspace_id, project_id, item_created_at, item_state_group_rank, item_live,
                                item_priority_rank)
        SELECT item.id, x, $1, $2, item.created_at, item.state_group_rank, true, ${priorityRankOf('item')}
          FROM item JOIN ok ON ok.seq = item.sequence_id, unnest(ok.label_ids) AS x
      )
 SELECT chk.*, item.id FROM chk JOIN r ON r.ord = chk.ord LEFT JOIN item ON item.sequence_id = r.seq ORDER BY chk.ord`;

@Injectable()
export class WorkItemsRepository {
  /** Hot reads outside transactions (list pages, detail reads) go straight to the pool. */
  private readonly reader: Queryable;
  /** List pages: their rows only feed the mapper, so timestamps arrive as the API's ISO strings (iso-timestamps.ts). */
  private readonly pageReader: Queryable;
  /** Where deep offset pages of unfiltered lists start (runList, OffsetAnchors): per process, validated per request. */
  private readonly anchors = new OffsetAnchors();
  /** A date range page's walk (DATE_WALK); a field so that a test's small project can reach the sorted range. */
  private readonly dateWalk = DATE_WALK;
  private readonly createdRangeCap = CREATED_RANGE_CAP;

  constructor(private readonly ds: DataSource) {
    this.reader = poolReader(ds);
    this.pageReader = poolReader(ds, { isoTimestamps: true });
  }

  /**
   * One statement for the page (id arrays computed on the page only) and COUNT in parallel. An `assignee_id` or
   * `label_id` filter (one id or several) drives both from that link table's list index (see LINK_DRIVERS).
   */
  list(workspaceId: string, projectId: string, q: ListQuery, arrays: ListArrays = ALL_ARRAYS) {
    const src = this.listSource(workspaceId, projectId, q, arrays);
    const named = q.search ? undefined : q.filters.find((f) => f.def.name === 'sequence_id');
    if (named) return this.sequenceList(q, src, named);
    const driver = q.search ? undefined : q.filters.find((f) => LINK_DRIVERS[f.def.name] && f.op !== 'isnull');
    if (driver) return this.linkDrivenList(workspaceId, projectId, q, src, driver);
    const gap = q.search ? undefined : q.filters.find((f) => GAP_DRIVERS[f.def.name] && f.op === 'isnull' && f.value);
    if (gap) return this.gapDrivenList(workspaceId, projectId, q, src, gap);
    const moduled = q.search ? undefined : q.filters.find((f) => f.def.name === 'module_id');
    if (moduled) return this.moduleList(workspaceId, projectId, q, src, moduled);
    const dated = q.search ? undefined : DATE_RANGED.find((col) => q.filters.some((f) => f.def.name === col));
    if (dated) return this.dateRangeList(q, src, dated);
    const created = !q.search && q.filters.some((f) => f.def.name === 'created_at');
    const rest = q.filters.filter((f) => f.def.name !== 'created_at');
    // Filtered by state, state group and priority only: the total is a sum of counter rows.
    src.filteredCount = created
      ? createdRangeCount(q, rest, [workspaceId, projectId], this.createdRangeCap)
      : statePriorityCount(q, [workspaceId, projectId], '= $2::uuid');
    return runList<WorkItemRow>(this.pageReader, WORK_ITEM_LIST, q, src);
  }

  /** The list's source when no link filter drives it: counters and remembered offsets where they apply. */
  private listSource(workspaceId: string, projectId: string, q: ListQuery, arrays: ListArrays): ListSource {
    const perRow = pageArrays(arrays);
    // Filtered in created_at order only by one state or one state group (FilterDef.opaque: one range of its index,
    // whatever the value): the project and the values bound where the planner does not look, so PostgreSQL keeps one
    // plan instead of planning every request (a big project's common state looked cheaper planned for itself: 0.2-0.3
    // ms per request at 100,000 items, as much as running the page). Several states, or another ordering, keep their
    // values visible: with a workspace of many projects and states the generic plan guesses one matching row and
    // reads and sorts every match instead of walking the ordering (90,804 rows, 148 ms for two common states).
    // In id order the primary key (workspace_id, id) walks the whole workspace in that order as readily as
    // `ix_work_items_id` walks the project, and a primary key cannot be partial (what keeps the workspace list's
    // indexes out: WORKSPACE_INDEXES_OPT_IN). Planned for the project's value each time, PostgreSQL picks the walk only
    // for a project that holds much of its workspace; a generic plan made for such a project, then run for a small
    // one, passed every item of the workspace (2.4 s for an empty project beside a million items). For the project
    // holding most of it, that walk passed the other projects' newer items (100 ms at a million): the project now
    // leads the ordering (liveItemsProjectLeading), which the primary key cannot give.
    const byId = q.orderKey === 'id';
    const stable =
      !q.search &&
      !byId &&
      (!q.filters.length || (q.orderKey === 'created_at' && q.filters.every((f) => f.def.opaque && f.op === 'eq')));
    return {
      select: COLS,
      from: 'work_items w',
      where: byId ? liveItemsProjectLeading() : stable ? liveItemsAnyProject() : liveItems(),
      stablePlan: stable,
      planPerRequest: byId,
      leadingOrder: byId ? 'w.project_id' : undefined,
      params: new SqlParams([workspaceId, projectId]),
      pageSelect: perRow.length ? perRow.join(', ') : undefined,
      pageOnce: pageExpanded(arrays.expanded ?? []),
      // Deep offsets skip the ordering index's entries, then read only the page's rows, each by its primary key.
      keyWalk: { from: 'work_items w', where: byId ? liveItemsProjectLeading() : liveItems(), lookup: ITEM_BY_KEY },
      // Unfiltered lists read the trigger-maintained counter instead of counting the project's rows.
      unfilteredCount: { sql: PROJECT_COUNT.sql, params: [workspaceId, projectId] },
      searchIndex: SEARCH_INDEX,
      // Unfiltered offset pages in created_at, sequence_id or id order start from remembered positions while the
      // project's live set is unchanged (migration WorkItemLiveSetChanges).
      offsetAnchors: {
        cache: this.anchors,
        scope: `${workspaceId}:${projectId}`,
        generation: `SELECT coalesce(sum(changes), 0) AS g FROM project_work_item_counts WHERE project_id = $2 AND workspace_id = $1`,
      },
    };
  }

  /**
   * A module filter (`module_id`, `__in`, `__isnull`), counted off the module links (moduleCandidates,
   * notInModuleCount). Items in a module (given or any) are paged as a search is (ListSource.candidateFilter): the
   * ordering's first SEARCH_WALK rows past the offset, each probing the module links; when those do not hold the page,
   * the module links' items, sorted. Never analyzed, the walk alone passed every item of the project when few (or
   * none) are in a module (1.2-2 s at a million items). Items in no module keep the walk: the common case.
   */
  private moduleList(workspaceId: string, projectId: string, q: ListQuery, src: ListSource, filter: ListFilter) {
    const rest = q.filters.filter((f) => f !== filter);
    if (filter.op === 'isnull' && filter.value) {
      src.filteredCount = notInModuleCount(q, rest, [workspaceId, projectId]);
      return runList<WorkItemRow>(this.pageReader, WORK_ITEM_LIST, q, src);
    }
    const only =
      filter.op === 'isnull' ? undefined : `${src.params.add(([] as string[]).concat(filter.value as string))}::uuid[]`;
    const cond = filter.def.sql!(only ? 'in' : 'isnull', only ?? null, false);
    const candidates = moduleCandidates(only);
    src.filteredCount = candidateCount(q, rest, candidates, new SqlParams([...src.params.values]));
    return this.candidateList(q, rest, src, cond, candidates);
  }

  /**
   * A `column` range (`__gte`, `__lte`; DATE_RANGED), counted off the date's index (datedCandidates: the fence checks
   * the project and the range; only `archived_at` and the other filters are checked outside, so the count can be
   * index-only). Never analyzed, the count read every item of the project (0.3-0.6 s at a million). The page is read
   * as a search is (ListSource.candidateFilter): DATE_WALK rows of the ordering, else the range's items off the
   * date's index, sorted; a range matching few items or none used to walk the whole project.
   */
  private dateRangeList(q: ListQuery, src: ListSource, column: string) {
    const range = q.filters.filter((f) => f.def.name === column);
    return this.pickedList(q, src, range, datedCandidates, this.dateWalk, ['w.archived_at IS NULL']);
  }

  /**
   * A `sequence_id` (unique in the project): its one item read by primary key in a fenced subquery, and the other
   * filters checked on it. As a filter of the walk, a planner without statistics chose an index led by the project
   * (partial on live items, guessed nearly empty) over the primary key and read the project's range of it (53 ms,
   * 10,000 buffers at a million items).
   */
  private sequenceList(q: ListQuery, src: ListSource, filter: ListFilter) {
    return this.pickedList(q, src, [filter], byKeyCandidates, 0);
  }

  /**
   * The list with the filters `picked` read as a candidate filter: their rows off `candidatesOf` (their conditions,
   * fenced), the ordering walked `budget` rows first; counted off the candidates, checked against `countScope`, unless
   * the source already counts them (the workspace list's counters).
   */
  private pickedList(
    q: ListQuery,
    src: ListSource,
    picked: ListFilter[],
    candidatesOf: (conds: string[]) => string,
    budget: number,
    countScope?: string[],
    spec: ListSpec = WORK_ITEM_LIST,
  ) {
    const rest = q.filters.filter((f) => !picked.includes(f));
    const conds: string[] = [];
    applyFilters(spec, { ...q, filters: picked, search: null }, conds, src.params);
    const candidates = candidatesOf(conds);
    const cp = new SqlParams([...src.params.values]);
    src.filteredCount ??= candidateCount(q, rest, candidates, cp, countScope, spec);
    return this.candidateList(q, rest, src, conds.join(' AND '), candidates, budget, spec);
  }

  /**
   * The list with the other filters `rest`, and `cond` read as a candidate filter (ListSource.candidateFilter: the
   * walk's SEARCH_WALK rows, else `candidates`), counted by the source's `filteredCount`.
   */
  private candidateList(
    q: ListQuery,
    rest: ListFilter[],
    src: ListSource,
    cond: string,
    candidates: string,
    budget: number | string = SEARCH_WALK,
    spec: ListSpec = WORK_ITEM_LIST,
  ) {
    return runList<WorkItemRow>(
      this.pageReader,
      spec,
      { ...q, filters: rest },
      {
        ...src,
        // The filter is out of the request's filters: neither the project's counter nor its offset anchors apply.
        unfilteredCount: undefined,
        offsetAnchors: undefined,
        candidateFilter: { cond, candidates, budget, alias: 'w' },
      },
    );
  }

  /**
   * The list filtered by assignees or labels (`driver`, one id or several), read from that link table: in created_at
   * order one range of the link's list index per id, each link row's item probed by primary key for the other
   * filters (the page's keys walked once, then its items read by primary key); in other orders the ordering's own
   * work item index, each item probing the link's primary key.
   */
  private linkDrivenList(workspaceId: string, projectId: string, q: ListQuery, src: ListSource, driver: ListFilter) {
    const link = LINK_DRIVERS[driver.def.name];
    const keys = distinctValues(driver);
    const rest = q.filters.filter((f) => f !== driver);
    const copied: LinkCopied = {
      stateGroup: rest.find((f) => f.def.name === 'state_group'),
      priority: rest.find((f) => f.def.name === 'priority'),
    };
    const itemFilters = rest.filter((f) => f !== copied.stateGroup && f !== copied.priority);
    src.filteredCount = linkDrivenCount(link, keys, copied, itemFilters, q, [workspaceId, projectId]);
    if (q.orderKey !== 'created_at') return this.linkCandidateList(q, src, driver);
    const p = new SqlParams([workspaceId, projectId]);
    const { ranges, conds: walkConds } = linkWalk(link, keys, copied, p);
    // The state group and priority are the link row's rank conditions, exact copies of the item's: asked again on
    // the item, the state group only joins states, which made PostgreSQL re-plan the statement on every execution (a
    // generic plan would hash-join every item of the group): 0.8 ms of planning per request; the priority, probed
    // per link, read every link of the key where the two seldom meet. Other filters ask the link row's item.
    return this.sideDrivenList(LINK_DRIVEN_LIST, q, src, { from: `${link.table} x`, where: walkConds, ranges }, p, {
      item: 'x.work_item_id',
      filters: itemFilters,
    });
  }

  /**
   * A list filtered by assignees or labels in an order their link rows do not hold (updated_at, priority, state group,
   * sequence, sort order): read as a search is (ListSource.candidateFilter), the ordering's own index walked past the
   * offset for as many rows as the counters say it should need (linkWalkBudget), each row probing the link table, and
   * when those do not hold the page (an id few items carry), the ids' linked items (linkCandidates), sorted. The walk
   * alone passed every item of the project (or workspace) for an id of few items, analyzed or not. The total stays the
   * source's where it has one (linkDrivenCount, the workspace's counters), else the linked items counted.
   */
  private linkCandidateList(q: ListQuery, src: ListSource, driver: ListFilter, workspace = false) {
    const spec = workspace ? WORKSPACE_WORK_ITEM_LIST : WORK_ITEM_LIST;
    const projects = workspace ? '= ANY($2::uuid[])' : '= $2';
    const link = LINK_DRIVERS[driver.def.name];
    // One bound array of the ids for the walk's condition, the candidates, the budget and the total alike.
    const keys = `${src.params.add(distinctValues(driver))}::uuid[]`;
    const candidates = linkCandidates(link, keys, projects);
    const rest = q.filters.filter((f) => f !== driver);
    const scope = workspace ? workspaceLiveItems() : liveItems();
    src.filteredCount ??= candidateCount(q, rest, candidates, new SqlParams([...src.params.values]), scope, spec);
    const budget = linkWalkBudget(link, keys, projects, q.offset + q.perPage + 1);
    return this.candidateList(q, rest, src, driver.def.sql!('in', keys, null), candidates, budget, spec);
  }

  /**
   * A created_at-ordered page driven by a side table's rows (`rows`: a link or gap table, its conditions, its ranges),
   * each row's item probed by primary key for the `probe` filters, then the page's items read by key. The project's
   * live-set counter and remembered offsets say nothing about those rows, so neither is used.
   */
  private sideDrivenList(
    spec: ListSpec,
    q: ListQuery,
    src: ListSource,
    rows: { from: string; where: string[]; ranges?: Ranges },
    p: SqlParams,
    probe: { item: string; filters: ListFilter[]; spec?: ListSpec },
    lookup: typeof ITEM_BY_KEY = ITEM_BY_KEY,
  ) {
    const where = [...rows.where];
    const itemConds: string[] = [];
    applyFilters(probe.spec ?? WORK_ITEM_LIST, { ...q, filters: probe.filters }, itemConds, p);
    if (itemConds.length) where.push(`EXISTS (${itemProbe(probe.item, itemConds)})`);
    const keyWalk = { from: rows.from, where, always: true, lookup, ranges: rows.ranges };
    return runList<WorkItemRow>(
      this.pageReader,
      spec,
      { ...q, filters: [] },
      {
        ...src,
        unfilteredCount: undefined,
        offsetAnchors: undefined,
        leadingOrder: undefined,
        keyWalk,
        from: rows.from,
        where,
        params: p,
      },
    );
  }

  /**
   * Items without assignees or without labels (`gap`: `assignee_id__isnull=true` / `label_id__isnull=true`), read off
   * that kind's gap table (GAP_DRIVERS): in created_at order its list index's range, each gap row's item probed by
   * primary key for the other filters (the page's keys walked once, then its items read by primary key); in other
   * orders the ordering walked SEARCH_WALK rows, else the gap rows' items, sorted (ListSource.candidateFilter). Never
   * analyzed, the walk of the project's items probing the link table passed every item when all have such a link.
   */
  private gapDrivenList(workspaceId: string, projectId: string, q: ListQuery, src: ListSource, filter: ListFilter) {
    const gap = GAP_DRIVERS[filter.def.name];
    const rest = q.filters.filter((f) => f !== filter);
    src.filteredCount = gapCount(gap, rest, q, [workspaceId, projectId]);
    if (q.orderKey !== 'created_at') {
      const cond = filter.def.sql!('isnull', null, true);
      return this.candidateList(q, rest, src, cond, gapCandidates(gap));
    }
    const p = new SqlParams([workspaceId, projectId]);
    return this.sideDrivenList(GAP_DRIVEN_LIST, q, src, gapRows(gap), p, { item: 'g.work_item_id', filters: rest });
  }

  /**
   * The live, unarchived projects of the workspace whose work items the viewer can read (WORK_ITEM_READER or a
   * workspace owner/admin), limited to `only` when given: the scope of the workspace-wide list.
   */
  async readableProjects(
    workspaceId: string,
    viewer: Viewer,
    only: string[] | null,
  ): Promise<Array<{ id: string; identifier: string; live_projects: number }>> {
    // live_projects: how many live projects the workspace has, readable or not (the list is a part of it when fewer).
    return this.reader.query(
      `SELECT p.id, p.identifier,
              (SELECT count(*)::int FROM projects a
                WHERE a.workspace_id = $1 AND a.deleted_at IS NULL AND a.archived_at IS NULL) AS live_projects
         FROM projects p
        WHERE p.workspace_id = $1 AND p.deleted_at IS NULL AND p.archived_at IS NULL
          AND ($4::uuid[] IS NULL OR p.id = ANY($4::uuid[])) AND ${READABLE_PROJECT('$1', 'p.id', '$2', '$3')}`,
      [workspaceId, viewer.userId, viewer.allProjects, only],
    );
  }

  /**
   * A page of the workspace-wide list over `projectIds` (readableProjects): one statement walking the ordering's
   * workspace index, and the total from the per-project counters where they answer it (no filter, or state,
   * state group and priority only), else COUNT over the same conditions.
   */
  listWorkspace(
    workspaceId: string,
    projectIds: string[],
    q: ListQuery,
    arrays: ListArrays = ALL_ARRAYS,
    partial = false,
  ) {
    const perRow = pageArrays(arrays);
    const leading = [workspaceId, projectIds];
    const where = workspaceLiveItems();
    const src: ListSource = {
      select: COLS,
      from: 'work_items w',
      where,
      params: new SqlParams(leading),
      // Offset and search pages pick their keys first, then read the page's rows by primary key.
      keyWalk: { from: 'work_items w', where, lookup: { ...ITEM_BY_KEY, where } },
      pageSelect: perRow.length ? perRow.join(', ') : undefined,
      pageOnce: pageExpanded(arrays.expanded ?? []),
      unfilteredCount: {
        sql: `SELECT coalesce(sum(n), 0)::int AS c FROM project_work_item_counts WHERE workspace_id = $1 AND project_id = ANY($2::uuid[])`,
        params: leading,
      },
      filteredCount:
        statePriorityCount(q, leading, '= ANY($2::uuid[])') ??
        linkCount(q, leading, '= ANY($2::uuid[])') ??
        workspaceGapCount(q, leading),
      searchIndex: SEARCH_INDEX,
    };
    const driver = workspaceLinkDriver(q);
    const linked = driver ? undefined : workspaceLinkFilter(q);
    if (linked) return this.linkCandidateList(q, src, linked, true);
    const priority = driver ? undefined : walkedPriority(q);
    if (!driver && rangedByProject(q, projectIds, partial)) src.keyWalk = projectRanges(q, projectIds, where);
    else if (priority) return this.workspacePriorityList(q, src, priority);
    if (!driver) return runList<WorkItemRow>(this.pageReader, WORKSPACE_WORK_ITEM_LIST, q, src);
    return this.workspaceLinkDrivenList(workspaceId, projectIds, q, src, driver);
  }

  /**
   * The workspace list filtered by priority, in created_at order, over more (project, rank) ranges than projectRanges
   * reads (BRANCHES_MAX): SEARCH_WALK rows of the workspace's ordering walked past the offset, else the readable
   * projects' items of that priority (`ix_work_items_priority_created`), sorted. A common priority's page is found
   * within the walk; a rare one's items are few. One range over all the projects' matches, sorted, read every item of
   * the priority: 34,000 rows, 42 ms, for a page of 50 over 2,003 projects (docs/work-items-plans.md, "Many small
   * projects beside a big one"). A budget sized by the counters, as links have (linkWalkBudget), would read the
   * counters of every project first: more than the walk.
   */
  private workspacePriorityList(q: ListQuery, src: ListSource, priority: ListFilter) {
    const scope = workspaceLiveItems();
    return this.pickedList(q, src, [priority], readableCandidates, SEARCH_WALK, scope, WORKSPACE_WORK_ITEM_LIST);
  }

  /**
   * The workspace list filtered by assignees or labels (workspaceLinkDriver), in created_at order: one range of the
   * link's list index per readable project, and per id when several are asked (KeyWalk.ranges, each read only as far
   * as the page reaches, merged), each link row's item probed by primary key for the other filters, then the page's
   * items read by key. Walking the workspace's items probing the link table instead passed every newer item of the
   * workspace when the ids are rare among them (234 ms at a million items). A state group or priority asked beside
   * them is the link rows' copy of it (one id and several priorities or groups: a range per (project, rank) of the
   * link's priority or group index, rankSplit); probed on each item, a label's links that none meet were all read
   * (0.5 s at a million items). Its total: the link counters where they answer (listWorkspace), else the distinct
   * items of the ids' live links whose item meets the other filters.
   */
  private workspaceLinkDrivenList(
    workspaceId: string,
    projectIds: string[],
    q: ListQuery,
    src: ListSource,
    driver: ListFilter,
  ) {
    const link = LINK_DRIVERS[driver.def.name];
    const keys = distinctValues(driver);
    const rest = q.filters.filter((f) => f !== driver);
    const copied: LinkCopied = {
      stateGroup: rest.find((f) => f.def.name === 'state_group'),
      priority: rest.find((f) => f.def.name === 'priority'),
    };
    const itemFilters = rest.filter((f) => f !== copied.stateGroup && f !== copied.priority);
    const p = new SqlParams([workspaceId, projectIds]);
    const where = [...WORKSPACE_LIVE_LINKS];
    let ranges: Ranges = { values: '$2::uuid[]', cond: (v) => `x.project_id = ${v}` };
    // The state group and priority are the link row's rank conditions, exact copies of the item's (linkDrivenList).
    let asked = copied;
    if (keys.length === 1) {
      where.push(`x.${link.key} = ${p.add(keys[0])}::uuid`);
      const split = rankSplit(copied, p, where);
      ranges = { ...ranges, by: split.by };
      asked = split.asked;
    } else {
      // One range per (project, id), merged; an item under two of the ids is kept once (KeyWalk ranges are distinct).
      const keyRef = `${p.add(keys)}::uuid[]`;
      where.push(`x.${link.key} = ANY(${keyRef})`);
      ranges = { ...ranges, by: { values: keyRef, cond: (v) => `x.${link.key} = ${v}` } };
      const cp = new SqlParams([workspaceId, projectIds]);
      const linked = workspaceLinked(link, keys, projectIds, copied, cp);
      const itemConds: string[] = [];
      applyFilters(WORKSPACE_WORK_ITEM_LIST, { ...q, filters: itemFilters, search: null }, itemConds, cp);
      src.filteredCount = workspaceLinksCount(linked, itemConds, cp);
    }
    where.push(...copiedConds(asked, p, 'x', LINK_ROW));
    const probe = { item: 'x.work_item_id', filters: itemFilters, spec: WORKSPACE_WORK_ITEM_LIST };
    return this.sideDrivenList(
      WORKSPACE_LINK_DRIVEN_LIST,
      q,
      src,
      { from: `${link.table} x`, where, ranges },
      p,
      probe,
      { ...ITEM_BY_KEY, where: workspaceLiveItems() },
    );
  }

  /** A work item of the project; archived ones only with `archived: 'any'` (unarchive). */
  async get(
    workspaceId: string,
    projectId: string,
    id: string,
    archived: Archived = 'live',
    db: Queryable = this.reader,
    lock = false,
  ): Promise<WorkItemDetailRow | null> {
    const rows = await db.query(ITEM_DETAIL(archived === 'live', lock), [workspaceId, projectId, id]);
    return rows[0] ?? null;
  }

  /** A live, unarchived work item of the project with the objects of `relations` (`?expand=`), in one statement. */
  async getExpanded(
    workspaceId: string,
    projectId: string,
    id: string,
    relations: readonly ExpandedRelation[],
  ): Promise<(WorkItemDetailRow & { expanded?: ExpandedObjects }) | null> {
    const rows = await this.reader.query(withExpanded(ITEM_DETAIL(true, false), relations), [
      workspaceId,
      projectId,
      id,
    ]);
    return rows[0] ?? null;
  }

  /** Live, unarchived work items of the project among `ids` (bulk writes' webhook events), in no set order. */
  async getMany(workspaceId: string, projectId: string, ids: string[], db: Queryable): Promise<WorkItemDetailRow[]> {
    if (!ids.length) return [];
    return db.query(
      `SELECT ${DETAIL_SCALARS}, ${idArrays('w')}, p.identifier AS project_identifier
         FROM work_items w JOIN projects p ON p.id = w.project_id
        WHERE w.workspace_id = $1 AND p.workspace_id = $1 AND w.project_id = $2 AND w.id = ANY($3::uuid[])
          AND w.deleted_at IS NULL AND w.archived_at IS NULL`,
      [workspaceId, projectId, ids],
    );
  }

  /**
   * By identifier (PROJ-12) within the workspace, live and not archived, in a project the user belongs to or
   * administers (workspace owner/admin), with the user's project role (`viewer_role`, null for a workspace
   * owner/admin who is not on the project): the service tells a role too low to read (403) from no access (404).
   */
  async getByIdentifier(
    workspaceId: string,
    projectIdentifier: string,
    sequenceId: number,
    viewer: Viewer,
    relations: readonly ExpandedRelation[] = [],
  ): Promise<(WorkItemDetailRow & { viewer_role: string | null; expanded?: ExpandedObjects }) | null> {
    const rows = await this.reader.query(
      withExpanded(
        `SELECT ${DETAIL_COLS}, p.identifier AS project_identifier, pm.role AS viewer_role
         FROM projects p JOIN work_items w ON w.workspace_id = p.workspace_id AND w.project_id = p.id
         LEFT JOIN project_members pm ON pm.workspace_id = p.workspace_id AND pm.project_id = p.id AND pm.member_id = $4
              AND pm.deleted_at IS NULL
        WHERE p.workspace_id = $1 AND p.identifier = $2 AND p.deleted_at IS NULL
          AND w.workspace_id = $1 AND w.sequence_id = $3 AND w.deleted_at IS NULL AND w.archived_at IS NULL
          AND ($5::boolean OR pm.id IS NOT NULL)`,
        relations,
      ),
      [workspaceId, projectIdentifier, sequenceId, viewer.userId, viewer.allProjects],
    );
    return rows[0] ?? null;
  }

  /**
   * Creates the work item in one statement, without an explicit transaction: it re-reads the state and
   * every label, estimate point and parent it links to FOR KEY SHARE (held until the statement commits),
   * checks the workflow's creation rule for the state, and inserts the item with its assignees and labels
   * only when all of that holds. It always returns one row saying what it found, with the written row
   * (the read shape of `get`) or null. All of it reads one snapshot, taken before any lock wait: a caller
   * that links labels, a point or a parent takes the state lock in an earlier statement of a transaction,
   * so a delete that commits while it waits is seen here (KEY SHARE does not see non-key updates).
   * It also answers whether a webhook chooses `workitem.created`; with `unlessHooked` it writes only when none
   * does (a create without a transaction writes no event: the service redoes a hooked one with its event).
   * Link tables it does not write are left out of the statement (their statement triggers do not fire).
   */
  async insertChecked(
    workspaceId: string,
    projectId: string,
    projectIdentifier: string,
    sequenceId: number,
    v: WorkItemWrite & { name: string; state_id: string },
    assigneeIds: string[],
    labelIds: string[],
    userId: string,
    db: Queryable = this.reader,
    unlessHooked = false,
  ): Promise<CheckedInsert> {
    const sql = CHECKED_INSERTS[assigneeIds.length > 0 ? 1 : 0][labelIds.length > 0 ? 1 : 0];
    const rows = await db.query(sql, [
      workspaceId,
      projectId,
      v.name,
      v.description_html ?? '',
      v.description_stripped ?? '',
      v.priority ?? 'none',
      v.state_id,
      v.type_id ?? null,
      v.parent_id ?? null,
      v.estimate_point_id ?? null,
      v.start_date ?? null,
      v.target_date ?? null,
      v.external_id ?? null,
      v.external_source ?? null,
      v.custom_values ?? {},
      userId,
      assigneeIds,
      labelIds,
      sequenceId,
      projectIdentifier,
      unlessHooked,
    ]);
    const {
      state_live,
      type_live,
      live_label_ids,
      estimate_point_live,
      parent_live,
      creation_allowed,
      hooked,
      ...row
    } = rows[0];
    return {
      hooked,
      state_live,
      type_live,
      live_label_ids,
      estimate_point_live,
      parent_live,
      creation_allowed,
      row: row.id ? (row as WorkItemDetailRow) : null,
    };
  }

  /**
   * The PATCHes of a batch (one row for a single PATCH), in one statement (updateManySql): each row's columns (only
   * those it sent change: `sent` names them), its assignee and label sets replaced where it sent them, stamped
   * updated_by_id. The rows' values travel as one JSON array. Answers the rows as written (the read shape of `get`,
   * with the version) and whether a webhook chooses `workitem.updated`; with `unlessHooked` nothing is written when
   * one does (no rows), so a caller without a transaction can redo the write with its event.
   */
  async updateMany(
    workspaceId: string,
    projectId: string,
    rows: Array<{ id: string; write: WorkItemWrite; assigneeIds?: string[]; labelIds?: string[] }>,
    userId: string,
    db: Queryable,
    unlessHooked = false,
  ): Promise<{ hooked: boolean; rows: WorkItemDetailRow[] }> {
    if (!rows.length) return { hooked: false, rows: [] };
    const payload = rows.map(({ id, write, assigneeIds, labelIds }) => {
      const sent = sentColumns(WORK_ITEM_COLUMNS, write);
      return { ...write, id, sent, assignee_ids: assigneeIds ?? null, label_ids: labelIds ?? null };
    });
    const sql = updateManySql({
      sent: new Set(payload.flatMap((r) => r.sent)),
      assignees: payload.some((r) => r.assignee_ids),
      labels: payload.some((r) => r.label_ids),
    });
    const out: Array<WorkItemDetailRow & { hooked: boolean }> = await db.query(sql, [
      workspaceId,
      projectId,
      JSON.stringify(payload),
      userId,
      unlessHooked,
    ]);
    const hooked = out[0]?.hooked ?? false;
    return { hooked, rows: out.filter((r) => r.id).map(({ hooked: _h, ...r }) => r) };
  }

  /** The live, unarchived work items of the project among `ids`, locked FOR UPDATE, by id (bulk-update). */
  async lockMany(
    workspaceId: string,
    projectId: string,
    ids: string[],
    db: Queryable,
  ): Promise<Map<string, WorkItemDetailRow>> {
    const rows: WorkItemDetailRow[] = await db.query(
      `SELECT ${DETAIL_SCALARS}, ${idArrays('w')}, p.identifier AS project_identifier
         FROM work_items w JOIN projects p ON p.workspace_id = $1 AND p.id = w.project_id
        WHERE w.workspace_id = $1 AND w.project_id = $2 AND w.id = ANY($3::uuid[]) AND w.deleted_at IS NULL
          AND w.archived_at IS NULL
        ORDER BY w.id FOR UPDATE OF w`,
      [workspaceId, projectId, ids],
    );
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** Puts each work item in its cycle (null: in none), one statement for the batch; items already there untouched. */
  async placeInCycles(
    workspaceId: string,
    projectId: string,
    itemIds: string[],
    cycleIds: Array<string | null>,
    db: Queryable,
  ): Promise<void> {
    await db.query(
      `UPDATE work_items w SET cycle_id = u.cycle_id, updated_at = now()
         FROM unnest($3::uuid[], $4::uuid[]) AS u(id, cycle_id)
        WHERE w.workspace_id = $1 AND w.project_id = $2 AND w.id = u.id AND w.cycle_id IS DISTINCT FROM u.cycle_id`,
      [workspaceId, projectId, itemIds, cycleIds],
    );
  }

  /**
   * Makes each work item's module set exactly its pairs (`items[i]` in `modules[i]`; an item of `itemIds` without a
   * pair is in no module): one delete of the links not wanted, one insert of those missing, for the whole batch.
   */
  async replaceModuleSets(
    workspaceId: string,
    projectId: string,
    itemIds: string[],
    pairs: { items: string[]; modules: string[] },
    db: Queryable,
  ): Promise<void> {
    await db.query(
      `WITH p AS (SELECT * FROM unnest($4::uuid[], $5::uuid[]) AS p(item, module)),
       d AS (
         DELETE FROM module_work_items l
          WHERE l.workspace_id = $1 AND l.work_item_id = ANY($3::uuid[])
            AND NOT EXISTS (SELECT 1 FROM p WHERE p.item = l.work_item_id AND p.module = l.module_id)
       )
       INSERT INTO module_work_items (workspace_id, project_id, module_id, work_item_id)
       SELECT $1, $2, p.module, p.item FROM p
       ON CONFLICT DO NOTHING`,
      [workspaceId, projectId, itemIds, pairs.items, pairs.modules],
    );
  }

  /** Of `ids`, the items that are now their own ancestor (a batch that set parents in a loop). */
  async ownAncestors(workspaceId: string, ids: string[], db: Queryable): Promise<string[]> {
    if (!ids.length) return [];
    const rows: Array<{ start: string }> = await db.query(
      `WITH RECURSIVE up AS (
         SELECT w.id AS start, w.parent_id AS id, 1 AS depth FROM work_items w
          WHERE w.workspace_id = $1 AND w.id = ANY($2::uuid[]) AND w.parent_id IS NOT NULL
         UNION ALL
         SELECT up.start, w.parent_id, up.depth + 1 FROM up JOIN work_items w ON w.workspace_id = $1 AND w.id = up.id
          WHERE w.parent_id IS NOT NULL AND up.id <> up.start AND up.depth < 1000
       ) SELECT DISTINCT start FROM up WHERE id = start`,
      [workspaceId, ids],
    );
    return rows.map((r) => r.start);
  }

  async setArchived(workspaceId: string, id: string, archived: boolean, userId: string, db: Queryable): Promise<void> {
    await db.query(
      `UPDATE work_items SET archived_at = ${archived ? 'now()' : 'NULL'}, updated_at = now(), updated_by_id = $3
        WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id, userId],
    );
  }

  /**
   * Soft-deletes the item and, in the same (caller's) transaction, lifts its live children (any project
   * of the workspace, archived ones included) to the top level, so no item points at a deleted parent.
   */
  async softDelete(workspaceId: string, ids: string[], userId: string, db: Queryable): Promise<void> {
    await db.query(
      `UPDATE work_items SET parent_id = NULL, updated_at = now(), updated_by_id = $3
        WHERE workspace_id = $1 AND parent_id = ANY($2::uuid[]) AND deleted_at IS NULL AND NOT (id = ANY($2::uuid[]))`,
      [workspaceId, ids, userId],
    );
    await db.query(
      `UPDATE work_items SET deleted_at = now(), updated_by_id = $3 WHERE workspace_id = $1 AND id = ANY($2::uuid[])`,
      [workspaceId, ids, userId],
    );
  }

  /** The live, unarchived items of the project among `ids`, locked FOR UPDATE (a bulk delete's targets). */
  async lockLiveItems(
    workspaceId: string,
    projectId: string,
    ids: string[],
    db: Queryable,
  ): Promise<Map<string, { created_by_id: string | null }>> {
    const rows: Array<{ id: string; created_by_id: string | null }> = await db.query(
      `SELECT id, created_by_id FROM work_items
        WHERE workspace_id = $1 AND project_id = $2 AND id = ANY($3::uuid[]) AND deleted_at IS NULL AND archived_at IS NULL
        FOR UPDATE`,
      [workspaceId, projectId, ids],
    );
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** The live work items of the project holding any of these (source, id) pairs, by JSON `[source, id]`. */
  async findByExternalMany(
    scope: { workspaceId: string; projectId: string },
    pairs: Array<[string, string]>,
  ): Promise<Map<string, string>> {
    if (!pairs.length) return new Map();
    const rows: Array<{ external_source: string; external_id: string; id: string }> = await this.reader.query(
      `SELECT w.external_source, w.external_id, w.id FROM work_items w
         JOIN unnest($3::text[], $4::text[]) AS x(src, ext) ON w.external_source = x.src AND w.external_id = x.ext
        WHERE w.workspace_id = $1 AND w.project_id = $2 AND w.deleted_at IS NULL`,
      [scope.workspaceId, scope.projectId, pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    );
    return new Map(rows.map((r) => [JSON.stringify([r.external_source, r.external_id]), r.id]));
  }

  /** The live work item already holding this external pair in the project. */
  async findByExternal(
    scope: { workspaceId: string; projectId: string },
    source: string,
    externalId: string,
    exceptId: string | null,
    db: Queryable,
  ): Promise<string | null> {
    const rows = await db.query(
      `SELECT id FROM work_items WHERE workspace_id = $1 AND project_id = $2 AND external_source = $3 AND external_id = $4
          AND deleted_at IS NULL AND ($5::uuid IS NULL OR id <> $5) LIMIT 1`,
      [scope.workspaceId, scope.projectId, source, externalId, exceptId],
    );
    return rows[0]?.id ?? null;
  }

  /**
   * What a create needs before it writes, in one statement: the default state and type, and the project's
   * next sequence number (wt_next_work_item_sequence(workspace, project): the project row, found by its primary
   * key, is locked for this statement only,
   * committed asynchronously, so concurrent creates do not queue behind each other's commits). Numbers are
   * unique and never reused; a create that fails afterwards leaves a gap.
   */
  async createPrelude(
    workspaceId: string,
    projectId: string,
    takeSequence = true,
  ): Promise<{ default_state_id: string | null; default_type_id: string | null; sequence_id: number }> {
    const rows = await this.reader.query(CREATE_PRELUDES[takeSequence ? 1 : 0], [workspaceId, projectId]);
    return rows[0];
  }

  /** Takes `n` consecutive sequence numbers in one statement, committed at once (a failed row leaves a gap). */
  async takeSequences(workspaceId: string, projectId: string, n: number): Promise<number[]> {
    const rows: Array<{ last: number }> = await this.reader.query(
      `WITH u AS (UPDATE projects SET last_sequence_id = last_sequence_id + $3 WHERE workspace_id = $1 AND id = $2
                  RETURNING last_sequence_id)
       SELECT last_sequence_id AS last FROM u`,
      [workspaceId, projectId, n],
    );
    const last = rows[0].last;
    return Array.from({ length: n }, (_, i) => last - n + 1 + i);
  }

  /**
   * insertChecked for a batch (bulk-create), in one statement: the same FOR KEY SHARE re-reads (over the union of
   * what the rows link), the same per-row checks and creation rule, then one insert of the rows that pass (none
   * when `allOrNone` and a row fails) with their assignees and labels. Returns one check row per input row, in
   * order, with the written id or null. Run in a transaction whose earlier statement locked the states.
   */
  async insertCheckedMany(
    workspaceId: string,
    projectId: string,
    rows: Array<BatchRow>,
    userId: string,
    allOrNone: boolean,
    db: Queryable,
  ): Promise<Array<Omit<CheckedInsert, 'row'> & { ord: number; id: string | null }>> {
    const out = await db.query(CHECKED_INSERT_MANY, [workspaceId, projectId, JSON.stringify(rows), userId, allOrNone]);
    return out;
  }

  // ---- in-transaction re-checks: still live, locked FOR KEY SHARE until commit (see LOCK_STATE) ----

  /** Labels (project or workspace-level) among `ids` still live. */
  async lockLabels(workspaceId: string, projectId: string, ids: string[], db: Queryable): Promise<Set<string>> {
    const rows = await db.query(LOCK_LABELS('$1', '$2', '$3::uuid[]'), [workspaceId, projectId, ids]);
    return new Set(rows.map((r: { id: string }) => r.id));
  }

  /** Is the point still a live point of the project's active, live estimate? Locks the point and its estimate. */
  async lockEstimatePoint(workspaceId: string, projectId: string, pointId: string, db: Queryable): Promise<boolean> {
    const rows = await db.query(LOCK_ESTIMATE_POINT('$1', '$2', '$3::uuid'), [workspaceId, projectId, pointId]);
    return rows.length > 0;
  }

  /** Is the work item (a parent, any project of the workspace, archived ones included) still live? */
  async lockWorkItem(workspaceId: string, id: string, db: Queryable): Promise<boolean> {
    const rows = await db.query(LOCK_WORK_ITEM('$1', '$2::uuid'), [workspaceId, id]);
    return rows.length > 0;
  }

  // ---- resolution lookups (name-or-id rule) ----

  async stateIds(workspaceId: string, projectId: string, ids: string[], db: Queryable): Promise<Set<string>> {
    const rows = await db.query(
      `SELECT id FROM states WHERE workspace_id = $1 AND project_id = $2 AND id = ANY($3::uuid[]) AND deleted_at IS NULL
          FOR KEY SHARE`,
      [workspaceId, projectId, ids],
    );
    return new Set(rows.map((r: { id: string }) => r.id));
  }

  async stateNames(workspaceId: string, projectId: string, keys: string[], db: Queryable) {
    return db.query(
      `SELECT id, lower(name) AS key FROM states
        WHERE workspace_id = $1 AND project_id = $2 AND lower(name) = ANY($3::text[]) AND deleted_at IS NULL`,
      [workspaceId, projectId, keys],
    );
  }

  /** Labels of the project plus workspace-level labels. */
  async labelIds(workspaceId: string, projectId: string, ids: string[], db: Queryable): Promise<Set<string>> {
    const rows = await db.query(
      `SELECT id FROM labels WHERE workspace_id = $1 AND (project_id = $2 OR project_id IS NULL) AND id = ANY($3::uuid[]) AND deleted_at IS NULL`,
      [workspaceId, projectId, ids],
    );
    return new Set(rows.map((r: { id: string }) => r.id));
  }

  async labelNames(workspaceId: string, projectId: string, keys: string[], db: Queryable) {
    return db.query(
      `SELECT id, lower(name) AS key FROM labels
        WHERE workspace_id = $1 AND (project_id = $2 OR project_id IS NULL) AND lower(name) = ANY($3::text[]) AND deleted_at IS NULL`,
      [workspaceId, projectId, keys],
    );
  }

  /**
   * Assignable project members: active users, active members of the workspace, and either project
   * members with role contributor or admin, or workspace owners/admins (project admins everywhere).
   */
  private assignableSql(match: string): string {
    return `SELECT u.id, lower(u.email) AS key FROM users u
      JOIN workspace_members wm ON wm.member_id = u.id AND wm.workspace_id = $1 AND wm.deleted_at IS NULL AND wm.is_active
      LEFT JOIN project_members pm ON pm.workspace_id = $1 AND pm.member_id = u.id AND pm.project_id = $2 AND pm.deleted_at IS NULL
     WHERE u.deleted_at IS NULL AND u.is_active AND ${match}
       AND (wm.role IN ('owner', 'admin') OR pm.role IN ('admin', 'contributor'))`;
  }

  async assigneeIds(workspaceId: string, projectId: string, ids: string[], db: Queryable): Promise<Set<string>> {
    const rows = await db.query(this.assignableSql('u.id = ANY($3::uuid[])'), [workspaceId, projectId, ids]);
    return new Set(rows.map((r: { id: string }) => r.id));
  }

  async assigneeEmails(workspaceId: string, projectId: string, keys: string[], db: Queryable) {
    return db.query(this.assignableSql('lower(u.email) = ANY($3::text[])'), [workspaceId, projectId, keys]);
  }

  /** Live work items of the workspace among `ids` (a parent may sit in another project), in projects the viewer can read. */
  async workItemIds(workspaceId: string, ids: string[], viewer: Viewer, db: Queryable): Promise<Set<string>> {
    const rows = await db.query(
      `SELECT id FROM work_items w WHERE workspace_id = $1 AND id = ANY($2::uuid[]) AND deleted_at IS NULL AND ${LIVE_PROJECT_OF('w')}
          AND ${READABLE_PROJECT('$1', 'w.project_id', '$3', '$4')}`,
      [workspaceId, ids, viewer.userId, viewer.allProjects],
    );
    return new Set(rows.map((r: { id: string }) => r.id));
  }

  /** Work items by identifier parts (upper-case project identifier, sequence number), in projects the viewer can read; key = `PROJ-12`. */
  async workItemIdentifiers(
    workspaceId: string,
    refs: Array<{ identifier: string; sequence: number }>,
    viewer: Viewer,
    db: Queryable,
  ) {
    return db.query(
      `SELECT w.id, p.identifier || '-' || w.sequence_id AS key
         FROM unnest($2::text[], $3::int[]) AS k(identifier, seq)
         JOIN projects p ON p.workspace_id = $1 AND p.deleted_at IS NULL AND p.identifier = k.identifier
         JOIN work_items w ON w.workspace_id = $1 AND w.project_id = p.id AND w.sequence_id = k.seq AND w.deleted_at IS NULL
        WHERE ${READABLE_PROJECT('$1', 'p.id', '$4', '$5')}`,
      [workspaceId, refs.map((r) => r.identifier), refs.map((r) => r.sequence), viewer.userId, viewer.allProjects],
    );
  }

  /**
   * Is `candidateParent` the item itself or one of its descendants? (A parent may not close a loop.) The walk up
   * from the candidate stays in the workspace (a parent always does), each step by primary key.
   */
  async wouldCycle(workspaceId: string, itemId: string, candidateParent: string, db: Queryable): Promise<boolean> {
    const rows = await db.query(
      `WITH RECURSIVE up AS (
         SELECT id, parent_id, 1 AS depth FROM work_items WHERE workspace_id = $3 AND id = $2
         UNION ALL
         SELECT w.id, w.parent_id, up.depth + 1 FROM work_items w JOIN up ON w.workspace_id = $3 AND w.id = up.parent_id
          WHERE up.depth < 1000
       ) SELECT 1 FROM up WHERE id = $1 LIMIT 1`,
      [itemId, candidateParent, workspaceId],
    );
    return rows.length > 0;
  }

  /** Types on the project's roster (own or imported workspace types), live and active. */
  async typeIds(workspaceId: string, projectId: string, ids: string[], db: Queryable): Promise<Set<string>> {
    const rows = await db.query(
      `SELECT t.id FROM work_item_types t WHERE t.workspace_id = $1 AND t.id = ANY($3::uuid[]) AND t.deleted_at IS NULL AND t.is_active
          AND ${visibleInProject('$2::uuid')} FOR KEY SHARE OF t`,
      [workspaceId, projectId, ids],
    );
    return new Set(rows.map((r: { id: string }) => r.id));
  }

  /** Type names match among the roster's non-epic active types. */
  async typeNames(workspaceId: string, projectId: string, keys: string[], db: Queryable) {
    return db.query(
      `SELECT t.id, lower(t.name) AS key FROM work_item_types t
        WHERE t.workspace_id = $1 AND lower(t.name) = ANY($3::text[]) AND t.deleted_at IS NULL AND t.is_active AND NOT t.is_epic
          AND ${visibleInProject('$2::uuid')} FOR KEY SHARE OF t`,
      [workspaceId, projectId, keys],
    );
  }

  /** Does the project have any type on its roster? (work item types enabled for it) */
  async hasTypes(workspaceId: string, projectId: string, db: Queryable): Promise<boolean> {
    const rows = await db.query(
      `SELECT 1 FROM work_item_types t WHERE t.workspace_id = $1 AND t.deleted_at IS NULL AND ${visibleInProject('$2::uuid')} LIMIT 1`,
      [workspaceId, projectId],
    );
    return rows.length > 0;
  }

  // ---- expand loader: one statement for every relation asked of written items ----

  /**
   * The objects `?expand=` puts beside the ids of written items (create and update responses; reads carry them in
   * their own statement): one statement, a JSON array per relation asked for. Relations without ids are not asked.
   */
  async expandedObjects(
    workspaceId: string,
    ids: Partial<Record<ExpandedRelation, string[]>>,
  ): Promise<ExpandedObjects> {
    const p = new SqlParams([workspaceId]);
    const cols = (Object.keys(ids) as ExpandedRelation[])
      .filter((rel) => ids[rel]!.length)
      .map(
        (rel) =>
          `(SELECT coalesce(json_agg(x), '[]') FROM (${EXPANDED_SQL[rel](`= ANY(${p.add(ids[rel])}::uuid[])`)}) x) AS "${rel}"`,
      );
    if (!cols.length) return {};
    return (await this.reader.query(`SELECT ${cols.join(', ')}`, p.values))[0];
  }
}
