import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import type request from 'supertest';

/**
 * The committed OpenAPI documents and the paths each one describes. Every response the HTTP tests receive under a
 * prefix is checked against that document (validateExchange); another API version adds its own entry here.
 */
export interface ApiDocument {
  /** Path prefix the document describes, with its trailing slash. */
  prefix: string;
  /** The committed document, relative to the repository root. */
  file: string;
  /** Paths under the prefix that serve no API operation (Swagger UI). */
  exclude?: string[];
  /** The error body of a path or method the document lacks: its component and media type (v2: problem+json). */
  error?: { schema: string; type: string };
}

export const API_DOCUMENTS: ApiDocument[] = [
  { prefix: '/api/v2/', file: 'openapi.json', exclude: ['/api/v2/docs'] },
  {
    prefix: '/api/v1/',
    file: 'openapi-v1.json',
    exclude: ['/api/v1/docs'],
    error: { schema: 'V1Error', type: 'application/json' },
  },
];
const PROBLEM = { schema: 'ProblemDto', type: 'application/problem+json' };

type Doc = Record<string, any>;
type Schema = Record<string, unknown>;

/** The keywords of the OpenAPI Schema Object dialect beyond JSON Schema: annotations for a validator. */
const OAS_KEYWORDS = ['discriminator', 'xml', 'externalDocs', 'example'];

/**
 * Ajv in strict mode (unknown keywords, ambiguous types and unsatisfiable `required` are errors) for the document's
 * schema dialect: JSON Schema 2020-12 for OpenAPI 3.1, draft-07 plus `nullable` for 3.0.
 */
function strictAjv(openapi: string): Ajv {
  const opts = { strict: true, allErrors: true, allowUnionTypes: true, validateFormats: true };
  const ajv = openapi.startsWith('3.1') ? new Ajv2020(opts) : new Ajv(opts);
  addFormats(ajv);
  for (const k of OAS_KEYWORDS) ajv.addKeyword({ keyword: k, schemaType: ['object', 'string', 'boolean', 'array'] });
  return ajv;
}

/**
 * A copy of the document for checking responses exactly: a problem+json body is validated like JSON (the library
 * reads `application/json` content only; the media type is checked here), and an object schema listing its
 * properties without saying whether others may appear is closed, so a response key the document does not
 * declare is a mismatch too.
 */
function forResponses(doc: Doc): Doc {
  const copy = JSON.parse(JSON.stringify(doc)) as Doc;
  const close = (s: unknown): void => {
    if (Array.isArray(s)) return s.forEach(close);
    if (!s || typeof s !== 'object') return;
    const schema = s as Schema;
    if (schema.properties && !('additionalProperties' in schema) && !('unevaluatedProperties' in schema))
      schema.additionalProperties = false;
    Object.values(schema).forEach(close);
  };
  close(copy.components?.schemas);
  for (const item of Object.values<Record<string, Doc>>(copy.paths ?? {})) {
    for (const op of Object.values(item)) {
      for (const res of Object.values((op?.responses ?? {}) as Record<string, Doc>)) {
        const content = res.content as Record<string, Doc> | undefined;
        if (!content) continue;
        close(content);
        if (content['application/problem+json'] && !content['application/json'])
          content['application/json'] = content['application/problem+json'];
      }
    }
  }
  return copy;
}

interface Checker {
  entry: ApiDocument;
  doc: Doc;
  responses: OpenAPIBackend;
  requests: OpenAPIBackend;
  problem: (body: unknown) => boolean;
  problemErrors: () => unknown;
}

const checkers = new Map<string, Checker>();
let loading: Promise<void> | null = null;

/** Reads and compiles every API document once per test file (createTestApp awaits it; checks run synchronously). */
export function loadApiDocuments(): Promise<void> {
  loading ??= Promise.all(API_DOCUMENTS.map(async (d) => checkers.set(d.prefix, await checkerFor(d)))).then(() => {});
  return loading;
}

async function checkerFor(entry: ApiDocument): Promise<Checker> {
  const doc = JSON.parse(readFileSync(resolve(__dirname, '../..', entry.file), 'utf8')) as Doc;
  const backend = (definition: Doc) =>
    new OpenAPIBackend({
      definition: definition as never,
      strict: true,
      validate: true,
      // quick skips the library's check of the document itself, which knows OpenAPI 3.0 only; openapi.spec.ts
      // validates the document (3.1 included) with @readme/openapi-parser.
      quick: true,
      ignoreTrailingSlashes: false,
      customizeAjv: () => strictAjv(String(doc.openapi)),
    });
  const responses = backend(forResponses(doc));
  const requests = backend(doc);
  await Promise.all([responses.init(), requests.init()]);
  // The body of a failure on a path the document does not have (an unknown path, a method a path lacks).
  const problemSchema = (responses.definition as Doc).components.schemas[(entry.error ?? PROBLEM).schema] as Schema;
  const validateProblem = strictAjv(String(doc.openapi)).compile(problemSchema);
  return {
    entry,
    doc,
    responses,
    requests,
    problem: (b) => validateProblem(b),
    problemErrors: () => validateProblem.errors,
  };
}

