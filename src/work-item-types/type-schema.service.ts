import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ProjectContext } from '../common/auth/request-context';
import { ProblemException } from '../common/errors/problem.exception';
import { defaultInput } from '../custom-fields/custom-fields.service';
import { EffectivePropertiesRepository, EffectiveProperty } from '../custom-fields/effective-properties.repository';
import { FeatureFlags } from '../features/feature-flags.queries';
import { EMAIL_MAX, TEXT_MAX, URL_MAX } from '../work-item-properties/property-rules';
import { SchemaCustomFieldDto, SchemaFieldDto, TypeSchemaDto } from './type-schema.dto';
import { WorkItemTypesRepository } from './work-item-types.repository';

const PRIORITIES = [
  { value: 'urgent', label: 'Urgent' },
  { value: 'high', label: 'High' },
  { value: 'medium', label: 'Medium' },
  { value: 'low', label: 'Low' },
  { value: 'none', label: 'None' },
];
const INCLUDES = ['members', 'labels'];

/** `GET .../work-item-types/{pk}/schema/`: what a work item of this type accepts in this project. */
@Injectable()
export class TypeSchemaService {
  constructor(
    private readonly ds: DataSource,
    private readonly types: WorkItemTypesRepository,
    private readonly effective: EffectivePropertiesRepository,
    private readonly features: FeatureFlags,
  ) {}

  async schema(ctx: ProjectContext, typeId: string, rawInclude: unknown): Promise<TypeSchemaDto> {
    const include = parseInclude(rawInclude);
    const type = await this.types.getInProject(ctx.workspace.id, ctx.project.id, typeId);
    if (!type) throw ProblemException.notFound('Work item type');
    const parts = await this.readParts(ctx.workspace.id, ctx.project.id, type.id, include);
    const active = parts.props.filter((p) => p.is_active);
    return {
      type_id: type.id,
      type_name: type.name,
      type_description: type.description,
      type_logo_props: type.logo_props ?? {},
      fields: builtinFields(parts),
      custom_fields: customFields(active),
      custom_fields_json_schema: customFieldsJsonSchema(type.name, active),
    };
  }

  /** What the schema lists, read in parallel: states, the active estimate, properties, members and labels. */
  private async readParts(ws: string, projectId: string, typeId: string, include: Set<string>) {
    const [states, estimate, props, members, labels] = await Promise.all([
      this.ds.query<Array<{ id: string; name: string; color: string; group: string; is_default: boolean }>>(
        `SELECT id, name, color, "group", is_default FROM states WHERE workspace_id = $1 AND project_id = $2 AND deleted_at IS NULL ORDER BY sequence, id`,
        [ws, projectId],
      ),
      this.ds.query<Array<{ id: string; points: Array<{ id: string; value: string }> }>>(
        `SELECT e.id, coalesce((SELECT jsonb_agg(jsonb_build_object('id', pt.id, 'value', pt.value, 'key', pt.key) ORDER BY pt.key, pt.id)
                                  FROM estimate_points pt WHERE pt.workspace_id = $1 AND pt.estimate_id = e.id AND pt.deleted_at IS NULL), '[]'::jsonb) AS points
           FROM estimates e JOIN project_features f ON f.workspace_id = $1 AND f.project_id = e.project_id AND f.is_estimates_enabled
          WHERE e.workspace_id = $1 AND e.project_id = $2 AND e.is_active AND e.deleted_at IS NULL`,
        [ws, projectId],
      ),
      // With custom properties off a create accepts no custom_fields (400), so the schema lists none.
      this.features
        .isCustomPropertiesEnabled(ws)
        .then((on) => (on ? this.effective.forType(ws, projectId, typeId) : [])),
      include.has('members')
        ? this.ds.query<Array<{ id: string; display_name: string; email: string }>>(
            `SELECT u.id, u.display_name, u.email FROM project_members pm JOIN users u ON u.id = pm.member_id
              WHERE pm.workspace_id = $1 AND pm.project_id = $2 AND pm.deleted_at IS NULL ORDER BY u.display_name, u.id`,
            [ws, projectId],
          )
        : Promise.resolve(null),
      include.has('labels')
        ? this.ds.query<Array<{ id: string; name: string; color: string | null }>>(
            `SELECT id, name, color FROM labels WHERE workspace_id = $1 AND (project_id = $2 OR project_id IS NULL) AND deleted_at IS NULL
              ORDER BY project_id NULLS LAST, sort_order, id`,
            [ws, projectId],
          )
        : Promise.resolve(null),
    ]);
    return { states, estimate, props, members, labels };
  }
}

type SchemaParts = Awaited<ReturnType<TypeSchemaService['readParts']>>;

