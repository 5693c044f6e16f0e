import { EstimateDto, EstimatePointDto } from './estimates.dto';

export interface EstimateRow extends Record<string, unknown> {
  id: string;
  name: string;
  description: string;
  type: string;
  is_active: boolean;
  last_used: boolean;
  external_id: string | null;
  external_source: string | null;
  created_at: Date;
  created_by_id: string | null;
}

export interface EstimatePointRow extends Record<string, unknown> {
  id: string;
  estimate_id: string;
  key: number;
  value: string;
  description: string;
  external_id: string | null;
  external_source: string | null;
  created_at: Date;
  created_by_id: string | null;
}

export const ESTIMATE_EXPANDS = ['points'] as const;

export function mapPoint(r: EstimatePointRow): EstimatePointDto {
  return {
    id: r.id,
    estimate_id: r.estimate_id,
    key: Number(r.key),
    value: r.value,
    description: r.description,
    external_id: r.external_id,
    external_source: r.external_source,
    created_at: new Date(r.created_at).toISOString(),
    created_by_id: r.created_by_id,
  };
}

/** `points` is set only when expanded (then always an array, possibly empty). */
export function mapEstimate(r: EstimateRow, points?: EstimatePointRow[]): EstimateDto {
  const dto: EstimateDto = {
    id: r.id,
    name: r.name,
    description: r.description,
    type: r.type,
    is_active: r.is_active,
    last_used: r.last_used,
    external_id: r.external_id,
    external_source: r.external_source,
    created_at: new Date(r.created_at).toISOString(),
    created_by_id: r.created_by_id,
  };
  if (points) dto.points = points.map(mapPoint);
  return dto;
}
