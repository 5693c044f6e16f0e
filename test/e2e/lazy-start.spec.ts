import { execFileSync } from 'node:child_process';
import { ensureBuilt, ROOT } from '../helpers/build';
import { createTestDatabase } from '../helpers/database';

/**
 * What the compiled service leaves out of its start because serving does not need it (peak RSS, issue 27;
 * docs/read-path-profile.md, "Peak memory", third and fourth passes): the OpenAPI documents are built by the first
 * request that reads them, oidc-provider (with koa) is loaded by the first OAuth request, ioredis only with
 * REDIS_URL, pg-boss only where there is webhook work (src/webhooks/webhook-queue.ts; webhooks.spec holds when it
 * starts), sanitize-html by the first rich text cleaned, the TEXT pattern sandbox (a vm context) by the first
 * pattern test, and TypeORM loads no database driver but PostgreSQL's (src/common/database/postgres-driver-only.ts).
 * Run in a process of its own so that the module cache is the service's, not Jest's.
 */
const PROBE = `
// The app factory first, as main.ts loads it before the rest (it swaps TypeORM's driver factory before TypeORM loads).
const { loadConfig } = require('./dist/src/common/config/config.js');
const { createApp } = require('./dist/src/app.factory.js');
const { SwaggerModule } = require('@nestjs/swagger');
let documents = 0;
const createDocument = SwaggerModule.createDocument;
SwaggerModule.createDocument = function (...args) {
  documents++;
  return createDocument.apply(this, args);
};
const loaded = (name) => Object.keys(require.cache).some((k) => k.includes('/node_modules/' + name + '/'));
// TypeORM's database drivers in the module cache (driver/<kind>/<Name>Driver.js).
const drivers = () =>
  Object.keys(require.cache)
    .map((k) => /^([^/]+[/][A-Za-z0-9]+Driver)[.]js$/.exec(k.split('/node_modules/typeorm/driver/')[1] ?? '')?.[1])
    .filter(Boolean);
const state = () => ({
  documents,
  ioredis: loaded('ioredis'),
  koa: loaded('koa'),
  pgBoss: loaded('pg-boss'),
  sanitizeHtml: loaded('sanitize-html'),
});
(async () => {
  const app = await createApp(loadConfig(), process.env.DATABASE_URL, { logger: false });
  const fastify = app.getHttpAdapter().getInstance();
  const get = async (url) => (await fastify.inject({ method: 'GET', url })).statusCode;
  const { DataSource } = require('typeorm');
  let otherType;
  try {
    new DataSource({ type: 'mysql' });
  } catch (e) {
    otherType = e.message;
  }
  const out = {
    start: state(),
    contexts: require('v8').getHeapStatistics().number_of_native_contexts,
    drivers: drivers(),
    driver: app.get(DataSource).driver.constructor.name,
    otherType,
  };
  out.schema = [await get('/api/v2/schema/'), await get('/api/v2/schema/'), await get('/api/v1/schema/')];
  out.afterSchema = state();
  out.metadata = await get('/.well-known/oauth-authorization-server');
  out.afterOAuth = state();
  await app.close();
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
})().catch((e) => {
  process.stderr.write(String(e && e.stack));
  process.exit(1);
});
`;

describe('the start leaves out what serving does not need', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    ensureBuilt();
    db = await createTestDatabase();
  }, 240_000);
  afterAll(() => db?.drop());

  it("builds no OpenAPI document, loads neither oidc-provider, ioredis, pg-boss nor sanitize-html until something needs them, and no database driver but PostgreSQL's", () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: db.url,
      REDIS_URL: '',
      METRICS_ENABLED: 'false',
      WEBHOOK_WORKERS: 'false',
      SEED_ON_EMPTY: 'false',
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
    };
    const out = JSON.parse(execFileSync('node', ['-e', PROBE], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 }));
    expect(out.start).toEqual({
      documents: 0,
      ioredis: false,
      koa: false,
      pgBoss: false,
      sanitizeHtml: false,
    });
    // No V8 context beyond a bare node's: the TEXT pattern sandbox (a vm context) is made by the first pattern test.
    const bare = execFileSync(
      'node',
      ['-e', "process.stdout.write(String(require('v8').getHeapStatistics().number_of_native_contexts))"],
      { encoding: 'utf8' },
    );
    expect(out.contexts).toBe(Number(bare));
    // TypeORM's factory loads and creates PostgreSQL's driver only; any other type is refused as TypeORM refuses it.
    expect(out.drivers).toEqual(['postgres/PostgresDriver']);
    expect(out.driver).toBe('PostgresDriver');
    expect(out.otherType).toMatch(/^Wrong driver: "mysql" given\. Supported drivers are: "postgres"\.$/);
    // The first schema request builds v2's document (and v1's its own); later requests serve the same one.
    expect(out.schema).toEqual([200, 200, 200]);
    expect(out.afterSchema.documents).toBe(2);
    expect(out.afterSchema.koa).toBe(false);
    // The authorization server's first request loads the library.
    expect(out.metadata).toBe(200);
    expect(out.afterOAuth).toEqual(
      expect.objectContaining({ documents: 2, ioredis: false, koa: true, pgBoss: false, sanitizeHtml: false }),
    );
  }, 180_000);
});