/** The built-in fields of a create, with the project's states, estimate points and (on request) options. */
function builtinFields({ states, estimate, members, labels }: SchemaParts): Record<string, SchemaFieldDto> {
  const defaultState = states.find((s) => s.is_default);
  const fields: Record<string, SchemaFieldDto> = {
    name: { type: 'string', required: true, max_length: 255 },
    description_html: { type: 'string', required: false },
    priority: { type: 'option', required: false, default: 'none', options: PRIORITIES },
    state_id: {
      type: 'option',
      required: false,
      ...(defaultState ? { default: defaultState.id } : {}),
      options: states.map((s) => ({ id: s.id, name: s.name, color: s.color, group: s.group })),
    },
    assignee_ids: { type: 'uuid', required: false, is_multi: true, ...(members ? { options: members } : {}) },
    label_ids: { type: 'uuid', required: false, is_multi: true, ...(labels ? { options: labels } : {}) },
    start_date: { type: 'date', required: false, format: 'YYYY-MM-DD' },
    target_date: { type: 'date', required: false, format: 'YYYY-MM-DD' },
    parent_id: { type: 'uuid', required: false },
  };
  if (estimate[0]) {
    fields.estimate_point_id = {
      type: 'option',
      required: false,
      options: estimate[0].points.map((p) => ({ id: p.id, value: p.value })),
    };
  }

  return fields;
}

/** The active custom properties of the type, by name. */
function customFields(active: SchemaParts['props']): Record<string, SchemaCustomFieldDto> {
  const custom: Record<string, SchemaCustomFieldDto> = {};
  for (const p of active) {
    const f: SchemaCustomFieldDto = {
      id: p.id,
      type: p.property_type,
      name: p.name,
      display_name: p.display_name,
      description: p.description,
      required: p.is_required,
      is_multi: p.is_multi,
      default_value: p.default_value ?? [],
      validation_rules: p.validation_rules ?? {},
    };
    if (p.property_type === 'OPTION') f.options = p.options.map((o) => ({ id: o.id, name: o.name, logo_props: {} }));
    if (p.property_type === 'RELATION') f.relation_type = p.relation_type ?? undefined;
    custom[p.name] = f;
  }
  return custom;
}

function parseInclude(raw: unknown): Set<string> {
  const text = Array.isArray(raw) ? raw.join(',') : typeof raw === 'string' ? raw : '';
  const values = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = values.filter((v) => !INCLUDES.includes(v));
  if (bad.length)
    throw ProblemException.validation(
      'include',
      `Unknown include value(s): ${bad.join(', ')}. Allowed: ${INCLUDES.join(', ')}.`,
    );
  return new Set(values);
}

/**
 * JSON Schema (draft 2020-12) of `custom_fields` for a create: one property per active custom field,
 * `required` listing those that are required and have no default, no other keys allowed.
 */
export function customFieldsJsonSchema(typeName: string, props: EffectiveProperty[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const p of props) {
    const one = scalarSchema(p);
    let s: Record<string, unknown> = p.is_multi
      ? {
          type: 'array',
          items: one,
          uniqueItems: true,
          ...(typeof p.validation_rules?.min_items === 'number' ? { minItems: p.validation_rules.min_items } : {}),
          ...(typeof p.validation_rules?.max_items === 'number' ? { maxItems: p.validation_rules.max_items } : {}),
        }
      : one;
    s = { title: p.display_name, ...(p.description ? { description: p.description } : {}), ...s };
    if (p.property_type === 'FORMULA') s.readOnly = true;
    else if (!p.is_required) {
      s = { ...s, type: nullable(s.type) };
      if (Array.isArray(s.enum)) s.enum = [...s.enum, null];
    }
    properties[p.name] = s;
    const dflt = defaultInput(p);
    if (p.is_required && (dflt === null || dflt === undefined)) required.push(p.name);
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `custom_fields of a ${typeName} work item`,
    type: 'object',
    additionalProperties: false,
    properties,
    required,
  };
}

function nullable(t: unknown): unknown {
  if (t === undefined) return undefined;
  return Array.isArray(t) ? [...t, 'null'] : [t, 'null'];
}

function scalarSchema(p: EffectiveProperty): Record<string, unknown> {
  const r = p.validation_rules ?? {};
  const pick = (m: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(m)
        .filter(([k]) => r[k] !== undefined)
        .map(([k, j]) => [j, r[k]]),
    );
  switch (p.property_type) {
    case 'TEXT':
      return {
        type: 'string',
        maxLength: typeof r.max_length === 'number' ? Math.min(r.max_length, TEXT_MAX) : TEXT_MAX,
        ...pick({ min_length: 'minLength', pattern: 'pattern' }),
      };
    case 'DECIMAL':
      return { type: r.integer === true ? 'integer' : 'number', ...pick({ min: 'minimum', max: 'maximum' }) };
    case 'BOOLEAN':
      return { type: 'boolean' };
    case 'DATETIME':
      return { type: 'string', format: r.date_only === true ? 'date' : 'date-time' };
    case 'URL':
      return { type: 'string', format: 'uri', maxLength: URL_MAX };
    case 'FILE':
      return { type: 'string', format: 'uri', maxLength: URL_MAX, description: 'URL of the file' };
    case 'EMAIL':
      return { type: 'string', format: 'email', maxLength: EMAIL_MAX };
    case 'OPTION':
      return { type: 'string', format: 'uuid', enum: p.options.map((o) => o.id) };
    case 'RELATION':
      return p.relation_type === 'RICH_TEXT'
        ? { type: 'string', contentMediaType: 'text/html' }
        : {
            type: 'string',
            format: 'uuid',
            description: `Id of a ${p.relation_type === 'USER' ? 'workspace member' : p.relation_type === 'ISSUE' ? 'work item of this workspace' : 'record'}`,
          };
    default:
      return {};
  }
}
