import { PropertyContextDto } from './contexts.dto';
import { ContextRow } from './contexts.repository';

export function mapContext(r: ContextRow): PropertyContextDto {
  return {
    id: r.id,
    name: r.name,
    is_required: r.is_required,
    is_multi: r.is_multi,
    is_default: r.is_default,
    default_value: r.default_value ?? [],
    settings: r.settings ?? {},
    sort_order: Number(r.sort_order),
    applies_to_all_projects: r.applies_to_all_projects,
    applies_to_all_work_item_types: r.applies_to_all_work_item_types,
    project_ids: r.applies_to_all_projects ? [] : (r.project_ids ?? []),
    issue_type_ids: r.applies_to_all_work_item_types ? [] : (r.issue_type_ids ?? []),
    options: (r.options ?? []).map((o) => ({
      id: o.id,
      name: o.name,
      is_default: o.is_default,
      sort_order: Number(o.sort_order),
    })),
    external_id: r.external_id,
    external_source: r.external_source,
    created_at: new Date(r.created_at).toISOString(),
  };
}

export function auditContext(r: ContextRow): Record<string, unknown> {
  const m = mapContext(r);
  return {
    name: m.name,
    is_required: m.is_required,
    is_multi: m.is_multi,
    default_value: m.default_value,
    settings: m.settings,
    applies_to_all_projects: m.applies_to_all_projects,
    applies_to_all_work_item_types: m.applies_to_all_work_item_types,
    project_ids: m.project_ids,
    issue_type_ids: m.issue_type_ids,
    options: m.options.map((o) => o.id),
    external_id: m.external_id,
    external_source: m.external_source,
  };
}
