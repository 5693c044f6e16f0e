import { ApiExtension } from '@nestjs/swagger';
import { V1_STORED_KEYS, V1Table } from './v1-records.repository';
import { v1Key } from './v1-shape';

type Schema = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
type Operation = { responses?: Record<string, unknown>; [key: string]: unknown };

/** A v2 record as v1 answers it: the v2 component renamed by toV1, plus what V1Shaper adds (v1-shaper.ts). */
export interface V1RecordSpec {
  /** Its component in the v1 document. */
  name: string;
  /** The v2 component it maps. */
  v2: string;
  /** The table V1Shaper reads stored columns from; null: the v2 record as it is (no renaming, no extras). */
  table: V1Table | null;
  renames?: Record<string, string>;
  /** Keys v1 adds or reshapes beyond the shaper's, always present / present only sometimes. */
  add?: Record<string, Schema>;
  optional?: Record<string, Schema>;
}

/** What a v1 operation answers: a record (one, a v1 page of them, or an array), a literal schema, or nothing. */
export interface V1ResponseSpec {
  record?: V1RecordSpec;
  schema?: Schema;
  list?: 'page' | 'array';
  /** Default: 201 for POST, 204 for DELETE, else 200. */
  status?: number;
}

const EXTENSION = 'x-v1-response';

/** Declares a v1 operation's success response (built by declareV1Responses from v2's components). */
export const V1Returns = (spec: V1ResponseSpec): MethodDecorator & ClassDecorator => ApiExtension(EXTENSION, spec);

const nullable = (type: string, format?: string): Schema => ({ type: [type, 'null'], ...(format ? { format } : {}) });
const UUID: Schema = { type: 'string', format: 'uuid' };

/** The schema of each key V1Shaper adds (stored columns, tenant ids). */
const EXTRA_SCHEMAS: Record<string, Schema> = {
  workspace: UUID,
  project: nullable('string', 'uuid'),
  updated_at: nullable('string', 'date-time'),
  updated_by: nullable('string', 'uuid'),
  description_html: nullable('string'),
  description_stripped: nullable('string'),
  estimate_point: nullable('string', 'uuid'),
  sort_order: { type: 'number' },
};

/** v1's list envelope around `item` (v1-list.ts). */
function page(item: Schema): Schema {
  const int = { type: 'integer' };
  const props: Record<string, Schema> = {
    grouped_by: { type: 'null' },
    sub_grouped_by: { type: 'null' },
    total_count: int,
    next_cursor: { type: 'string', examples: ['100:1:0'] },
    prev_cursor: { type: 'string' },
    next_page_results: { type: 'boolean' },
    prev_page_results: { type: 'boolean' },
    count: int,
    total_pages: int,
    total_results: int,
    extra_stats: { type: 'null' },
    results: { type: 'array', items: item },
  };
  return { type: 'object', properties: props, required: Object.keys(props) };
}

/** The v1 record component: v2's properties under toV1's names (an id and its expansion share one), plus extras. */
function recordSchema(v2: Record<string, Schema>, spec: V1RecordSpec): Schema {
  const source = v2[spec.v2];
  if (!source) throw new Error(`v1 response: no v2 component ${spec.v2}`);
  const props = (source.properties ?? {}) as Record<string, Schema>;
  const required = new Set((source.required ?? []) as string[]);
  const out: Record<string, Schema> = {};
  const req = new Set<string>();
  for (const [key, schema] of Object.entries(props)) {
    const name = spec.table === null ? key : (spec.renames?.[key] ?? v1Key(key));
    if (name !== key && props[name]) out[name] = { anyOf: [schema, props[name]] };
    else if (!out[name]) out[name] = schema;
    if (required.has(key)) req.add(name);
  }
  if (spec.table !== null) {
    for (const key of ['workspace', 'updated_by', ...V1_STORED_KEYS[spec.table]]) {
      out[key] = EXTRA_SCHEMAS[key];
      req.add(key);
    }
    // The path's project, added on project routes only (stored above for the tables that keep one).
    out.project ??= EXTRA_SCHEMAS.project;
  }
  for (const [key, schema] of Object.entries(spec.add ?? {})) {
    out[key] = schema;
    req.add(key);
  }
  for (const [key, schema] of Object.entries(spec.optional ?? {})) out[key] = schema;
  return { type: 'object', properties: out, required: [...req].filter((k) => out[k]) };
}

/** Copies into the v1 document every v2 component `schema` refers to, transitively. */
function copyRefs(doc: Doc, v2: Record<string, Schema>, schema: unknown): void {
  if (Array.isArray(schema)) return schema.forEach((s) => copyRefs(doc, v2, s));
  if (!schema || typeof schema !== 'object') return;
  const ref = (schema as Schema).$ref;
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/schemas/', '');
    if (!doc.components.schemas[name] && v2[name]) {
      doc.components.schemas[name] = v2[name];
      copyRefs(doc, v2, v2[name]);
    }
  }
  Object.values(schema).forEach((s) => copyRefs(doc, v2, s));
}

