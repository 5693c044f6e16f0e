import { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import { AdminService } from '../../src/admin/admin.service';
import { AuthCache } from '../../src/common/auth/auth-cache';
import { AppConfig, loadConfig } from '../../src/common/config/config';
import { createApp } from '../../src/app.factory';
import { createTestDatabase } from './database';
import { loadApiDocuments, validatingAgent } from './openapi-validator';

export const BASE_URL = 'http://localhost:3000';

export interface Tenant {
  slug: string;
  workspaceId: string;
  owner: { id: string; email: string; key: string };
}

export interface TestApp {
  app: NestFastifyApplication;
  http: TestAgent;
  ds: DataSource;
  admin: AdminService;
  dbUrl: string;
  /** Creates a user with an API key. */
  user(email?: string, name?: string): Promise<{ id: string; email: string; key: string }>;
  /** Creates a workspace whose owner holds an API key. */
  tenant(slug?: string): Promise<Tenant>;
  /** Adds a user (created if needed) to a workspace with a role; returns the user with a key. */
  member(slug: string, role: string, email?: string): Promise<{ id: string; email: string; key: string }>;
  /** An OAuth access token with exactly these scopes. */
  token(email: string, scopes: string[]): Promise<string>;
  /**
   * After a change of credentials, memberships or projects written with plain SQL (another connection, as the CLI
   * or another instance would): waits until its notification has reached the app's auth cache.
   */
  authChanged(): Promise<void>;
  /** Creates a project through the API as `key`. */
  project(slug: string, key: string, body?: Record<string, unknown>): Promise<{ id: string; identifier: string }>;
  close(): Promise<void>;
}

let seq = 0;
const uniq = (p: string) => `${p}${Date.now().toString(36)}${(seq++).toString(36)}${Math.floor(Math.random() * 1e4)}`;

/** Boots the real application on a fresh database cloned from the migrated template. */
export async function createTestApp(overrides: Partial<AppConfig> = {}): Promise<TestApp> {
  const [db] = await Promise.all([createTestDatabase(), loadApiDocuments()]);
  const cfg: AppConfig = {
    ...loadConfig(),
    publicBaseUrl: BASE_URL,
    redisUrl: undefined,
    rateLimit: { limit: 100000, ttlMs: 60000 },
    logLevel: 'error',
    dbPoolSize: 5,
    ...overrides,
  };
  const app = await createApp(cfg, db.url, { logger: false });
  await app.getHttpAdapter().getInstance().ready();
  const ds = app.get(DataSource);
  const admin = app.get(AdminService);
  // Every response is checked against the committed OpenAPI document of its path (openapi-validator.ts).
  const http = validatingAgent(request(app.getHttpServer()));

  const t: TestApp = {
    app,
    http,
    ds,
    admin,
    dbUrl: db.url,
    async user(email = `${uniq('u')}@example.com`, name = 'Test User') {
      const u = await admin.createUser(email, name);
      const k = await admin.createApiKey(email);
      return { id: u.id, email: u.email, key: k.key };
    },
    async tenant(slug = uniq('ws')) {
      const owner = await t.user();
      const w = await admin.createWorkspace(slug, `Workspace ${slug}`);
      await admin.addMember(slug, owner.email, 'owner');
      return { slug: w.slug, workspaceId: w.id, owner };
    },
    async member(slug, role, email) {
      const u = await t.user(email);
      await admin.addMember(slug, u.email, role);
      return u;
    },
    async token(email, scopes) {
      return (await admin.createToken(email, scopes)).access_token;
    },
    authChanged() {
      return app.get(AuthCache).sync();
    },
    async project(slug, key, body = {}) {
      const res = await http
        .post(`/api/v2/workspaces/${slug}/projects/`)
        .set('X-Api-Key', key)
        .send({ name: uniq('Project '), ...body });
      if (res.status !== 201) throw new Error(`project create failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async close() {
      await app.close();
      await db.drop();
    },
  };
  return t;
}

/** The `field` of each entry of a problem's `errors`, in order. */
export const errorFields = (body: Record<string, any>): string[] => body.errors.map((e: { field: string }) => e.field);

/** The distinct fields of a problem's `errors`, sorted. */
export const errorFieldSet = (body: Record<string, any>): string[] => [...new Set(errorFields(body))].sort();

/** Asserts a problem+json response with the given status and code; returns its body. */
export function expectProblem(res: request.Response, status: number, code: string): Record<string, any> {
  if (res.status !== status || res.body?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  }
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toEqual(
    expect.objectContaining({
      type: `${BASE_URL}/errors/${code}`,
      title: expect.any(String),
      status,
      code,
      detail: expect.any(String),
    }),
  );
  return res.body;
}

/**
 * Waits until a request's statement is blocked on a row lock the test holds (its SQL matches `queryLike`), so a
 * race can be staged deterministically: the test then changes the data and releases the lock.
 */
export async function waitForLockWait(ds: DataSource, queryLike: string): Promise<void> {
  for (let i = 0; i < 250; i++) {
    const [{ n }] = await ds.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
      [queryLike],
    );
    if (n > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no statement like ${queryLike} waited for a lock within 5 s`);
}
