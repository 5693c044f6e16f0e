import { RelationDefinitionDto } from './relation-definitions.dto';
import { DefinitionRow } from './relation-definitions.repository';

export function mapDefinition(r: DefinitionRow): RelationDefinitionDto {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    outward: r.outward,
    inward: r.inward,
    color: r.color,
    is_active: r.is_active,
    is_default: r.is_default,
    logo_props: (r.logo_props ?? {}) as Record<string, unknown>,
    sort_order: Number(r.sort_order),
    external_id: r.external_id,
    external_source: r.external_source,
    created_at: new Date(r.created_at).toISOString(),
    created_by_id: r.created_by_id,
  };
}
