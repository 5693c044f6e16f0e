import { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AppConfig } from '../config/config';
import { SCOPES } from '../auth/scopes';
import { publicPath } from '../http/trailing-slash';
import { toOpenApi31 } from './openapi-31';
import { declareFields } from '../fields/fields';
import { addProblemExamples } from './problem-examples';
import { declareConditionalRequests } from './conditional-headers';
import { addRequestExamples } from './request-examples';
import {
  BODY_NOT_JSON,
  BODY_TOO_LARGE,
  DATABASE_UNAVAILABLE,
  GENERIC_INPUT_PROBLEM,
  INTERNAL_ERROR,
  WRITE_CONFLICT,
} from './problem-responses';

/**
 * Another API version's OpenAPI document (src/v1/ registers v1's): built beside v2's when its routes are served,
 * served by its own schema route and offered in Swagger UI's document picker.
 */
export interface ApiDocumentSource {
  /** Shown in Swagger UI's picker ("v1"). */
  name: string;
  /** The module serving that version: left out of v2's document (not even explored, which costs start-up time). */
  module: unknown;
  /** Where the document is served (its schema route). */
  url: string;
  /** `v2`: the v2 document, built first (its security schemes are the same credentials). */
  build(app: INestApplication, baseUrl: string, v2: OpenAPIObject): OpenAPIObject;
}

const sources: ApiDocumentSource[] = [];

export function registerApiDocument(source: ApiDocumentSource): void {
  if (!sources.some((s) => s.name === source.name)) sources.push(source);
}

/**
 * The documents of the application set up last, built when first asked for (a schema route, Swagger UI, the first
 * `?fields=`), not at start: building them takes 5 MB of live heap and about 10 MB of peak RSS that serving does
 * not need (docs/read-path-profile.md, "Peak memory, third pass"). They are built from the same code either way.
 */
interface Documents {
  v2(): OpenAPIObject;
  /** null when that version is not served. */
  other(name: string): OpenAPIObject | null;
  /** v2's document to read once: the kept one, else one built for the reading and not kept. */
  v2ToRead(): OpenAPIObject;
}

let active: Documents | null = null;

function lazyDocuments(app: INestApplication, baseUrl: string, served: ApiDocumentSource[]): Documents {
  let v2: OpenAPIObject | null = null;
  const others = new Map<string, OpenAPIObject | null>();
  const docs: Documents = {
    v2: () => (v2 ??= buildOpenApi(app, baseUrl)),
    other: (name) => {
      const source = served.find((s) => s.name === name);
      if (!source) return null;
      if (!others.has(name)) {
        const doc = source.build(app, baseUrl, docs.v2());
        others.set(name, Object.keys(doc.paths).length ? doc : null);
      }
      return others.get(name)!;
    },
    v2ToRead: () => v2 ?? buildOpenApi(app, baseUrl),
  };
  return docs;
}

/** A registered document (null when its version is not served), built on first use. */
export function apiDocument(name: string): OpenAPIObject | null {
  return active?.other(name) ?? null;
}

/** Registered versions whose module the application serves. */
function servedSources(app: INestApplication): ApiDocumentSource[] {
  const modules = new Set([...app.get(ModulesContainer).values()].map((m) => m.metatype));
  return sources.filter((s) => modules.has(s.module as never));
}

export const API_DESCRIPTION = `Self-hosted work-tracking service, REST API v2.

* Every path ends with \`/\`; the same path without it is a 404. There is no PUT (405 \`method_not_allowed\`).
* Authenticate with a personal API key in \`X-Api-Key\`, or an OAuth access token as \`Authorization: Bearer\`.
  OAuth tokens are capped by their scopes (the global \`read\`/\`write\` scopes satisfy every GET/write);
  API keys carry no scope ceiling. Every operation also needs a role, named in \`x-required-role\`.
* Lists return an envelope (\`pagination.style\` is \`offset\` or \`cursor\`); \`per_page\` defaults to 50, max 200.
* Failures are \`application/problem+json\` with a stable \`code\`; their \`type\` links to the code's entry in the
  error catalogue (\`/errors/\`: when each code happens and what to do).
* API v1 runs beside v2 in maintenance mode (same credentials and data): its document is at \`/api/v1/schema/\` and its
  Swagger UI, with a v1 / v2 picker, at [/api/v1/docs/](/api/v1/docs/) (unless \`API_V1_ENABLED=false\`).`;

