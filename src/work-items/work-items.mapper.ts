import { isoTimestamp } from '../common/database/iso-timestamps';
import { WorkItemDto } from './work-items.dto';
import { WorkItemDetailRow, WorkItemRow } from './work-items.repository';

const iso = (d: Date | string | null): string | null => (d ? isoTimestamp(d) : null);

/** Row → read shape. `customFields` is null on list rows and archive/unarchive responses. */
export function mapWorkItem(
  r: WorkItemRow,
  projectIdentifier: string,
  customFields: Record<string, unknown> | null,
): WorkItemDto {
  return {
    id: r.id,
    name: r.name,
    identifier: `${projectIdentifier}-${r.sequence_id}`,
    sequence_id: r.sequence_id,
    project_id: r.project_id,
    priority: r.priority,
    state_id: r.state_id,
    type_id: r.type_id,
    assignee_ids: r.assignee_ids ?? [],
    label_ids: r.label_ids ?? [],
    parent_id: r.parent_id,
    cycle_id: r.cycle_id,
    module_ids: r.module_ids ?? [],
    start_date: r.start_date,
    target_date: r.target_date,
    is_draft: r.is_draft,
    archived_at: iso(r.archived_at),
    created_at: iso(r.created_at)!,
    created_by_id: r.created_by_id,
    custom_fields: customFields,
  };
}

/** A work item as webhook payloads show it: the read shape without custom fields and expansions. */
export function webhookView(row: WorkItemDetailRow): WorkItemDto {
  return mapWorkItem(row, row.project_identifier, null);
}
