import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { AuthRepository } from './auth.repository';

/** How often the uses seen are written: `last_used_at` is at most this far behind. */
export const KEY_USE_FLUSH_MS = 30_000;

/**
 * When each API key was last used (admin CLI `api-key list`). A write per request would cost every request a
 * statement; the guard notes the use in memory instead and one statement per interval stamps every key used
 * since, and the rest at shutdown. A crash loses at most an interval of stamps, which only make them older.
 */
@Injectable()
export class CredentialUsage implements BeforeApplicationShutdown {
  private readonly logger = new Logger('CredentialUsage');
  private readonly seen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly repo: AuthRepository) {}

  /** A request authenticated with this credential now. */
  note(kind: 'api_key' | 'oauth', credentialId: string): void {
    if (kind !== 'api_key') return;
    this.seen.set(credentialId, Date.now());
    this.timer ??= setTimeout(() => void this.flush(), KEY_USE_FLUSH_MS).unref();
  }

  /** Writes the uses noted so far (a failure is logged: the stamps are advisory). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.seen.size) return;
    const ids = [...this.seen.keys()];
    const times = ids.map((id) => new Date(this.seen.get(id)!));
    this.seen.clear();
    await this.repo.stampKeysUsed(ids, times).catch((err: Error) => {
      this.logger.warn(`could not record API key use: ${err.message}`);
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }
}
