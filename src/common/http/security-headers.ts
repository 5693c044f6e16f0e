import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/**
 * The security headers helmet sets, computed once at start. Our options are static (no CSP nonces), so
 * every response gets the same headers; @fastify/helmet instead rebuilt helmet's middleware, parsing every
 * directive again, on each request (about 2.5% of the service's CPU under load).
 *
 * Over plain http (a LAN install, the default http://localhost:PORT) a browser must not be told to
 * upgrade requests to https: Swagger UI's own assets and calls would fail. HSTS and COOP only mean
 * something over https (browsers ignore them, with a console error, on an untrustworthy origin).
 */
export function securityHeaders(https: boolean): ReadonlyArray<[string, string]> {
  const headers = new Map<string, string>();
  const res = {
    setHeader: (name: string, value: string | number | string[]) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
  };
  helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", "'unsafe-inline'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        upgradeInsecureRequests: https ? [] : null,
      },
    },
    strictTransportSecurity: https,
    crossOriginOpenerPolicy: https,
  })({} as IncomingMessage, res as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err instanceof Error ? err : new Error('helmet failed');
  });
  if (!headers.size) throw new Error('helmet set no headers');
  return [...headers];
}
