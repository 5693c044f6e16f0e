import { parseAllowList, AllowList } from './address-policy';

/** Webhook delivery settings (README, Configuration), read once at start; a bad value stops the start. */
export interface WebhookSettings {
  /** Run the delivery workers in this instance (every instance writes events; any instance may deliver them). */
  workers: boolean;
  /** Hosts and CIDRs outbound requests may reach although private, loopback or link-local. */
  allowedHosts: AllowList;
  timeoutMs: number;
  /** First retry delay; each retry doubles it (up to retryMaxDelayMs), with jitter of up to half of it. */
  retryBaseMs: number;
  retryMaxDelayMs: number;
  /** A delivery is retried while its first attempt is younger than this. */
  retryWindowSeconds: number;
  /** A webhook whose deliveries have failed without a success for this long is disabled. */
  disableAfterSeconds: number;
  logRetentionDays: number;
  /** How often an idle worker asks for jobs (LISTEN/NOTIFY wakes it at once where available). */
  pollIntervalSeconds: number;
  /** Deliveries attempted at once by one instance (a slow receiver holds one of them, not the whole queue). */
  concurrency: number;
  /** pg-boss connections per instance. */
  poolSize: number;
}

function num(name: string, fallback: number, min: number, max: number, integer = true): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  const ok = integer ? /^\d+$/.test(raw.trim()) : /^\d+(\.\d+)?$/.test(raw.trim());
  if (!ok || n < min || n > max) throw new Error(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
  return n;
}

function flag(name: string, fallback: boolean): boolean {
  const raw = process.env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new Error(`${name} must be true or false, got "${process.env[name]}"`);
}

export function loadWebhookSettings(): WebhookSettings {
  let allowedHosts: AllowList;
  try {
    allowedHosts = parseAllowList(process.env.WEBHOOK_ALLOWED_HOSTS ?? '');
  } catch (err) {
    throw new Error(`WEBHOOK_ALLOWED_HOSTS: ${(err as Error).message}`, { cause: err });
  }
  return {
    workers: flag('WEBHOOK_WORKERS', true),
    allowedHosts,
    timeoutMs: num('WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    retryBaseMs: num('WEBHOOK_RETRY_BASE_MS', 30_000, 10, 3_600_000),
    retryMaxDelayMs: num('WEBHOOK_RETRY_MAX_DELAY_MS', 3_600_000, 10, 86_400_000),
    retryWindowSeconds: num('WEBHOOK_RETRY_WINDOW_SECONDS', 86_400, 0, 7 * 86_400),
    disableAfterSeconds: num('WEBHOOK_DISABLE_AFTER_SECONDS', 86_400, 0, 30 * 86_400),
    logRetentionDays: num('WEBHOOK_LOG_RETENTION_DAYS', 30, 1, 3650),
    pollIntervalSeconds: num('WEBHOOK_POLL_INTERVAL_SECONDS', 2, 0.5, 60, false),
    concurrency: num('WEBHOOK_CONCURRENCY', 4, 1, 64),
    poolSize: num('WEBHOOK_DB_POOL_SIZE', 3, 2, 50),
  };
}

/** The delay before retry number `retry` (1 for the first retry): exponential, "equal jitter" (half fixed, half random). */
export function retryDelayMs(s: Pick<WebhookSettings, 'retryBaseMs' | 'retryMaxDelayMs'>, retry: number): number {
  const full = Math.min(s.retryMaxDelayMs, s.retryBaseMs * 2 ** Math.min(retry - 1, 30));
  return Math.round(full / 2 + (Math.random() * full) / 2);
}
