/**
 * Turns the document @nestjs/swagger builds (OpenAPI 3.0 vocabulary) into OpenAPI 3.1, whose schemas are JSON
 * Schema 2020-12 (docs/openapi.md says why 3.1):
 *
 * - `nullable: true` becomes a null member of the schema's types: `type: ['string', 'null']`, an enum that
 *   lists null, `anyOf: [{$ref}, {type: 'null'}]` for a reference (3.0's `nullable` never reached into `allOf`,
 *   so `{nullable, allOf: [{$ref}]}` refused null in strict validators and Prism).
 * - `example` in a schema becomes `examples: [...]` (the 2020-12 keyword; Ajv's strict mode knows it).
 * - A request body's `default` moves into the description: it tells what the server does when the field is
 *   omitted, and generators (openapi-typescript's defaultNonNullable) otherwise make such fields required.
 *
 * Written once here, so every DTO (and every helper's future DTO) keeps using the familiar decorators.
 */
type Schema = Record<string, unknown>;
interface Doc {
  openapi?: string;
  paths?: Record<string, unknown>;
  components?: { schemas?: Record<string, unknown> };
}

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Schema-valued keywords whose values are one schema, a list of schemas, or a map of schemas. */
const ONE = ['items', 'not', 'additionalProperties', 'unevaluatedProperties', 'contains', 'propertyNames'];
const MANY = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs'];

/** Rewrites one schema (and every schema inside it) in place; returns the schema to use in its place. */
export function convertSchema(schema: Schema): Schema {
  for (const k of ONE) if (isObject(schema[k])) schema[k] = convertSchema(schema[k]);
  for (const k of MANY) if (Array.isArray(schema[k])) schema[k] = (schema[k] as Schema[]).map(convertSchema);
  for (const k of MAP) {
    const map = schema[k];
    if (isObject(map)) for (const name of Object.keys(map)) map[name] = convertSchema(map[name] as Schema);
  }
  if ('example' in schema) {
    if (!('examples' in schema)) schema.examples = [schema.example];
    delete schema.example;
  }
  const nullable = schema.nullable === true;
  delete schema.nullable;
  return nullable ? withNull(schema) : schema;
}

const NULL: Schema = { type: 'null' };

/** The schema with null added to what it accepts. */
function withNull(schema: Schema): Schema {
  const { $ref, allOf, ...rest } = schema;
  const single = Array.isArray(allOf) && allOf.length === 1 ? (allOf[0] as Schema) : null;
  if (typeof $ref === 'string') return { ...rest, anyOf: [{ $ref }, NULL] };
  // @nestjs/swagger writes a nullable nested DTO as {type: 'object', nullable: true, allOf: [{$ref}]}.
  const { type, ...annotations } = rest;
  if (single && (type === undefined || type === 'object') && Object.keys(annotations).every((k) => ANNOTATIONS.has(k)))
    return { ...annotations, anyOf: [single, NULL] };
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...(schema.anyOf as Schema[]), NULL] };
  if (Array.isArray(schema.oneOf)) return { ...schema, oneOf: [...(schema.oneOf as Schema[]), NULL] };
  if (typeof schema.type === 'string') {
    const out: Schema = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...(schema.enum as unknown[]), null];
    return out;
  }
  if (Array.isArray(schema.type) && !schema.type.includes('null')) return { ...schema, type: [...schema.type, 'null'] };
  // No type at all: any JSON value, null included.
  return schema;
}

/** Keywords that describe a schema without constraining it. */
const ANNOTATIONS = new Set(['description', 'title', 'examples', 'deprecated', 'readOnly', 'writeOnly', 'default']);

/** The component schemas a schema refers to, transitively. */
function referenced(doc: Doc, schema: unknown, into: Set<string>): void {
  if (Array.isArray(schema)) return schema.forEach((s) => referenced(doc, s, into));
  if (!isObject(schema)) return;
  const ref = schema.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const name = ref.slice('#/components/schemas/'.length);
    if (into.has(name)) return;
    into.add(name);
    referenced(doc, doc.components?.schemas?.[name], into);
  }
  for (const v of Object.values(schema)) if (typeof v === 'object') referenced(doc, v, into);
}

/** Moves `default` of every property of `schema` into its description (see the file comment). */
function describeDefaults(schema: Schema): void {
  const props = schema.properties;
  if (!isObject(props)) return;
  for (const prop of Object.values(props) as Schema[]) {
    if (!('default' in prop)) continue;
    const note = `Default when omitted: \`${JSON.stringify(prop.default)}\`.`;
    prop.description = typeof prop.description === 'string' ? `${prop.description} ${note}` : note;
    delete prop.default;
  }
}

type Operation = {
  parameters?: Array<{ schema?: Schema; example?: unknown }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }>; headers?: Record<string, Schema> }>;
};

/** Every operation of the document. */
export function operationsOf(doc: Doc): Operation[] {
  const ops: Operation[] = [];
  for (const item of Object.values<Record<string, Operation>>((doc.paths ?? {}) as never)) {
    for (const [method, op] of Object.entries(item)) if (HTTP_METHODS.has(method) && isObject(op)) ops.push(op);
  }
  return ops;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** The document, rewritten to OpenAPI 3.1 in place. */
export function toOpenApi31<T extends Doc>(doc: T): T {
  const requestSchemas = new Set<string>();
  for (const op of operationsOf(doc)) {
    for (const media of Object.values(op.requestBody?.content ?? {})) {
      referenced(doc, media.schema, requestSchemas);
      if (media.schema && !media.schema.$ref) describeDefaults(media.schema);
    }
  }
  const schemas = (doc.components?.schemas ?? {}) as Record<string, Schema>;
  for (const name of requestSchemas) if (schemas[name]) describeDefaults(schemas[name]);
  for (const name of Object.keys(schemas)) schemas[name] = convertSchema(schemas[name]);
  for (const op of operationsOf(doc)) {
    for (const prm of op.parameters ?? []) if (prm.schema) prm.schema = convertSchema(prm.schema);
    for (const media of Object.values(op.requestBody?.content ?? {}))
      if (media.schema) media.schema = convertSchema(media.schema);
    for (const res of Object.values(op.responses ?? {})) {
      for (const media of Object.values(res.content ?? {}))
        if (media.schema) media.schema = convertSchema(media.schema);
      for (const header of Object.values(res.headers ?? {}))
        if (isObject(header.schema)) header.schema = convertSchema(header.schema);
    }
  }
  doc.openapi = '3.1.0';
  return doc;
}
