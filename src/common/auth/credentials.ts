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
