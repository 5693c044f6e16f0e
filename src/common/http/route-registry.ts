/**
 * Every route the HTTP server registers, so a request that matches a path but not its method
 * can be answered 405 with an Allow header instead of 404. Filled by a Fastify onRoute hook.
 */
interface RouteEntry {
  pattern: RegExp;
  methods: Set<string>;
}

const routes = new Map<string, RouteEntry>();

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
  }
  for (const m of Array.isArray(method) ? method : [method]) entry.methods.add(m.toUpperCase());
}

export function allowedMethodsFor(path: string): string[] {
  const allowed = new Set<string>();
  for (const entry of routes.values()) {
    if (entry.pattern.test(path)) entry.methods.forEach((m) => allowed.add(m));
  }
  return [...allowed].sort();
}

export function registeredRoutes(): Array<{ url: string; methods: string[] }> {
  return [...routes.entries()].map(([url, e]) => ({ url, methods: [...e.methods] }));
}
