/**
 * Every setting of the service, read once from the environment.
 * `.env.example` lists the same names with their defaults.
 */
export interface AppConfig {
  port: number;
  host: string;
  publicBaseUrl: string;
  databaseUrl: string | undefined;
  embeddedPgPort: number;
  dataDir: string;
  redisUrl: string | undefined;
  rateLimit: { limit: number; ttlMs: number };
  bodyLimitBytes: number;
  logLevel: string;
  dbPoolSize: number;
  seedOnEmpty: boolean;
  /** Honour X-Forwarded-For (client address for per-address rate limits) behind a load balancer. */
  trustProxy: boolean;
  /** Repeated identical failures within this many seconds are one audit entry with a count. */
  auditFailureWindowSeconds: number;
  /** How long a resolved credential is reused (0: looked up on every request); changes invalidate it at once. */
  authCacheTtlSeconds: number;
  /** The OAuth authorization server (src/oauth/): token lifetimes and the sign-in page's attempt budget. */
  oauth: OAuthConfig;
}

export interface OAuthConfig {
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  codeTtlSeconds: number;
  /** Sign-in attempts per client address and per account within the window (429 page above). */
  signInRateLimit: { limit: number; ttlMs: number };
}

/** An integer setting within [min, max]; a bad value stops the start with a message naming the variable. */
function int(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < min || n > max) {
    throw new Error(
      `${name} must be an integer from ${min} to ${max === Number.MAX_SAFE_INTEGER ? 'any size' : max}, got "${raw}"`,
    );
  }
  return n;
}

/** A yes/no setting: true/false, 1/0, yes/no (any case); anything else stops the start. */
function bool(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

/** The log levels of pino (request logs) that the service's own logger understands too. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function publicBaseUrl(port: number): string {
  const raw = process.env.PUBLIC_BASE_URL?.trim();
  if (!raw) return `http://localhost:${port}`;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`PUBLIC_BASE_URL must be an absolute http(s) URL, got "${raw}"`);
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.search || u.hash) {
    throw new Error(`PUBLIC_BASE_URL must be an absolute http(s) URL without query or fragment, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** A connection URL setting with one of `protocols`; the password never appears in the message. */
function serviceUrl(name: string, protocols: string[]): string | undefined {
  const raw = process.env[name]?.trim();
  if (!raw) return undefined;
  let protocol = '';
  try {
    protocol = new URL(raw).protocol;
  } catch {
    // reported below
  }
  if (!protocols.includes(protocol)) {
    throw new Error(
      `${name} must be a ${protocols.map((p) => `${p}//`).join(' or ')} URL, got "${raw.replace(/:[^:@/]*@/, ':***@')}"`,
    );
  }
  return raw;
}

export function loadConfig(): AppConfig {
  const port = int('PORT', 3000, 1, 65535);
  const logLevel = (process.env.LOG_LEVEL || 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(logLevel))
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${process.env.LOG_LEVEL}"`);
  return {
    port,
    host: process.env.HOST || '0.0.0.0',
    publicBaseUrl: publicBaseUrl(port),
    databaseUrl: serviceUrl('DATABASE_URL', ['postgres:', 'postgresql:']),
    embeddedPgPort: int('EMBEDDED_PG_PORT', 54329, 1, 65535),
    dataDir: process.env.DATA_DIR || '.data',
    redisUrl: serviceUrl('REDIS_URL', ['redis:', 'rediss:']),
    rateLimit: { limit: int('RATE_LIMIT_MAX', 600, 1), ttlMs: int('RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400) * 1000 },
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024, 1, 2 ** 31 - 1),
    logLevel,
    dbPoolSize: int('DB_POOL_SIZE', 10, 1, 1000),
    seedOnEmpty: bool('SEED_ON_EMPTY', true),
    trustProxy: bool('TRUST_PROXY', false),
    auditFailureWindowSeconds: int('AUDIT_FAILURE_WINDOW_SECONDS', 60, 1, 86_400),
    authCacheTtlSeconds: int('AUTH_CACHE_TTL_SECONDS', 10, 0, 3_600),
    oauth: {
      accessTokenTtlSeconds: int('OAUTH_ACCESS_TOKEN_TTL_SECONDS', 86_400, 60, 2_592_000),
      refreshTokenTtlSeconds: int('OAUTH_REFRESH_TOKEN_TTL_SECONDS', 2_592_000, 3_600, 31_536_000),
      codeTtlSeconds: int('OAUTH_CODE_TTL_SECONDS', 60, 1, 600),
      signInRateLimit: {
        limit: int('SIGN_IN_RATE_LIMIT_MAX', 10, 1, 10_000),
        ttlMs: int('SIGN_IN_RATE_LIMIT_WINDOW_SECONDS', 900, 1, 86_400) * 1000,
      },
    },
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');
