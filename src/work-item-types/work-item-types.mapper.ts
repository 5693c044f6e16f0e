import { WorkItemTypeDto } from './work-item-types.dto';

export interface TypeRow extends Record<string, unknown> {
  id: string;
  workspace_id: string;
  project_id: string | null;
  name: string;
  description: string;
  is_active: boolean;
  is_default: boolean;
  is_epic: boolean;
  level: number;
  logo_props: Record<string, unknown>;
  external_id: string | null;
  external_source: string | null;
  created_at: Date;
}

export function mapType(r: TypeRow): WorkItemTypeDto {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    is_active: r.is_active,
    is_default: r.is_default,
    is_epic: r.is_epic,
    level: r.level,
    logo_props: r.logo_props ?? {},
    created_at: new Date(r.created_at).toISOString(),
  };
}

/** The audited view of a type (old/new values of work_item_type.* events). */
export function auditType(r: TypeRow): Record<string, unknown> {
  return {
    name: r.name,
    description: r.description,
    is_active: r.is_active,
    is_default: r.is_default,
    is_epic: r.is_epic,
    level: r.level,
    external_id: r.external_id,
    external_source: r.external_source,
  };
}
