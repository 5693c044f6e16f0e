import { createHash, timingSafeEqual } from 'node:crypto';
import type { MetricsSettings } from '../config/config';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Who may read /metrics: with METRICS_TOKEN, a request whose `Authorization` is `Bearer <token>` (compared in
 * constant time); without it, nobody on the API port (metrics expose traffic, routes and internals, so they
 * are never open by default) and anybody who can reach the separate METRICS_PORT (loopback unless
 * METRICS_HOST opens it).
 */
export class MetricsAccess {
  private readonly expected: Buffer | undefined;

  constructor(private readonly settings: MetricsSettings) {
    this.expected = settings.token ? digest(settings.token) : undefined;
  }

  /** Whether a request with this Authorization header may scrape, on the API port (`onApiPort`) or the metrics port. */
  allows(authorization: string | undefined, onApiPort: boolean): boolean {
    if (!this.expected) return !onApiPort;
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
    return m !== null && timingSafeEqual(digest(m[1]), this.expected);
  }

  /** What a refused scrape is told. */
  get refusal(): string {
    return this.settings.token
      ? 'Metrics need Authorization: Bearer <METRICS_TOKEN>.'
      : 'Metrics are not served to anybody on the API port until METRICS_TOKEN (or METRICS_PORT) is set.';
  }
}
