import 'reflect-metadata';
import { join } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { PreparingClient } from './statement-cache';
import { installUuidArrayParser } from './uuid-arrays';
import { MIGRATIONS } from '../../../migrations';

/**
 * Entities are discovered, not listed: every `*.entity.ts` under src/ (`.js` once
 * built), beside its feature. A new
 * entity file is found without touching src/common; the schema-drift test then demands its migration.
 */
export const ENTITY_FILES = join(__dirname, '..', '..', '**', '*.entity.{ts,js}');

/** The service's session settings unless DATABASE_URL gives `options` of its own (see dataSourceOptions). */
export const SESSION_OPTIONS = '-c max_parallel_workers_per_gather=0 -c jit=off';

export function dataSourceOptions(url: string, poolSize = 10): DataSourceOptions {
  // Every connection of the process reads uuid[] columns (the work items' id arrays) without postgres-array's cost.
  installUuidArrayParser();
  return {
    type: 'postgres',
    url,
    entities: [ENTITY_FILES],
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    uuidExtension: 'pgcrypto',
    migrationsRun: false,
    logging: false,
    extra: {
      max: poolSize,
      application_name: 'work-tracking-api',
      // A database that accepts connections but never answers must not hang requests, probes or the start.
      connectionTimeoutMillis: 10_000,
      Client: PreparingClient,
      // Many short concurrent requests: a parallel plan only adds worker start-up and contention (a
      // filtered page measured 10 ms parallel vs 0.4 ms serial at a million items), and JIT compiles a statement
      // whose estimated cost passes jit_above_cost when it runs: a bounded page whose plan holds a costly branch it
      // seldom takes paid 40 ms of compilation to run in 4 ms (docs/work-items-plans.md). Options given in
      // DATABASE_URL (`?options=-c …`) take precedence.
      ...(/[?&]options=/.test(url) ? {} : { options: SESSION_OPTIONS }),
    },
  };
}

/** Used by the TypeORM CLI (migration:generate) with DATABASE_URL. */
export default new DataSource(
  dataSourceOptions(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'),
);
