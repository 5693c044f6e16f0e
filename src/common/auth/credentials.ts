import { createHash, randomBytes } from 'node:crypto';

/** Credentials are random 256-bit secrets; only their SHA-256 is stored (fast, and safe for random secrets). */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function newApiKey(): string {
  return `wt_api_${randomBytes(32).toString('base64url')}`;
}

export function newAccessToken(): string {
  return `wt_oat_${randomBytes(32).toString('base64url')}`;
}

export interface PresentedCredential {
  kind: 'api_key' | 'oauth';
  secret: string;
}

/**
 * The credential a request presents: a non-empty `X-Api-Key`, else an `Authorization: Bearer <token>`.
 * One parser for the AuthGuard and the rate limiter, so both agree on what counts as a credential.
 */
export function readCredential(headers: Record<string, string | string[] | undefined>): PresentedCredential | null {
  const key = headers['x-api-key'];
  if (typeof key === 'string' && key.length > 0) return { kind: 'api_key', secret: key };
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return { kind: 'oauth', secret: m[1] };
  }
  return null;
}
