import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { V1Settings } from '../common/config/config';
import { allowedMethodsFor } from '../common/http/route-registry';

export const V1_PREFIX = '/api/v1/';

/** When v1 was put in maintenance mode here (it was added beside v2 already deprecated): RFC 9745's `@epoch`. */
const DEPRECATED_AT = `@${Date.UTC(2026, 10, 26) / 1000}`;

/**
 * v1 segments whose v2 successor has another name. Applied to the matched route template; the result names a
 * successor only when a v2 route serves it (checked against the route registry), so a v1-only path gets no Link.
 */
const SUCCESSOR_SEGMENTS: Array<[RegExp, string]> = [
  [/^\/api\/v1\//, '/api/v2/'],
  [/\/project-members(?=\/|$)/, '/members'],
  [/\/(cycle|module)-issues(\/:[a-z_]+)?$/, '/work-items'],
  [/\/transfer-issues$/, '/transfer'],
];

function isV1(req: FastifyRequest): boolean {
  const url = req.originalUrl ?? req.url;
  return url.startsWith(V1_PREFIX);
}

/** The v2 path serving the same resource as this v1 request, or null when v2 has none. */
export function successorPath(req: FastifyRequest): string | null {
  const template = req.routeOptions.url;
  if (!template || !template.startsWith('/api/v1/')) return null;
  let v2 = template;
  for (const [from, to] of SUCCESSOR_SEGMENTS) v2 = v2.replace(from, to);
  const params = (req.params ?? {}) as Record<string, string>;
  const concrete = v2.replace(/:([a-z_]+)/g, (_m, name: string) => encodeURIComponent(params[name] ?? ''));
  return allowedMethodsFor(concrete).length ? `${concrete}/` : null;
}

interface Problem {
  code?: string;
  detail?: string;
  title?: string;
  errors?: Array<{ field: string; message: string }>;
}

/**
 * v1's error body: plain JSON with `error` (the message, as v1 always answered) and the stable `code` v2 names, plus
 * each field's messages under its name in `errors` (the serializer-error form v1 clients read). Never problem+json.
 */
export function v1ErrorBody(problem: Problem): Record<string, unknown> {
  const message = problem.detail ?? problem.title ?? 'Request failed.';
  // `detail` too: the key Django REST framework's errors carry, which v1 clients (Plane's SDK) read.
  const body: Record<string, unknown> = { error: message, detail: message };
  if (problem.code) body.code = problem.code;
  if (problem.errors?.length) {
    const fields: Record<string, string[]> = {};
    for (const e of problem.errors) (fields[e.field] ??= []).push(e.message);
    body.errors = fields;
  }
  return body;
}

function toV1Error(payload: unknown): unknown {
  try {
    const text = Buffer.isBuffer(payload) ? payload.toString('utf8') : String(payload);
    return JSON.stringify(v1ErrorBody(JSON.parse(text) as Problem));
  } catch {
    return payload;
  }
}

/**
 * The edge of v1, on every /api/v1/ response whatever answered it (a controller, the guards, a Fastify refusal):
 * maintenance-mode headers (Deprecation, the v2 successor, Sunset when configured) and v1's error bodies.
 */
export function installV1Edge(fastify: FastifyInstance, settings: V1Settings): void {
  fastify.addHook('onSend', (req: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
    if (!isV1(req)) return done(null, payload);
    reply.header('Deprecation', DEPRECATED_AT);
    const successor = successorPath(req);
    if (successor) reply.header('Link', `<${successor}>; rel="successor-version"`);
    if (settings.sunset) reply.header('Sunset', settings.sunset);
    const type = String(reply.getHeader('content-type') ?? '');
    if (!type.startsWith('application/problem+json')) return done(null, payload);
    reply.header('content-type', 'application/json; charset=utf-8');
    done(null, toV1Error(payload));
  });
}
