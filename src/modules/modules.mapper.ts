import { ModuleDto } from './modules.dto';
import { ModuleRow } from './modules.repository';

export function mapModule(r: ModuleRow, memberIds: string[]): ModuleDto {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    status: r.status,
    start_date: r.start_date,
    target_date: r.target_date,
    lead_id: r.lead_id,
    member_ids: memberIds,
    sort_order: Number(r.sort_order),
    logo_props: r.logo_props ?? {},
    external_id: r.external_id,
    external_source: r.external_source,
    archived_at: r.archived_at ? new Date(r.archived_at).toISOString() : null,
    created_at: new Date(r.created_at).toISOString(),
    created_by_id: r.created_by_id,
  };
}
