import { LabelDto } from './labels.dto';

export interface LabelRow extends Record<string, unknown> {
  id: string;
  project_id: string | null;
  name: string;
  description: string;
  color: string | null;
  sort_order: number;
  parent_id: string | null;
  external_id: string | null;
  external_source: string | null;
  created_at: Date;
  created_by_id: string | null;
}

export function mapLabel(r: LabelRow): LabelDto {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    color: r.color,
    sort_order: Number(r.sort_order),
    parent_id: r.parent_id,
    external_id: r.external_id,
    external_source: r.external_source,
    created_at: new Date(r.created_at).toISOString(),
    created_by_id: r.created_by_id,
  };
}
