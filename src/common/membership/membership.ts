import { ProjectContext } from '../auth/request-context';
import { setActivityActor } from '../database/activity-actor';
import { FieldError, ProblemException } from '../errors/problem.exception';
import { Queryable } from '../pagination/sql-params';
import { WorkItemsChangeDto, WorkItemsMembershipDto } from './membership.dto';

/**
 * What cycles and modules truly share: each groups work items of its project, changed by one add/remove request
 * and let go when the group is deleted. How a group holds its work items differs and stays with each feature
 * behind this port: a cycle through `work_items.cycle_id` (at most one cycle per item, so adding moves it), a
 * module through `module_work_items` rows (any number); progress, transfer and member_ids are theirs alone.
 */
export interface GroupMembers {
  /** Of `ids`, those that are work items of the project (not deleted). */
  existing(workspaceId: string, projectId: string, ids: string[], db: Queryable): Promise<Set<string>>;
  /** Puts the work items in the group; returns those that were not in it. */
  add(workspaceId: string, projectId: string, groupId: string, ids: string[], db: Queryable): Promise<string[]>;
  /** Takes the work items out of the group; returns those that were in it. */
  remove(workspaceId: string, projectId: string, groupId: string, ids: string[], db: Queryable): Promise<string[]>;
  /** Deleting the group: its work items stay in the project, only the grouping goes. */
  detachAll(workspaceId: string, groupId: string, db: Queryable): Promise<void>;
}

/** The add/remove lists of a membership request: lower-cased, de-duplicated, disjoint, all of the project. */
export async function checkMembershipIds(
  dto: WorkItemsMembershipDto,
  existing: (ids: string[]) => Promise<Set<string>>,
): Promise<{ add: string[]; remove: string[] }> {
  if (dto.add === undefined && dto.remove === undefined) {
    throw ProblemException.validation('add', 'Send add and/or remove, each an array of work item ids.');
  }
  const add = [...new Set((dto.add ?? []).map((id) => id.toLowerCase()))];
  const remove = [...new Set((dto.remove ?? []).map((id) => id.toLowerCase()))];
  const both = add.filter((id) => remove.includes(id));
  if (both.length) throw ProblemException.validation('remove', `Ids in both add and remove: ${both.join(', ')}.`);
  const found = await existing([...add, ...remove]);
  const errors: FieldError[] = [];
  for (const [field, ids] of [
    ['add', add],
    ['remove', remove],
  ] as const) {
    const foreign = ids.filter((id) => !found.has(id));
    if (foreign.length) errors.push({ field, message: `Not work items of this project: ${foreign.join(', ')}.` });
  }
  if (errors.length) throw ProblemException.validationMany(errors);
  return { add, remove };
}

/**
 * Sees a membership change from outside (webhook events): called with the ids the request names before the change,
 * in its transaction; the function it returns runs after the change.
 */
export type MembershipObserver = (ids: string[]) => Promise<() => Promise<void>>;

/**
 * Applies a membership request to the (locked, live) group `groupId` inside the caller's transaction. The
 * history records the caller as the actor. Ids that are not (live) work items of the project make it 400.
 */
export async function changeMembership(
  tx: Queryable,
  ctx: ProjectContext,
  groupId: string,
  dto: WorkItemsMembershipDto,
  members: GroupMembers,
  observe?: MembershipObserver,
): Promise<WorkItemsChangeDto> {
  const ws = ctx.workspace.id;
  const project = ctx.project.id;
  const { add, remove } = await checkMembershipIds(dto, (ids) => members.existing(ws, project, ids, tx));
  await setActivityActor(tx, ctx.principal.userId);
  const observed = observe ? await observe([...add, ...remove]) : undefined;
  const added = new Set(await members.add(ws, project, groupId, add, tx));
  const removed = new Set(await members.remove(ws, project, groupId, remove, tx));
  if (observed) await observed();
  return { added: add.filter((x) => added.has(x)), removed: remove.filter((x) => removed.has(x)) };
}

/** Lets the work items of a group being deleted go, with the caller as the history's actor. */
export async function releaseMembers(
  tx: Queryable,
  ctx: ProjectContext,
  groupId: string,
  members: GroupMembers,
): Promise<void> {
  await setActivityActor(tx, ctx.principal.userId);
  await members.detachAll(ctx.workspace.id, groupId, tx);
}
