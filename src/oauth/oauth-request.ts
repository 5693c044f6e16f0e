import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyRequest } from 'fastify';
import { normalizeIp } from '../audit/audit.service';

/** What the audit trail needs of the HTTP request an authorization server call serves. */
export interface OAuthRequestInfo {
  ip: string | null;
  userAgent: string;
  requestId: string;
  /** The route's public path, e.g. `/auth/o/token/`. */
  path: string;
}

/**
 * The request being served, for code that oidc-provider calls without it (the storage adapter, its events):
 * set around each hand-over to the provider, so every record written while serving it knows its address.
 */
export const oauthRequest = new AsyncLocalStorage<OAuthRequestInfo>();

export function requestInfo(req: FastifyRequest): OAuthRequestInfo {
  return {
    ip: normalizeIp(req.ip),
    userAgent: req.headers['user-agent'] ?? '',
    requestId: String(req.id),
    path: req.originalUrl.split('?')[0],
  };
}
