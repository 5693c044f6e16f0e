import { isIP } from 'node:net';

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
  /** On SIGTERM, seconds of /readyz answering 503 (requests still served) before the server stops listening. */
  shutdownDrainSeconds: number;
  /** Prometheus metrics (docs/operations.md). */
  metrics: MetricsSettings;
  /** OpenTelemetry tracing, on when an OTLP endpoint is set (docs/operations.md). */
  tracing: TracingSettings;
  /** Browser origins allowed to call the API (CORS); `['*']` any; empty: no CORS headers. */
  corsOrigins: string[];
  /** The OAuth authorization server (src/oauth/): token lifetimes and the sign-in page's attempt budget. */
  oauth: OAuthConfig;
  /** API v1 (src/v1/): served beside v2 unless switched off; its Sunset date when one is announced. */
  v1: V1Settings;
}

export interface V1Settings {
  enabled: boolean;
  /** HTTP-date sent as `Sunset` on every v1 response (RFC 8594); unset: no Sunset header. */
  sunset: string | undefined;
}

/** V1_SUNSET: an ISO 8601 date or date-time, rendered as the HTTP-date the Sunset header carries. */
function v1Settings(): V1Settings {
  const raw = process.env.V1_SUNSET?.trim();
  let sunset: string | undefined;
  if (raw) {
    const ms = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : NaN;
    if (Number.isNaN(ms)) throw new Error(`V1_SUNSET must be an ISO 8601 date (2027-06-30), got "${raw}"`);
    sunset = new Date(ms).toUTCString();
  }
  return { enabled: bool('API_V1_ENABLED', true), sunset };
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

/** CORS_ORIGINS: comma-separated origins (`https://app.example.com`), or `*` for any; each checked at start. */
function corsOrigins(): string[] {
  const entries = (process.env.CORS_ORIGINS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.includes('*')) return ['*'];
  return entries.map((entry) => {
    let origin = '';
    try {
      origin = new URL(entry).origin;
    } catch {
      // reported below
    }
    if (!/^https?:\/\//.test(origin) || origin !== entry.replace(/\/$/, '').toLowerCase()) {
      throw new Error(
        `CORS_ORIGINS must be a comma-separated list of origins like https://app.example.com (scheme, host, optional port; no path) or *, got "${entry}"`,
      );
    }
    return origin;
  });
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

export interface MetricsSettings {
  /** Off: no request, pool or process metrics are collected and no /metrics is served anywhere. */
  enabled: boolean;
  /** The bearer token a scrape must send; unset: /metrics on the API port answers 401 to everyone. */
  token: string | undefined;
  /** Serve /metrics on this port only (not on the API port). */
  port: number | undefined;
  /** Address of the metrics port; loopback unless the operator opens it. */
  host: string;
}

function metricsSettings(apiPort: number): MetricsSettings {
  const token = process.env.METRICS_TOKEN;
  // A token travels in a header and guards the service's internals: long and without blanks or controls.
  if (token !== undefined && token !== '' && !/^[\x21-\x7e]{16,512}$/.test(token))
    throw new Error('METRICS_TOKEN must be 16 to 512 printable characters without spaces');
  const port = process.env.METRICS_PORT ? int('METRICS_PORT', 0, 1, 65535) : undefined;
  if (port === apiPort) throw new Error(`METRICS_PORT must be a port other than PORT (${apiPort})`);
  const host = process.env.METRICS_HOST?.trim() || '127.0.0.1';
  if (!isIP(host) && !/^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})$/.test(host))
    throw new Error(`METRICS_HOST must be an IP address or host name, got "${host}"`);
  return { enabled: bool('METRICS_ENABLED', true), token: token || undefined, port, host };
}

export interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT (or the traces-only OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): tracing is on when set. */
  endpoint: string | undefined;
  serviceName: string;
}

const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'];
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

/** One of `allowed` (or unset); anything else stops the start. */
function oneOf(name: string, allowed: string[]): void {
  const raw = process.env[name]?.trim();
  if (raw && !allowed.includes(raw)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
}

/**
 * The OpenTelemetry settings the service documents, checked here; the SDK reads them (and any other OTEL_*
 * variable) from the environment itself.
 */
export function tracingSettings(): TracingSettings {
  const endpoint = serviceUrl('OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  const tracesEndpoint = serviceUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']);
  oneOf('OTEL_EXPORTER_OTLP_PROTOCOL', OTLP_PROTOCOLS);
  oneOf('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', OTLP_PROTOCOLS);
  oneOf('OTEL_TRACES_SAMPLER', SAMPLERS);
  const ratio = process.env.OTEL_TRACES_SAMPLER_ARG?.trim();
  if (ratio && !(/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(ratio) && Number(ratio) <= 1))
    throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "${ratio}"`);
  const headers = process.env.OTEL_EXPORTER_OTLP_HEADERS?.trim();
  if (headers && !headers.split(',').every((h) => /^[^=\s]+\s*=\s*\S/.test(h.trim())))
    throw new Error('OTEL_EXPORTER_OTLP_HEADERS must be comma-separated name=value pairs');
  return {
    endpoint: tracesEndpoint ?? endpoint,
    serviceName: process.env.OTEL_SERVICE_NAME?.trim() || 'work-tracking-api',
  };
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
    shutdownDrainSeconds: int('SHUTDOWN_DRAIN_SECONDS', 0, 0, 60),
    metrics: metricsSettings(port),
    tracing: tracingSettings(),
    corsOrigins: corsOrigins(),
    v1: v1Settings(),
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
