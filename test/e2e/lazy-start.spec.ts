import { execFileSync } from 'node:child_process';
import { ensureBuilt, ROOT } from '../helpers/build';
import { createTestDatabase } from '../helpers/database';

/**
 * What the compiled service leaves out of its start because serving does not need it (peak RSS, issue 27;
 * docs/read-path-profile.md, "Peak memory, third pass"): the OpenAPI documents are built by the first request that
 * reads them, oidc-provider (with koa) is loaded by the first OAuth request, and ioredis only with REDIS_URL. Run
 * in a process of its own so that the module cache is the service's, not Jest's.
 */
const PROBE = `
const { SwaggerModule } = require('@nestjs/swagger');
let documents = 0;
const createDocument = SwaggerModule.createDocument;
SwaggerModule.createDocument = function (...args) {
  documents++;
  return createDocument.apply(this, args);
};
const { loadConfig } = require('./dist/src/common/config/config.js');
const { createApp } = require('./dist/src/app.factory.js');
const loaded = (name) => Object.keys(require.cache).some((k) => k.includes('/node_modules/' + name + '/'));
const state = () => ({ documents, ioredis: loaded('ioredis'), koa: loaded('koa') });
(async () => {
  const app = await createApp(loadConfig(), process.env.DATABASE_URL, { logger: false });
  const fastify = app.getHttpAdapter().getInstance();
  const get = async (url) => (await fastify.inject({ method: 'GET', url })).statusCode;
  const out = { start: state() };
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

  it('builds no OpenAPI document and loads neither oidc-provider nor ioredis until a request needs them', () => {
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
    expect(out.start).toEqual({ documents: 0, ioredis: false, koa: false });
    // The first schema request builds v2's document (and v1's its own); later requests serve the same one.
    expect(out.schema).toEqual([200, 200, 200]);
    expect(out.afterSchema.documents).toBe(2);
    expect(out.afterSchema.koa).toBe(false);
    // The authorization server's first request loads the library.
    expect(out.metadata).toBe(200);
    expect(out.afterOAuth).toEqual({ documents: 2, ioredis: false, koa: true });
  }, 180_000);
});