/**
 * The operation a request reaches: of the document's paths matching the request path, the most literal one (fewest
 * parameters) decides, as in the server's router; a method that path lacks reaches no operation (the server's 405,
 * never a run of a templated sibling such as `{pk}/` beside `enable/`).
 */
function operationAt(c: Checker, method: string, path: string): Operation | undefined {
  let best: { template: string; params: number } | null = null;
  for (const template of Object.keys(c.doc.paths as object)) {
    const params = (template.match(/\{/g) ?? []).length;
    const literal = template.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
    const re = new RegExp(`^${literal.join('[^/]+')}$`);
    if (re.test(path) && (!best || params < best.params)) best = { template, params };
  }
  const op =
    best &&
    (c.doc.paths as Record<string, Record<string, { operationId?: string }>>)[best.template][method.toLowerCase()];
  return op?.operationId ? c.responses.router.getOperation(op.operationId) : undefined;
}

const mediaType = (header: unknown): string =>
  (typeof header === 'string' ? header : '').split(';')[0].trim().toLowerCase();

/** The document's response object for `status`: exact, then `4XX`-style, then `default`. */
function declaredResponse(op: Operation, status: number): Doc | undefined {
  const responses = (op.responses ?? {}) as Record<string, Doc>;
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

function fail(method: string, path: string, status: number, why: string, detail?: unknown): never {
  const extra = detail === undefined ? '' : `\n${JSON.stringify(detail, null, 2).slice(0, 4000)}`;
  throw new Error(`OpenAPI mismatch: ${method} ${path} -> ${status}: ${why}${extra}`);
}

/**
 * Checks one exchange against the document of its path prefix: the status is one the operation declares, the
 * content type is the declared one, the body validates against the declared schema (strict Ajv through
 * openapi-backend), and a successful request's body was one the document allows (the server accepting what the
 * document refuses is a mismatch too). Paths outside every prefix are not checked.
 */
export function validateExchange(
  method: string,
  url: string,
  res: { status: number; headers: Record<string, unknown>; body: unknown; text?: string },
  requestBody?: unknown,
): void {
  const parsed = new URL(url, 'http://localhost');
  const path = parsed.pathname;
  const entry = API_DOCUMENTS.find(
    (d) => path.startsWith(d.prefix) && !(d.exclude ?? []).some((x) => path === x || path.startsWith(`${x}/`)),
  );
  // A CORS preflight is answered by the CORS layer for any path, not by an operation of the document.
  if (!entry || (method === 'OPTIONS' && res.headers['access-control-allow-methods'] !== undefined)) return;
  const c = checkers.get(entry.prefix);
  if (!c) throw new Error('OpenAPI documents not loaded: call loadApiDocuments() first (createTestApp does).');
  const status = res.status;
  const type = mediaType(res.headers['content-type']);
  const query = Object.fromEntries(parsed.searchParams.entries());
  const op = operationAt(c, method, path);
  if (!op) {
    if (status < 400) fail(method, path, status, 'a success on a path and method the document does not have');
    const error = entry.error ?? PROBLEM;
    if (type !== error.type) fail(method, path, status, `content type ${type}, not ${error.type}`);
    if (!c.problem(res.body))
      fail(method, path, status, `error body does not match ${error.schema}`, c.problemErrors());
    return;
  }
  // The document as committed (the response copy also lists problem+json content as JSON).
  const original = c.requests.router.getOperation(op.operationId!)!;
  const declared = declaredResponse(original, status);
  if (!declared) fail(method, path, status, `status not declared for ${op.operationId}`, res.body);
  const content = declared.content as Record<string, unknown> | undefined;
  if (!content) {
    if (res.text) fail(method, path, status, `${op.operationId} declares no body for this status`, res.text);
  } else if (method !== 'HEAD') {
    if (!content[type])
      fail(method, path, status, `content type ${type}; declared: ${Object.keys(content).join(', ')}`);
    const result = c.responses.validateResponse(res.body, op, status);
    if (!result.valid) fail(method, path, status, `body does not match ${op.operationId}`, result.errors);
  }
  if (status >= 200 && status < 300 && requestBody !== undefined) {
    const checked = c.requests.validateRequest({ method, path, query, headers: {}, body: requestBody }, original);
    const bodyErrors = (checked.errors ?? []).filter((e) => e.instancePath.startsWith('/requestBody'));
    if (bodyErrors.length)
      fail(method, path, status, `the server accepted a body ${op.operationId} does not allow`, bodyErrors);
  }
}

/** The agent's requests, each answered response checked by validateExchange (a mismatch fails the request's test). */
export function validatingAgent<T extends object>(agent: T): T {
  const methods = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'head', 'options']);
  return new Proxy(agent, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || !methods.has(prop) || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const test = (value as (...a: unknown[]) => request.Test).apply(target, args);
        let sent: unknown;
        const send = test.send.bind(test);
        test.send = (data?: string | object) => {
          sent = typeof data === 'string' ? tryJson(data) : data;
          return send(data);
        };
        // supertest runs the check when the response arrives; an exception fails the awaiting test.
        return test.expect((res: request.Response) => {
          const req = (res as unknown as { req: { method: string; path: string } }).req;
          validateExchange(req.method, req.path, res, sent);
        });
      };
    },
  });
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
