/**
 * The spec's trailing-slash rule, enforced once before routing.
 *
 * Nest strips a trailing '/' from route paths, so controllers declare paths without it. Every v2
 * request URL must end with '/': we strip that slash before the router sees the URL, and send a URL
 * without it to a prefix no route matches, so it becomes the 404 problem. The OpenAPI document gets
 * the slash written back (see openapi/openapi.ts).
 */
export const NO_SLASH_PREFIX = '/__no-trailing-slash__';
/** The versioned API prefixes (v1 runs beside v2 in maintenance mode, src/v1/); the same rule holds for both. */
const VERSIONS = ['/api/v2/', '/api/v1/'];
const EXEMPT = ['/api/v2/docs', '/api/v1/docs'];

export function rewriteUrl(url: string): string {
  // The error catalogue's address is /errors/ (Nest's route is /errors).
  if (url === '/errors/' || url.startsWith('/errors/?')) return '/errors' + url.slice('/errors/'.length);
  const prefix = VERSIONS.find((v) => url.startsWith(v));
  if (!prefix) return url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q);
  if (EXEMPT.some((p) => path === p || path.startsWith(p + '/'))) return url;
  if (path.endsWith('/')) return path.length > prefix.length ? path.slice(0, -1) + query : url;
  return NO_SLASH_PREFIX + path + query;
}

/** The public form of a route path: Nest's `/api/v2/x/{id}` becomes `/api/v2/x/{id}/`. */
export function publicPath(path: string): string {
  return VERSIONS.some((v) => path.startsWith(v)) && !path.endsWith('/') && !EXEMPT.some((p) => path.startsWith(p))
    ? path + '/'
    : path;
}
