import { loadConfig } from '../config/config';
import { startEmbeddedPostgres } from './embedded';

export interface DatabaseTarget {
  url: string;
  embedded: boolean;
  stop: () => Promise<void>;
  /** Takes SIGINT/SIGTERM over from the embedded server's own hooks (see EmbeddedHandle). */
  releaseSignals: () => void;
}

/** DATABASE_URL when set, else the embedded PostgreSQL under DATA_DIR (started if not running). */
export async function resolveDatabase(): Promise<DatabaseTarget> {
  const cfg = loadConfig();
  if (cfg.databaseUrl)
    return { url: cfg.databaseUrl, embedded: false, stop: async () => undefined, releaseSignals: () => undefined };
  const h = await startEmbeddedPostgres(cfg.dataDir, cfg.embeddedPgPort);
  return { url: h.url, embedded: true, stop: h.stop, releaseSignals: h.releaseSignals };
}