function bodySchema(doc: Doc, v2: Record<string, Schema>, spec: V1ResponseSpec): Schema | null {
  let item: Schema | null = spec.schema ?? null;
  if (spec.record) {
    const { name } = spec.record;
    if (!doc.components.schemas[name]) {
      doc.components.schemas[name] = recordSchema(v2, spec.record);
      copyRefs(doc, v2, doc.components.schemas[name]);
    }
    item = { $ref: `#/components/schemas/${name}` };
  }
  if (!item) return null;
  copyRefs(doc, v2, item);
  if (spec.list === 'page') return page(item);
  if (spec.list === 'array') return { type: 'array', items: item };
  return item;
}

/**
 * Turns each operation's `x-v1-response` into its success response, with the v1 record components derived from
 * v2's (`v2`: the v2 document's components, OpenAPI 3.1). An operation without one fails the build: every v1
 * operation documents what it answers, and the HTTP tests validate every v1 response against it.
 */
export function declareV1Responses(doc: Doc, v2: Record<string, Schema>): void {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const spec = op[EXTENSION] as V1ResponseSpec | undefined;
      if (!spec) throw new Error(`v1 operation ${method.toUpperCase()} ${path} declares no response (@V1Returns)`);
      delete op[EXTENSION];
      const status = spec.status ?? (method === 'post' ? 201 : method === 'delete' ? 204 : 200);
      const schema = bodySchema(doc, v2, spec);
      (op.responses ??= {})[String(status)] = schema
        ? { description: 'OK (v1 shape)', content: { 'application/json': { schema } } }
        : { description: 'No content' };
    }
  }
}

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** The records v1 answers, each a v2 component in v1's shape. */
export const V1_RECORDS = {
  project: { name: 'V1Project', v2: 'ProjectDto', table: 'projects' },
  state: { name: 'V1State', v2: 'StateDto', table: 'states', renames: { is_default: 'default' } },
  label: { name: 'V1Label', v2: 'LabelDto', table: 'labels' },
  cycle: { name: 'V1Cycle', v2: 'CycleDto', table: 'cycles' },
  module: { name: 'V1Module', v2: 'ModuleDto', table: 'modules' },
  workItem: {
    name: 'V1WorkItem',
    v2: 'WorkItemDto',
    table: 'work_items',
    // expand=project puts the project in place; `module` is the first module: its id, or with expand=module itself.
    add: {
      project: { anyOf: [UUID, ref('V1Project')] },
      module: { anyOf: [UUID, ref('WorkItemModuleRefDto'), { type: 'null' }] },
    },
  },
  comment: { name: 'V1Comment', v2: 'CommentDto', table: 'work_item_comments' },
  estimate: { name: 'V1Estimate', v2: 'EstimateDto', table: 'estimates' },
  estimatePoint: { name: 'V1EstimatePoint', v2: 'EstimatePointDto', table: 'estimate_points' },
  workflow: {
    name: 'V1Workflow',
    v2: 'WorkflowDto',
    table: 'workflows',
    renames: { work_item_type_ids: 'work_item_type_ids' },
  },
  workflowState: { name: 'WorkflowStateDto', v2: 'WorkflowStateDto', table: null },
  workflowTransition: {
    name: 'V1WorkflowTransition',
    v2: 'WorkflowTransitionDto',
    table: null,
    add: { state_id: nullable('string', 'uuid') },
  },
  workItemType: { name: 'V1WorkItemType', v2: 'WorkItemTypeDto', table: 'work_item_types' },
  workItemProperty: { name: 'V1WorkItemProperty', v2: 'WorkItemPropertyDto', table: 'work_item_properties' },
  propertyOption: { name: 'V1PropertyOption', v2: 'PropertyOptionDto', table: 'work_item_property_options' },
  link: { name: 'V1Link', v2: 'WorkItemLinkDto', table: 'work_item_links' },
  activity: { name: 'V1Activity', v2: 'WorkItemActivityDto', table: 'work_item_activities' },
  relationDefinition: {
    name: 'V1RelationDefinition',
    v2: 'RelationDefinitionDto',
    table: 'work_item_relation_definitions',
  },
} satisfies Record<string, V1RecordSpec>;

/** An object of these keys, each `schema`, all present. */
export function v1Object(keys: string[], schema: Schema): Schema {
  return { type: 'object', properties: Object.fromEntries(keys.map((k) => [k, schema])), required: keys };
}

export const V1_UUIDS: Schema = { type: 'array', items: UUID };
