import { CycleDto, CycleProgressDto } from './cycles.dto';
import { CycleRow } from './cycles.repository';

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function mapCycle(r: CycleRow, progress?: CycleProgressDto): CycleDto {
  const dto: CycleDto = {
    id: r.id,
    name: r.name,
    description: r.description,
    start_date: iso(r.start_date),
    end_date: iso(r.end_date),
    timezone: r.timezone,
    owned_by_id: r.owned_by_id,
    sort_order: Number(r.sort_order),
    logo_props: r.logo_props ?? {},
    external_id: r.external_id,
    external_source: r.external_source,
    archived_at: iso(r.archived_at),
    created_at: new Date(r.created_at).toISOString(),
    created_by_id: r.created_by_id,
  };
  if (progress) dto.progress = progress;
  return dto;
}

export function emptyProgress(): CycleProgressDto {
  return { total: 0, backlog: 0, unstarted: 0, started: 0, completed: 0, cancelled: 0, triage: 0 };
}
