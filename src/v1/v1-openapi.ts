import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { publicPath } from '../common/http/trailing-slash';
import { toOpenApi31 } from '../common/openapi/openapi-31';
import { typePathParameters } from '../common/openapi/openapi';

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
  v1Errors(doc);
  doc.components = {
    securitySchemes: v2.components?.securitySchemes,
    schemas: { V1Error: V1_ERROR as never },
  };
  return toOpenApi31(doc as never) as OpenAPIObject;
}
