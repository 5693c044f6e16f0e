// First: tracing (when configured) must patch pg and node:http before anything loads them.
import { stopTracing } from './common/tracing/register';
import 'reflect-metadata';
// Before TypeORM loads: its factory then loads PostgreSQL's driver only (peak RSS, issue 27).
import './common/database/postgres-driver-only';
import { DataSource } from 'typeorm';
import { AdminService } from './admin/admin.service';
import { loadConfig } from './common/config/config';
import { resolveDatabase } from './common/database/database';
import { dataSourceOptions } from './common/database/data-source';
import { analyzeNeverAnalyzed, runMigrations } from './common/database/migrate';
import { createApp } from './app.factory';
import { inFlightIdle } from './common/http/in-flight';
import { startDraining } from './common/health/draining';

type FirstStart = NonNullable<Awaited<ReturnType<AdminService['bootstrapIfEmpty']>>>;

/** Lines of the start and stop sequence: printed whatever LOG_LEVEL says (an operator always sees them). */
function log(msg: string, extra: Record<string, unknown> = {}) {
  process.stdout.write(JSON.stringify({ level: 30, time: Date.now(), context: 'main', msg, ...extra }) + '\n');
}

/** The first start's owner, workspace and API key: shown once, on the terminal. */
function printFirstStart(seeded: FirstStart, base: string): void {
  process.stdout.write(
    [
      '',
      '  First start: created an owner, a workspace and an API key (shown once, keep it):',
      `    user       ${seeded.email}`,
      `    workspace  ${seeded.workspace}`,
      `    API key    ${seeded.api_key}`,
      `    key id     ${seeded.api_key_id}   (npm run --silent cli -- api-key revoke --id ${seeded.api_key_id})`,
      '',
      `  Swagger UI  ${base}/api/v2/docs/   (Authorize -> ApiKey)`,
      `  Try it      curl -H "X-Api-Key: ${seeded.api_key}" ${base}/api/v2/workspaces/${seeded.workspace}/projects/`,
      '',
    ].join('\n') + '\n',
  );
}

async function main() {
  const cfg = loadConfig();
  const db = await resolveDatabase();
  log(db.embedded ? 'using embedded PostgreSQL' : 'using DATABASE_URL', { embedded: db.embedded });

  const migrator = new DataSource(dataSourceOptions(db.url, 1));
  await migrator.initialize().catch((err: Error) => {
    const u = new URL(db.url);
    throw new Error(
      `could not reach the database at ${u.hostname}:${u.port || 5432}${u.pathname}: ${err?.message ?? err}`,
    );
  });
  const applied = await runMigrations(migrator, db.url);
  if (applied.length) log('migrations applied', { applied });
  // Tables holding rows PostgreSQL never analyzed (a restore, a bulk import, autovacuum off): analyzed before serving.
  const analyzed = await analyzeNeverAnalyzed(migrator);
  await migrator.destroy();
  if (analyzed.length) log('tables never analyzed, analyzed', { analyzed });

  const app = await createApp(cfg, db.url);
  if (cfg.seedOnEmpty) {
    const seeded = await app.get(AdminService).bootstrapIfEmpty();
    if (seeded) printFirstStart(seeded, cfg.publicBaseUrl);
  }
  await app.listen({ port: cfg.port, host: cfg.host });
  log('listening', {
    port: cfg.port,
    docs: `${cfg.publicBaseUrl}/api/v2/docs/`,
    schema: `${cfg.publicBaseUrl}/api/v2/schema/`,
  });

  // Graceful shutdown: stop taking requests, finish in-flight ones, close the pool, then the database.
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log('shutting down', { signal, drain_seconds: cfg.shutdownDrainSeconds });
    const timer = setTimeout(() => process.exit(1), 15000 + cfg.shutdownDrainSeconds * 1000);
    timer.unref();
    try {
      // Out of the balancer's rotation first (/readyz 503), still serving whatever it sends meanwhile: a request
      // on a connection it opened just before the server stopped listening would otherwise meet a closing server.
      startDraining();
      if (cfg.shutdownDrainSeconds > 0) await new Promise((r) => setTimeout(r, cfg.shutdownDrainSeconds * 1000));
      // Stop taking connections first. A client that hung up lets the server finish closing while its
      // handler still runs; Nest's close() would then end the database pool under it, so wait for the
      // handlers before that.
      await app.getHttpAdapter().getInstance().close();
      await inFlightIdle(10000);
      await app.close();
      await stopTracing();
      await db.stop();
    } finally {
      process.exit(0);
    }
  };
  db.releaseSignals();
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  const detail = err === undefined ? 'no reason given (embedded PostgreSQL?)' : String(err?.stack ?? err);
  process.stderr.write(JSON.stringify({ level: 60, time: Date.now(), msg: 'startup failed', err: detail }) + '\n');
  process.exit(1);
});
