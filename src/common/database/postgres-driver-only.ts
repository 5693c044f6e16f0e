/**
 * TypeORM's DriverFactory requires, when TypeORM loads, the driver of every database TypeORM supports (MySQL,
 * Oracle, SQL Server, SAP, Spanner, MongoDB, CockroachDB, SQLite kinds, ...), and V8 keeps each module's source and
 * code for the life of the process: about 1.4 MB of heap for drivers the service never creates (peak RSS, issue 27;
 * docs/read-path-profile.md, "Peak memory, fourth pass"). This module registers, under the factory module's file
 * name, a factory that creates PostgreSQL's driver only, so that TypeORM's DataSource takes it instead. It must
 * run before anything requires TypeORM: the entry points (main, cli, the app factory) import it first. Loaded
 * later it changes nothing (the real factory is then already in the module cache and stays there).
 */
import Module from 'node:module';
import type { DataSource, Driver } from 'typeorm';

export const DRIVER_FACTORY_FILE = require.resolve('typeorm/driver/DriverFactory');

/** What DataSource asks of its factory: `new DriverFactory().create(dataSource)`. */
class PostgresDriverFactory {
  create(dataSource: DataSource): Driver {
    const { type } = dataSource.options;
    // Required here, not above: requiring them at this module's load would load TypeORM before the swap.
    /* eslint-disable @typescript-eslint/no-require-imports */
    if (type !== 'postgres') {
      const { MissingDriverError } = require('typeorm/error/MissingDriverError') as typeof import('typeorm');
      throw new MissingDriverError(type, ['postgres']);
    }
    const { PostgresDriver } =
      require('typeorm/driver/postgres/PostgresDriver') as typeof import('typeorm/driver/postgres/PostgresDriver');
    /* eslint-enable @typescript-eslint/no-require-imports */
    return new PostgresDriver(dataSource);
  }
}

if (!require.cache[DRIVER_FACTORY_FILE]) {
  const factory = new Module(DRIVER_FACTORY_FILE);
  factory.filename = DRIVER_FACTORY_FILE;
  factory.loaded = true;
  factory.exports = { DriverFactory: PostgresDriverFactory };
  require.cache[DRIVER_FACTORY_FILE] = factory;
}
