import { WorkItemLinkDto } from './work-item-links.dto';
import { LinkRow } from './work-item-links.repository';

export function mapLink(r: LinkRow): WorkItemLinkDto {
  return {
    id: r.id,
    work_item_id: r.work_item_id,
    url: r.url,
    title: r.title,
    metadata: (r.metadata ?? {}) as Record<string, unknown>,
    created_at: new Date(r.created_at).toISOString(),
    created_by_id: r.created_by_id,
  };
}
