import { actorRef } from '../users/user-ref';
import { WorkItemActivityDto } from './work-item-activities.dto';
import { ActivityRow } from './work-item-activities.repository';

const SUB_RECORDS = new Set(['comment', 'link', 'relation', 'dependency']);
const MEMBERSHIPS: Record<string, string> = { assignees: 'assignee', labels: 'label', modules: 'module' };

/** The sentence of an entry: what a person reading the history sees. */
export function describeActivity(r: Pick<ActivityRow, 'verb' | 'field' | 'old_value' | 'new_value'>): string {
  if (!r.field) return `${r.verb} the work item`;
  if (r.field === 'archived_at') return `${r.verb} the work item`;
  if (SUB_RECORDS.has(r.field)) {
    const label = r.field === 'relation' || r.field === 'dependency' ? ` (${r.new_value ?? r.old_value})` : '';
    return `${r.verb === 'created' ? 'added' : r.verb === 'deleted' ? 'removed' : 'updated'} a ${r.field}${label}`;
  }
  const member = MEMBERSHIPS[r.field];
  if (member) return r.new_value !== null ? `added ${member} ${r.new_value}` : `removed ${member} ${r.old_value}`;
  if (r.new_value === null) return `cleared ${r.field}`;
  return `set ${r.field} to ${r.field === 'description' || r.field === 'custom_fields' ? 'a new value' : r.new_value}`;
}

export const ACTIVITY_EXPANDS = ['actor'] as const;

export function mapActivity(r: ActivityRow, expand: Set<string> = new Set()): WorkItemActivityDto {
  const dto: WorkItemActivityDto = {
    id: r.id,
    work_item_id: r.work_item_id,
    verb: r.verb,
    field: r.field,
    old_value: r.old_value,
    new_value: r.new_value,
    old_identifier_id: r.old_identifier_id,
    new_identifier_id: r.new_identifier_id,
    issue_comment_id: r.issue_comment_id,
    actor_id: r.actor_id,
    comment: describeActivity(r),
    epoch: Number(r.epoch),
    external_id: null,
    external_source: null,
    created_at: new Date(r.created_at).toISOString(),
  };
  if (expand.has('actor')) dto.actor = actorRef(r);
  return dto;
}
