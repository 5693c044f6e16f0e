import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { publicPath } from '../common/http/trailing-slash';
import { toOpenApi31 } from '../common/openapi/openapi-31';
import { typePathParameters } from '../common/openapi/openapi';
import { declareV1Responses } from './v1-responses';

const DESCRIPTION = `API v1 of the work-tracking service, in maintenance mode beside v2 (README "Versions").

* Same credentials (\`X-API-Key\` or \`Authorization: Bearer\`), roles, scopes, tenant wall, rate-limit budget and audit
  trail as v2: v1 maps requests and responses onto the v2 operations and adds no rule of its own.
* Relations are named as v1 names them (\`state\`, \`labels\`, \`assignees\`, \`parent\`, \`project\`, ...); \`?expand=\`
  puts the object in place of the id. PUT is accepted wherever PATCH is.
* Lists: \`{results, next_cursor, prev_cursor, next_page_results, prev_page_results, count, total_pages, total_results,
  total_count}\`; \`per_page\` (default 100, at most 200) and \`cursor\` (\`per_page:page:is_prev\`, e.g. \`100:1:0\`).
* Errors are plain JSON: \`{error, detail, code, errors?}\` (\`errors\` maps a field to its messages).
* Every response carries \`Deprecation\`, \`Link: <v2 path>; rel="successor-version"\` where v2 has the resource, and
  \`Sunset\` once a date is configured (\`V1_SUNSET\`).`;

/** v1's error body (src/v1/v1-edge.ts). */
const V1_ERROR = {
  type: 'object',
  required: ['error', 'detail'],
  properties: {
    error: { type: 'string', description: 'What went wrong.' },
    detail: { type: 'string', description: 'The same message under the key Django REST framework clients read.' },
    code: { type: 'string', description: "The stable code (v2's error catalogue, /errors/)." },
    errors: {
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' } },
      description: 'Messages per field (validation errors).',
    },
  },
};

type Responses = Record<string, { content?: Record<string, unknown>; description?: string }>;

const v1Failure = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/V1Error' } } },
});

/**
 * The failures every v1 operation can answer, as v2's twin does (v1 maps onto v2's services, so it meets v2's
 * rules): input (400), the tenant wall and unknown records (404), for writes a rule's conflict (409) and the body
 * limits (413, 415), and the server's own (500, 503). The v1 controllers declare none of their own.
 */
function declareFailures(doc: OpenAPIObject): void {
  for (const item of Object.values(doc.paths)) {
    for (const [method, op] of Object.entries(item) as Array<[string, { responses?: Responses }]>) {
      if (!op?.responses || op.responses['200']?.description === 'OpenAPI 3.1 document') continue;
      const r = op.responses;
      r['400'] ??= v1Failure('`validation_error` (and the other input codes of v2): `errors` names each field');
      r['404'] ??= v1Failure('`resource_not_found`: unknown, deleted, or of another tenant');
      if (method !== 'get') {
        r['409'] ??= v1Failure('`conflict` (or a more precise code): a rule of the v2 operation refuses the change');
        r['413'] ??= v1Failure('`payload_too_large`: the body exceeds the configured limit');
        r['415'] ??= v1Failure('`unsupported_media_type`: the body is not JSON');
      }
      r['500'] ??= v1Failure('`internal_error`: an unexpected failure of the server');
      r['503'] ??= v1Failure('`service_unavailable`: the database cannot be reached; see Retry-After');
    }
  }
}

/** Every failure answered by a v1 path is v1's error body, not problem+json. */
function v1Errors(doc: OpenAPIObject): void {
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as Array<{ responses?: Responses }>) {
      for (const [status, res] of Object.entries(op?.responses ?? {})) {
        if (Number(status) < 400 || !res.content) continue;
        res.content = { 'application/json': { schema: { $ref: '#/components/schemas/V1Error' } } };
      }
    }
  }
}

type Param = { in?: string; name: string; required?: boolean; schema?: Record<string, unknown> };

/** Every `{name}` of a path declared as a path parameter (the v1 controllers declare none themselves). */
function declarePathParameters(doc: OpenAPIObject): void {
  for (const [path, item] of Object.entries(doc.paths)) {
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    for (const op of Object.values(item) as Array<{ parameters?: Param[] }>) {
      if (!op || typeof op !== 'object') continue;
      const params = (op.parameters ??= []);
      for (const name of names)
        if (!params.some((p) => p.in === 'path' && p.name === name)) params.push({ name, in: 'path', required: true });
    }
  }
}

/** The v1 document: the routes of V1Module, v2's security schemes, v1's error body. */
export function buildV1OpenApi(app: INestApplication, baseUrl: string, v2: OpenAPIObject, v1Module: unknown) {
  const config = new DocumentBuilder()
    .setTitle('Work Tracking API v1 (maintenance mode)')
    .setVersion('1.0.0')
    .setDescription(DESCRIPTION)
    .addServer(baseUrl)
    .build();
  const doc = JSON.parse(
    JSON.stringify(
      SwaggerModule.createDocument(app, config, {
        include: [v1Module as never],
        operationIdFactory: (controllerKey: string, methodKey: string) =>
          `${controllerKey.replace(/Controller$/, '')}_${methodKey}`,
      }),
    ),
  ) as OpenAPIObject;
  const paths: OpenAPIObject['paths'] = {};
  for (const key of Object.keys(doc.paths).sort()) paths[publicPath(key)] = doc.paths[key];
  doc.paths = paths;
  declarePathParameters(doc);
  typePathParameters(doc);
  declareFailures(doc);
  v1Errors(doc);
  doc.components = {
    securitySchemes: v2.components?.securitySchemes,
    schemas: { V1Error: V1_ERROR as never },
  };
  const out = toOpenApi31(doc as never) as OpenAPIObject;
  const v2Schemas = JSON.parse(JSON.stringify(v2.components?.schemas ?? {})) as Record<string, Record<string, unknown>>;
  declareV1Responses(out as never, v2Schemas);
  return out;
}
