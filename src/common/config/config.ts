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
}

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

export function loadConfig(): AppConfig {
  const port = int('PORT', 3000);
  return {
    port,
    host: process.env.HOST || '0.0.0.0',
    publicBaseUrl: (process.env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    databaseUrl: process.env.DATABASE_URL || undefined,
    embeddedPgPort: int('EMBEDDED_PG_PORT', 54329),
    dataDir: process.env.DATA_DIR || '.data',
    redisUrl: process.env.REDIS_URL || undefined,
    rateLimit: { limit: int('RATE_LIMIT_MAX', 600), ttlMs: int('RATE_LIMIT_WINDOW_SECONDS', 60) * 1000 },
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024),
    logLevel: process.env.LOG_LEVEL || 'info',
    dbPoolSize: int('DB_POOL_SIZE', 10),
    seedOnEmpty: process.env.SEED_ON_EMPTY !== 'false',
    trustProxy: process.env.TRUST_PROXY === 'true',
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');