/** Every module of the application but those of other API versions (registered sources). */
function v2Modules(app: INestApplication): Array<new (...args: never[]) => unknown> {
  const other = new Set(sources.map((s) => s.module));
  return [...app.get(ModulesContainer).values()]
    .map((m) => m.metatype as new (...args: never[]) => unknown)
    .filter((m) => !other.has(m));
}

/** The responses every operation can give whatever its route: write conflicts, input, server and body problems. */
function declareCommonResponses(doc: OpenAPIObject): void {
  for (const item of Object.values(doc.paths)) {
    for (const [method, op] of Object.entries(item) as Array<
      [string, { responses?: Record<string, unknown>; requestBody?: unknown }]
    >) {
      if (!op?.responses) continue;
      // A write that meets a concurrent one (serialization failure, deadlock) is rolled back as a 409 (problem.filter.ts).
      if (method !== 'get') op.responses['409'] ??= WRITE_CONFLICT;
      if (!op.responses['400']) op.responses['400'] = GENERIC_INPUT_PROBLEM;
      op.responses['500'] ??= INTERNAL_ERROR;
      op.responses['503'] ??= DATABASE_UNAVAILABLE;
      // Every operation that takes a body can meet the body limit and the JSON-only rule (create-app.ts).
      if (op.requestBody) {
        op.responses['413'] ??= BODY_TOO_LARGE;
        op.responses['415'] ??= BODY_NOT_JSON;
      }
    }
  }
}

/** Builds the OpenAPI document from the code: the one source for /api/v2/schema/ and Swagger UI. */
export function buildOpenApi(app: INestApplication, baseUrl: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Work Tracking API')
    .setVersion('2.0.0')
    .setDescription(API_DESCRIPTION)
    .addServer(baseUrl)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'Personal API key' }, 'ApiKey')
    .addOAuth2(
      {
        type: 'oauth2',
        description:
          'OAuth access token sent as `Authorization: Bearer TOKEN`, obtained by an app registered in the workspace ' +
          '(admin CLI `app create`): authorization code with PKCE (S256) at these URLs, refresh tokens that rotate, ' +
          'revocation (RFC 7009) at /auth/o/revoke/, introspection (RFC 7662) at /auth/o/introspect/, metadata (RFC 8414) ' +
          'at /.well-known/oauth-authorization-server. In Swagger UI, Authorize with the client_id of a public app whose ' +
          "redirect URI is this page's oauth2-redirect.html.",
        flows: {
          authorizationCode: {
            authorizationUrl: `${baseUrl}/auth/o/authorize/`,
            tokenUrl: `${baseUrl}/auth/o/token/`,
            refreshUrl: `${baseUrl}/auth/o/token/`,
            scopes: { ...SCOPES },
          },
        },
      },
      'oauth2',
    )
    .build();
  // A copy: the rewrites below must not reach back into the decorators' metadata objects.
  const doc = JSON.parse(
    JSON.stringify(
      SwaggerModule.createDocument(app, config, {
        include: v2Modules(app),
        operationIdFactory: (controllerKey: string, methodKey: string) =>
          `${controllerKey.replace(/Controller$/, '')}_${methodKey}`,
      }),
    ),
  ) as OpenAPIObject;
  // Nest strips trailing slashes from routes; the public paths carry them (see http/trailing-slash.ts).
  const paths: OpenAPIObject['paths'] = {};
  // v1 (src/v1/) has its own document; this one is v2's.
  for (const key of Object.keys(doc.paths).sort())
    if (!key.startsWith('/api/v1/')) paths[publicPath(key)] = doc.paths[key];
  doc.paths = paths;
  typePathParameters(doc);
  declareFields(doc as never);
  declareCommonResponses(doc);
  declareConditionalRequests(doc);
  addProblemExamples(doc, baseUrl);
  addRequestExamples(doc);
  return toOpenApi31(doc);
}

