import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/** Response headers of the API a browser app may read (CORS hides every other one from its scripts). */
export const EXPOSED_HEADERS = [
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'ETag',
  'Idempotent-Replayed',
  'X-Request-Id',
  'Link',
  'Deprecation',
  'Allow',
  'WWW-Authenticate',
];

/** How long a browser may reuse a preflight answer, in seconds: 2 hours, the most Chromium keeps one. */
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/**
 * CORS for the browser apps at `origins` (CORS_ORIGINS), through @fastify/cors (Nest's enableCors on Fastify
 * registers it, with its request hook ahead of every other, so refusals such as a 401 carry the headers too).
 * Credentials are headers (X-Api-Key, Authorization), never cookies: no Access-Control-Allow-Credentials. The
 * request headers a preflight asks for are allowed as asked; only the origin is checked. Without origins nothing
 * is registered: no CORS headers, and OPTIONS is not a route, as before.
 */
export function enableCors(app: NestFastifyApplication, origins: string[]): void {
  if (!origins.length) return;
  app.enableCors({
    origin: origins.includes('*') ? '*' : origins,
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    credentials: false,
  });
}
