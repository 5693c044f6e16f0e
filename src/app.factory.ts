// Before TypeORM loads (a process that starts here, as the tests' probes do): PostgreSQL's driver only.
import './common/database/postgres-driver-only';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import type { AppConfig } from './common/config/config';
import { createHttpApp } from './common/http/create-app';

/** The whole application on the shared HTTP stack: what main.ts serves, the CLI documents and the tests boot. */
export function createApp(
  cfg: AppConfig,
  databaseUrl: string,
  opts: { logger?: boolean } = {},
): Promise<NestFastifyApplication> {
  return createHttpApp(cfg, AppModule.forRoot(cfg, databaseUrl), opts);
}