const PROJECT_ID_DESCRIPTION =
  "The project's UUID, or its identifier in any case (`ENG`): the later edition's addressing (gap-reference 9.5).";

/**
 * Path parameters declared by name only get a full schema: every `pk` and `*_id` segment is a UUID
 * (UuidParam answers 400 otherwise; the tenant guard checks project_id the same way), the rest (slug,
 * identifier) are strings.
 */
export function typePathParameters(doc: OpenAPIObject): void {
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as Array<{
      parameters?: Array<{ in?: string; name: string; description?: string; schema?: Record<string, unknown> }>;
    }>) {
      for (const prm of op?.parameters ?? []) {
        if (prm.in !== 'path') continue;
        if (prm.name === 'project_id') {
          prm.schema = { type: 'string' };
          prm.description = PROJECT_ID_DESCRIPTION;
          continue;
        }
        const uuid = prm.name === 'pk' || prm.name.endsWith('_id');
        prm.schema = { type: 'string', ...(prm.schema ?? {}), ...(uuid ? { format: 'uuid' } : {}) };
      }
    }
  }
}

/** The schema routes' documents and Swagger UI, built on first use (see Documents). */
export function setupOpenApi(app: INestApplication, cfg: AppConfig): void {
  const served = servedSources(app);
  const docs = lazyDocuments(app, cfg.publicBaseUrl, served);
  active = docs;
  SwaggerModule.setup('api/v2/docs', app, () => docs.v2(), {
    useGlobalPrefix: false,
    jsonDocumentUrl: 'api/v2/docs/openapi.json',
    yamlDocumentUrl: 'api/v2/docs/openapi.yaml',
    customSiteTitle: 'Work Tracking API v2',
    swaggerOptions: {
      persistAuthorization: true,
      displayOperationId: true,
      // The Authorize dialog runs the authorization code flow with PKCE against this server (a public app).
      oauth2RedirectUrl: `${cfg.publicBaseUrl}/api/v2/docs/oauth2-redirect.html`,
      initOAuth: { usePkceWithAuthorizationCodeGrant: true, scopeSeparator: ' ' },
    },
  });
  for (const source of served) setupVersionUi(app, cfg, source.name, () => docs.other(source.name)!);
}

/**
 * Swagger UI of another version at /api/{name}/docs/, with a picker (explorer) between its document and v2's: the
 * v2 page stays as it is, and links here from its description.
 */
function setupVersionUi(app: INestApplication, cfg: AppConfig, name: string, doc: () => OpenAPIObject): void {
  SwaggerModule.setup(`api/${name}/docs`, app, doc, {
    useGlobalPrefix: false,
    explorer: true,
    jsonDocumentUrl: `api/${name}/docs/openapi.json`,
    customSiteTitle: `Work Tracking API ${name}`,
    swaggerOptions: {
      persistAuthorization: true,
      displayOperationId: true,
      urls: [
        { name, url: `/api/${name}/docs/openapi.json` },
        { name: 'v2', url: '/api/v2/docs/openapi.json' },
      ],
      'urls.primaryName': name,
      oauth2RedirectUrl: `${cfg.publicBaseUrl}/api/v2/docs/oauth2-redirect.html`,
      initOAuth: { usePkceWithAuthorizationCodeGrant: true, scopeSeparator: ' ' },
    },
  });
}

/** v2's document of the application set up last, built on first use. */
export function currentOpenApi(): OpenAPIObject {
  if (!active) throw new Error('OpenAPI document not set up yet');
  return active.v2();
}

/**
 * v2's document to read once (the `?fields=` rules are derived from it): the kept one when a schema route built it
 * already, else one built for this reading and left to the collector, so that `?fields=` alone does not keep the
 * whole document in memory.
 */
export function openApiToRead(): OpenAPIObject {
  if (!active) throw new Error('OpenAPI document not set up yet');
  return active.v2ToRead();
}
