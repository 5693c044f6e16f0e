import { AuthCache } from '../../src/common/auth/auth-cache';
import { CredentialUsage } from '../../src/common/auth/credential-usage';
import { createTestApp, TestApp } from '../helpers/test-app';

/** When each API key was last used (admin CLI `api-key list`), recorded without a write per request. */
describe('API key last use', () => {
  let t: TestApp;
  let usage: CredentialUsage;
  beforeAll(async () => {
    t = await createTestApp();
    usage = t.app.get(CredentialUsage);
  });
  afterAll(() => t?.close());

  const lastUsed = async (email: string) =>
    (
      await t.ds.query(`SELECT k.last_used_at FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = $1`, [
        email,
      ])
    )[0].last_used_at as Date | null;

  it('is stamped for the keys used, in one statement per interval, never moved back', async () => {
    const used = await t.user();
    const idle = await t.user();
    const before = Date.now();
    for (let i = 0; i < 3; i++)
      expect((await t.http.get('/api/v2/users/me/').set('X-Api-Key', used.key)).status).toBe(200);
    // Nothing is written per request.
    expect(await lastUsed(used.email)).toBeNull();
    await usage.flush();
    const stamped = await lastUsed(used.email);
    expect(stamped).not.toBeNull();
    expect(stamped!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(await lastUsed(idle.email)).toBeNull();
    // A later stamp from another instance is kept: an older one does not replace it.
    await t.ds.query(`UPDATE api_keys SET last_used_at = now() + interval '1 hour' WHERE last_used_at IS NOT NULL`);
    const later = await lastUsed(used.email);
    await t.http.get('/api/v2/users/me/').set('X-Api-Key', used.key);
    await usage.flush();
    expect(await lastUsed(used.email)).toEqual(later);
  });

  it("a stamp does not empty the instances' auth caches (a revocation still does)", async () => {
    const cache = t.app.get(AuthCache);
    const u = await t.user();
    await t.authChanged();
    expect((await t.http.get('/api/v2/users/me/').set('X-Api-Key', u.key)).status).toBe(200);
    const cached = cache.size;
    expect(cached).toBeGreaterThan(0);
    await usage.flush();
    await t.authChanged();
    expect(cache.size).toBe(cached);
    await t.ds.query(`UPDATE api_keys SET revoked_at = now() WHERE revoked_at IS NULL AND last_used_at IS NOT NULL`);
    await t.authChanged();
    expect(cache.size).toBe(0);
  });
});
