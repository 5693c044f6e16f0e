import { PropertyOptionDto } from './property-options.dto';
import { WorkItemPropertyDto } from './work-item-properties.dto';

export interface PropertyRow extends Record<string, unknown> {
  id: string;
  workspace_id: string;
  project_id: string | null;
  name: string;
  display_name: string;
  description: string;
  property_type: string;
  relation_type: string | null;
  is_multi: boolean;
  is_required: boolean;
  is_active: boolean;
  default_value: string[];
  settings: Record<string, unknown>;
  validation_rules: Record<string, unknown>;
  logo_props: Record<string, unknown>;
  external_id: string | null;
  external_source: string | null;
  sort_order: number;
  created_at: Date;
}

export interface OptionRow extends Record<string, unknown> {
  id: string;
  property_id: string;
  name: string;
  description: string;
  is_default: boolean;
  sort_order: number;
  external_id: string | null;
  external_source: string | null;
  created_at: Date;
}

export function mapOption(r: OptionRow): PropertyOptionDto {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    is_default: r.is_default,
    sort_order: Number(r.sort_order),
    external_id: r.external_id,
    external_source: r.external_source,
  };
}

export function mapProperty(r: PropertyRow, options: OptionRow[]): WorkItemPropertyDto {
  return {
    id: r.id,
    name: r.name,
    display_name: r.display_name,
    description: r.description,
    property_type: r.property_type,
    relation_type: r.relation_type,
    is_multi: r.is_multi,
    is_required: r.is_required,
    is_active: r.is_active,
    default_value: r.default_value ?? [],
    options: r.property_type === 'OPTION' ? options.map(mapOption) : [],
    settings: r.settings ?? {},
    validation_rules: r.validation_rules ?? {},
    logo_props: r.logo_props ?? {},
    external_id: r.external_id,
    external_source: r.external_source,
    created_at: new Date(r.created_at).toISOString(),
  };
}

/** The audited view of a property definition. */
export function auditProperty(r: PropertyRow): Record<string, unknown> {
  return {
    name: r.name,
    display_name: r.display_name,
    description: r.description,
    property_type: r.property_type,
    relation_type: r.relation_type,
    is_multi: r.is_multi,
    is_required: r.is_required,
    is_active: r.is_active,
    default_value: r.default_value,
    settings: r.settings,
    validation_rules: r.validation_rules,
    external_id: r.external_id,
    external_source: r.external_source,
  };
}

export function auditOption(r: OptionRow): Record<string, unknown> {
  return {
    name: r.name,
    description: r.description,
    is_default: r.is_default,
    external_id: r.external_id,
    external_source: r.external_source,
  };
}

/** Derives the `name` slug from a display name: lower-case ASCII letters, digits and underscores. */
export function slugify(displayName: string): string {
  const s = displayName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 200)
    .replace(/_+$/g, '');
  return s || 'property';
}
