/**
 * Every route the HTTP server registers, so a request that matches a path but not its method
 * can be answered 405 with an Allow header instead of 404. Filled by a Fastify onRoute hook.
 */
interface RouteEntry {
  pattern: RegExp;
  methods: Set<string>;
}

const routes = new Map<string, RouteEntry>();
/**
 * The routes by their number of path segments (a `*` route under -1: it matches any depth). An unknown path
 * was tested against every route's pattern, 5-8% of the CPU under a flood of unknown paths
 * (docs/read-path-profile.md); only routes of its own depth can match it.
 */
const byDepth = new Map<number, RouteEntry[]>();
const depthOf = (path: string) => path.split('/').length;

function toRegex(url: string): RegExp {
  const escaped = url
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}$`);
}

export function registerRoute(url: string, method: string | string[]): void {
  let entry = routes.get(url);
  if (!entry) {
    entry = { pattern: toRegex(url), methods: new Set() };
    routes.set(url, entry);
    const depth = url.includes('*') ? -1 : depthOf(url);
    byDepth.set(depth, [...(byDepth.get(depth) ?? []), entry]);
  }
  for (const m of Array.isArray(method) ? method : [method]) entry.methods.add(m.toUpperCase());
  literalSiblings.clear();
}

export function allowedMethodsFor(path: string): string[] {
  const allowed = new Set<string>();
  for (const entries of [byDepth.get(depthOf(path)), byDepth.get(-1)]) {
    for (const entry of entries ?? []) if (entry.pattern.test(path)) entry.methods.forEach((m) => allowed.add(m));
  }
  return [...allowed].sort();
}

/**
 * find-my-way prefers a literal segment to a parameter, but falls back to the parameter route when the
 * literal route lacks the method: GET .../work-item-types/enable/ (POST only) reaches GET .../{pk}/ and would
 * be a 400 on pk. The methods of the literal routes that match `path` where `matchedUrl` has a parameter,
 * or null when there are none (the request then runs its matched route). Candidates are found once per route.
 */
export function literalRouteMethods(matchedUrl: string, path: string): string[] | null {
  let siblings = literalSiblings.get(matchedUrl);
  if (!siblings) {
    siblings = [...routes.entries()]
      .filter(([url]) => url !== matchedUrl && moreLiteral(url, matchedUrl))
      .map(([, e]) => e);
    literalSiblings.set(matchedUrl, siblings);
  }
  if (!siblings.length) return null;
  const allowed = new Set<string>();
  for (const e of siblings) if (e.pattern.test(path)) e.methods.forEach((m) => allowed.add(m));
  return allowed.size ? [...allowed].sort() : null;
}

const literalSiblings = new Map<string, RouteEntry[]>();

/** Same shape, and a literal segment where `than` has a parameter at the first difference. */
function moreLiteral(url: string, than: string): boolean {
  const a = url.split('/');
  const b = than.split('/');
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    return !a[i].startsWith(':') && b[i].startsWith(':');
  }
  return false;
}

export function registeredRoutes(): Array<{ url: string; methods: string[] }> {
  return [...routes.entries()].map(([url, e]) => ({ url, methods: [...e.methods] }));
}
