import { StateDto } from './states.dto';

export interface StateRow extends Record<string, unknown> {
  id: string;
  name: string;
  description: string;
  color: string;
  group: string;
  sequence: number;
  is_default: boolean;
  is_triage: boolean;
  external_id: string | null;
  external_source: string | null;
  created_at: Date;
  created_by_id: string | null;
}

export function mapState(r: StateRow): StateDto {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    color: r.color,
    group: r.group,
    sequence: Number(r.sequence),
    is_default: r.is_default,
    is_triage: r.is_triage,
    external_id: r.external_id,
    external_source: r.external_source,
    created_at: new Date(r.created_at).toISOString(),
    created_by_id: r.created_by_id,
  };
}
