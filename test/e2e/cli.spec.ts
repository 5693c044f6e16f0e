import { execFile } from 'node:child_process';
import { CredentialUsage } from '../../src/common/auth/credential-usage';
import { auditEntries } from '../helpers/audit';
import { DIST_CLI, ensureBuilt, ROOT } from '../helpers/build';
import { createTestApp, expectProblem, TestApp } from '../helpers/test-app';

/**
 * The admin CLI as an operator runs it (`node dist/src/cli.js ...`, what `npm run --silent cli --`
 * runs), against this test's database through DATABASE_URL.
 */
const CLI = DIST_CLI;

/** Runs the tasks three at a time (each is a node process starting Nest), keeping their order. */
async function inParallel<T>(tasks: Array<() => Promise<T>>, width = 3): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const i = next++;
        out[i] = await tasks[i]();
      }
    }),
  );
  return out;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

// A test runs up to three CLI processes one after the other, each a node process starting Nest: about a second
// of CPU each, but 10-20 s on a 2-core CI machine that runs the other suites beside it. The per-test limit covers
// three such runs; each run keeps its own 60 s limit (execFile below).
jest.setTimeout(180_000);

describe('admin CLI', () => {
  let t: TestApp;
  let cli: (...args: string[]) => Promise<Run>;
  beforeAll(async () => {
    ensureBuilt();
    t = await createTestApp();
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: t.dbUrl, LOG_LEVEL: 'error' };
    delete env.REDIS_URL;
    cli = (...args: string[]) =>
      new Promise((res) => {
        execFile(
          'node',
          [CLI, ...args],
          { cwd: ROOT, env, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
          (err, stdout, stderr) => {
            // A run stopped by the 60 s limit has no exit code and, often, nothing on stderr: say so, or the
            // failure reads as a CLI that exited 1 silently.
            const killed = err?.killed ? `\n[the test killed this run: ${err.signal} after 60 s]` : '';
            res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr: stderr + killed });
          },
        );
      });
  }, 180_000);
  afterAll(() => t?.close());

  /** Exactly one JSON object on stdout (one line), nothing on stderr, exit 0. */
  async function ok(...args: string[]): Promise<Record<string, any>> {
    const r = await cli(...args);
    if (r.code !== 0) throw new Error(`cli ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    expect(r.stderr).toBe('');
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
    const out = JSON.parse(r.stdout);
    expect(out !== null && typeof out === 'object' && !Array.isArray(out)).toBe(true);
    return out;
  }

  /** Non-zero exit, nothing on stdout, exactly one line on stderr; returns that line. */
  async function fails(...args: string[]): Promise<{ code: number; line: string }> {
    const r = await cli(...args);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0].length).toBeGreaterThan(0);
    return { code: r.code, line: lines[0] };
  }

  const slug = `cli-${Date.now().toString(36)}`;
  const email = `cli-${Date.now().toString(36)}@example.com`;
  let keyId: string;
  let key: string;

  it('migrate reports what it applied (nothing on a migrated database)', async () => {
    expect(await ok('migrate')).toEqual({ applied: [] });
  });

  it('workspace create -> {id, slug, name}', async () => {
    const out = await ok('workspace', 'create', '--slug', slug, '--name', 'CLI Workspace');
    expect(out).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), slug, name: 'CLI Workspace' });
  });

  it('user create -> {id, email, display_name}', async () => {
    const out = await ok('user', 'create', `--email=${email.toUpperCase()}`, '--display-name', 'Cli User');
    expect(out).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), email, display_name: 'Cli User' });
    // Lengths are characters, as the column counts them: 200 emoji (400 UTF-16 units) fit in 255.
    expect(
      (await ok('user', 'create', '--email', `emoji-${email}`, '--display-name', '😀'.repeat(200))).display_name,
    ).toBe('😀'.repeat(200));
  });

  it('member add -> {id, member_id, role}', async () => {
    const out = await ok('member', 'add', '--workspace', slug, '--email', email, '--role', 'owner');
    expect(Object.keys(out).sort()).toEqual(['id', 'member_id', 'role']);
    expect(out.role).toBe('owner');
    const again = await ok('member', 'add', '--workspace', slug, '--email', email, '--role', 'owner');
    expect(again).toEqual(out);
  });

  it('api-key create -> {id, key}; the key works against the app', async () => {
    const out = await ok('api-key', 'create', '--email', email, '--label', 'ci');
    expect(Object.keys(out).sort()).toEqual(['id', 'key']);
    ({ id: keyId, key } = out as { id: string; key: string });
    const me = await t.http.get('/api/v2/users/me/').set('X-Api-Key', key);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email, principal_kind: 'api_key', scopes: [] });
    const created = await t.http
      .post(`/api/v2/workspaces/${slug}/projects/`)
      .set('X-Api-Key', key)
      .send({ name: 'Made with a CLI key' });
    expect(created.status).toBe(201);
    // Only the hash is stored.
    const rows = await t.ds.query(`SELECT key_hash FROM api_keys WHERE id = $1`, [keyId]);
    expect(rows[0].key_hash).not.toContain(key);
  });

  it('workspace create and user create are audited (source admin): the workspace trail through the API, the instance trail', async () => {
    const reader = { slug, key };
    const [created] = await auditEntries(t, reader, { event_name: 'workspace.created' });
    expect(created).toMatchObject({
      category: 'instance',
      outcome: 'success',
      source: 'admin',
      actor_type: 'system',
      actor_id: null,
      user_agent: 'admin-cli',
      target_type: 'workspace',
      target_display_name: 'CLI Workspace',
      new_value: { slug, name: 'CLI Workspace' },
    });
    expect(created.target_id).toBe(created.workspace_id);
    // A new user belongs to no workspace: user.created is in the instance trail only, read with `audit list --instance`.
    const user = (await t.ds.query(`SELECT id FROM users WHERE email = $1`, [email]))[0];
    const page = await ok('audit', 'list', '--instance', '--event-name', 'user.created', '--target-id', user.id);
    const rows = page.data;
    expect(rows).toHaveLength(1);
    expect(page.total_count).toBe(1);
    expect(rows[0]).toMatchObject({
      workspace_id: null,
      category: 'instance',
      source: 'admin',
      actor_type: 'system',
      target_type: 'user',
      new_value: { id: user.id, email, display_name: 'Cli User' },
    });
  });

  it("audit list reads a trail with the API list's filters, orderings and pagination: the instance trail, or a workspace's by slug", async () => {
    // The workspace trail through the CLI is the API's list, entry for entry.
    const viaApi = await auditEntries(t, { slug, key }, { event_name: 'workspace.created' });
    const viaCli = await ok('audit', 'list', '--workspace', slug, '--event-name', 'workspace.created');
    expect(viaCli.data).toEqual(viaApi);
    // The instance trail holds entries of no workspace only; a cursor walk over it ends.
    await ok('user', 'create', '--email', `walker-${Date.now().toString(36)}@example.com`, '--display-name', 'Walker');
    const first = await ok(
      'audit',
      'list',
      '--instance',
      '--paginate',
      'cursor',
      '--order-by',
      'created_at',
      '--per-page',
      '1',
    );
    expect(first.data).toHaveLength(1);
    expect(first.data[0].workspace_id).toBeNull();
    const seen = [first.data[0].id];
    let cursor: string | null = first.has_more ? first.next_cursor : null;
    while (cursor) {
      const next = await ok(
        'audit',
        'list',
        '--instance',
        '--paginate',
        'cursor',
        '--order-by',
        'created_at',
        '--per-page',
        '1',
        '--cursor',
        cursor,
      );
      seen.push(...next.data.map((e: { id: string }) => e.id));
      cursor = next.has_more ? next.next_cursor : null;
    }
    const stored = await t.ds.query(`SELECT id FROM audit_logs WHERE workspace_id IS NULL ORDER BY created_at, id`);
    expect(seen).toEqual(stored.map((r: { id: string }) => r.id));
    expect(seen.length).toBeGreaterThan(1);
  });

  it('member add (demotion to guest) and member remove -> {id, member_id, role, project_memberships_removed}, audited', async () => {
    const reader = { slug, key };
    const other = `cli2-${Date.now().toString(36)}@example.com`;
    const u = await ok('user', 'create', '--email', other, '--display-name', 'Cli Two');
    const membership = await ok('member', 'add', '--workspace', slug, '--email', other, '--role', 'member');
    const p = (
      await t.http.post(`/api/v2/workspaces/${slug}/projects/`).set('X-Api-Key', key).send({ name: 'CLI removal' })
    ).body;
    const pm = (
      await t.http
        .post(`/api/v2/workspaces/${slug}/projects/${p.id}/members/`)
        .set('X-Api-Key', key)
        .send({ member_id: u.id, role: 'contributor' })
    ).body;
    expect(pm.role).toBe('contributor');

    // --workspace is read as workspace create stores slugs: trimmed, any case.
    expect(
      await ok('member', 'add', '--workspace', ` ${slug.toUpperCase()} `, '--email', other, '--role', 'guest'),
    ).toEqual({ ...membership, role: 'guest' });
    const admin = { source: 'admin', actor_type: 'system', actor_id: null, category: 'member', outcome: 'success' };
    const [capped] = await auditEntries(t, reader, { event_name: 'project_member.role_updated', target_id: pm.id });
    expect(capped).toMatchObject({
      ...admin,
      project_id: p.id,
      old_value: { role: 'contributor' },
      new_value: { role: 'commenter' },
      metadata: { member_id: u.id, reason: 'workspace_demoted_to_guest' },
    });

    const out = await ok('member', 'remove', '--workspace', slug, '--email', other.toUpperCase());
    expect(out).toEqual({ id: membership.id, member_id: u.id, role: 'guest', project_memberships_removed: 1 });
    expect(
      (await t.http.get(`/api/v2/workspaces/${slug}/members/?member_id=${u.id}`).set('X-Api-Key', key)).body.data,
    ).toEqual([]);
    const [removed] = await auditEntries(t, reader, { event_name: 'member.removed', target_id: membership.id });
    expect(removed).toMatchObject({
      ...admin,
      target_type: 'workspace_member',
      old_value: { role: 'guest' },
      new_value: null,
      metadata: { member_id: u.id, project_memberships_removed_in: [p.id] },
    });
    const [pmRemoved] = await auditEntries(t, reader, { event_name: 'project_member.removed', target_id: pm.id });
    expect(pmRemoved).toMatchObject({
      ...admin,
      project_id: p.id,
      old_value: { role: 'commenter' },
      metadata: { member_id: u.id, reason: 'workspace_member_removed' },
    });
    // No longer a member: a second removal fails.
    expect((await fails('member', 'remove', '--workspace', slug, '--email', other)).line).toMatch(
      /^resource_not_found/,
    );
  });

  it('token create -> {access_token, scopes, expires_in}; the token is capped by exactly those scopes', async () => {
    const out = await ok(
      'token',
      'create',
      '--email',
      email,
      '--scopes',
      'projects:read, workspaces.members:read',
      '--ttl',
      '600',
    );
    expect(out).toEqual({
      access_token: expect.any(String),
      scopes: ['projects:read', 'workspaces.members:read'],
      expires_in: 600,
    });
    const auth = { Authorization: `Bearer ${out.access_token}` };
    const me = await t.http.get('/api/v2/users/me/').set(auth);
    expect(me.body).toMatchObject({
      email,
      principal_kind: 'oauth',
      scopes: ['projects:read', 'workspaces.members:read'],
    });
    expect((await t.http.get(`/api/v2/workspaces/${slug}/projects/`).set(auth)).status).toBe(200);
    expect((await t.http.get(`/api/v2/workspaces/${slug}/members/`).set(auth)).status).toBe(200);
    expectProblem(
      await t.http.post(`/api/v2/workspaces/${slug}/projects/`).set(auth).send({ name: 'Nope' }),
      403,
      'forbidden',
    );
  });

  it('api-key list -> {data: [{id, label, key_prefix, created_at, last_used_at, revoked_at, expires_at}]}, never a secret', async () => {
    const second = await ok('api-key', 'create', '--email', email);
    // The key made above was used against the app; its servers stamp uses in batches (flushed here at once).
    await t.app.get(CredentialUsage).flush();
    const out = await ok('api-key', 'list', '--email', email.toUpperCase());
    const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/);
    expect(out).toEqual({
      data: [
        {
          id: keyId,
          label: 'ci',
          key_prefix: key.slice(0, 12),
          created_at: iso,
          last_used_at: iso,
          revoked_at: null,
          expires_at: null,
        },
        { ...out.data[1], id: second.id, label: '', last_used_at: null, revoked_at: null },
      ],
    });
    expect(JSON.stringify(out)).not.toContain(key);
    expect((await fails('api-key', 'list', '--email', 'nobody@example.com')).line).toMatch(/^resource_not_found/);
  });

  it('user list -> {data: [{id, email, display_name, is_active, created_at}]}, every user oldest first', async () => {
    const out = await ok('user', 'list');
    const stored = await t.ds.query(`SELECT id FROM users WHERE deleted_at IS NULL ORDER BY created_at, id`);
    expect(out.data.map((u: { id: string }) => u.id)).toEqual(stored.map((r: { id: string }) => r.id));
    expect(out.data.find((u: { email: string }) => u.email === email)).toEqual({
      id: expect.any(String),
      email,
      display_name: 'Cli User',
      is_active: true,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
  });

  it("member list --workspace S -> the API's member list (expand=member), with its filters and pagination", async () => {
    const viaApi = await t.http.get(`/api/v2/workspaces/${slug}/members/?expand=member`).set('X-Api-Key', key);
    expect(viaApi.status).toBe(200);
    const viaCli = await ok('member', 'list', '--workspace', slug);
    expect(viaCli).toEqual(viaApi.body);
    expect(viaCli.data.map((m: { member: { email: string } }) => m.member.email)).toContain(email);
    const owners = await ok('member', 'list', '--workspace', slug, '--role', 'owner', '--per-page', '1');
    expect(owners.data).toHaveLength(1);
    expect(owners.data[0]).toMatchObject({ role: 'owner', member: { email } });
    expect((await fails('member', 'list', '--workspace', 'no-such-workspace')).line).toMatch(/^resource_not_found/);
  });

  it('api-key revoke -> {id, user_id, revoked_at}; the key stops working; a second revoke fails', async () => {
    const out = await ok('api-key', 'revoke', '--id', keyId);
    expect(out).toEqual({
      id: keyId,
      user_id: expect.any(String),
      revoked_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    const listed = (await ok('api-key', 'list', '--email', email)).data.find((k: { id: string }) => k.id === keyId);
    expect(listed.revoked_at).toBe(out.revoked_at);
    expectProblem(await t.http.get('/api/v2/users/me/').set('X-Api-Key', key), 401, 'unauthorized');
    const again = await fails('api-key', 'revoke', '--id', keyId);
    expect(again.line).toContain('resource_not_found');
  });

  it('openapi prints the document as one JSON object', async () => {
    const doc = await ok('openapi');
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.servers).toEqual([{ url: 'http://localhost:3000' }]);
    expect(Object.keys(doc.paths)).toContain('/api/v2/users/me/');
  });

  it('help prints the usage on stderr and exits 0', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('usage:');
  });

  describe('bad input exits non-zero with one line on stderr', () => {
    it('usage errors exit 2', async () => {
      const cases = [
        [],
        ['frobnicate'],
        ['user', 'delete'],
        ['user', 'create', '--email'],
        ['user', 'create', '--email', 'x@example.com'],
        ['user', 'create', 'stray'],
        ['member', 'remove', '--workspace', 'x'],
        ['audit', 'list'],
        ['audit', 'list', '--instance', '--workspace', 'x'],
        ['audit', 'list', '--instance', '--bogus', '1'],
        ['api-key', 'list'],
        ['user', 'list', '--email', 'x@example.com'],
        ['member', 'list'],
        ['member', 'list', '--workspace', 'x', '--bogus', '1'],
        // A misspelt flag is refused, never dropped (`--tll 60` would have issued a 24-hour token).
        ['token', 'create', '--email', 'x@example.com', '--scopes', 'read', '--tll', '60'],
        ['api-key', 'create', '--email', 'x@example.com', '--lable', 'ci'],
        ['workspace', 'create', '--slug', 'x', '--name', 'X', '--bogus', 'y'],
        ['member', 'add', '--workspace', 'x', '--email', 'x@example.com', '--role', 'guest', '--project', 'P'],
        ['token', 'create', '--email', 'x@example.com', '--scopes', 'read', '--__proto__', '1'],
        ['token', 'create', '--email', 'x@example.com', '--scopes', 'read', '--ttl', '1e3'],
        ['token', 'create', '--email', 'x@example.com', '--scopes', 'read', '--ttl', '99999999999999'],
      ];
      for (const r of await inParallel(cases.map((args) => () => fails(...args)))) {
        expect(r.code).toBe(2);
        expect(r.line).toMatch(/--help/);
      }
      // A node process per case: minutes on a loaded machine.
    }, 180_000);

    it('invalid values and missing records exit 1 naming the problem', async () => {
      const cases: Array<[string[], RegExp]> = [
        [['user', 'create', '--email', 'not-an-email', '--display-name', 'X'], /email/],
        [['user', 'create', '--email', email, '--display-name', 'Dup'], /conflict/],
        [['workspace', 'create', '--slug', 'Bad Slug!', '--name', 'X'], /slug/],
        [['workspace', 'create', '--slug', slug, '--name', 'Again'], /conflict/],
        [['member', 'add', '--workspace', slug, '--email', email, '--role', 'emperor'], /role/],
        [
          ['member', 'add', '--workspace', 'no-such-workspace', '--email', email, '--role', 'member'],
          /resource_not_found/,
        ],
        [
          ['member', 'add', '--workspace', slug, '--email', 'nobody@example.com', '--role', 'member'],
          /resource_not_found/,
        ],
        [['member', 'remove', '--workspace', slug, '--email', email], /^conflict: The last owner/],
        [['member', 'remove', '--workspace', 'no-such-workspace', '--email', email], /resource_not_found/],
        [['member', 'remove', '--workspace', slug, '--email', 'nobody@example.com'], /resource_not_found/],
        [['api-key', 'create', '--email', 'nobody@example.com'], /resource_not_found/],
        [['api-key', 'revoke', '--id', 'not-a-uuid'], /id/],
        [['token', 'create', '--email', email, '--scopes', 'projects:read,root:all'], /root:all/],
        [['token', 'create', '--email', email, '--scopes', ','], /scope/],
        [['audit', 'list', '--workspace', 'no-such-workspace'], /resource_not_found/],
        [['audit', 'list', '--instance', '--category', 'bogus'], /^validation_error: category/],
        [['audit', 'list', '--instance', '--per-page', '0'], /per_page/],
        [['audit', 'list', '--instance', '--cursor', 'garbage'], /cursor/],
        // varchar(255) columns: named, never a raw database error.
        [
          ['user', 'create', '--email', 'long@example.com', '--display-name', 'x'.repeat(300)],
          /^validation_error: display_name/,
        ],
        [
          ['user', 'create', '--email', `${'e'.repeat(260)}@example.com`, '--display-name', 'X'],
          /^validation_error: email/,
        ],
        [['api-key', 'create', '--email', email, '--label', 'L'.repeat(300)], /^validation_error: label/],
      ];
      const results = await inParallel(
        cases.map(
          ([args]) =>
            () =>
              fails(...args),
        ),
      );
      results.forEach((r, i) => {
        expect(r.code).toBe(1);
        expect(r.line).toMatch(cases[i][1]);
      });
      const ttl = await fails('token', 'create', '--email', email, '--scopes', 'read', '--ttl', '-5');
      expect(ttl.code).toBe(2);
    }, 180_000);

    it('an unreachable database is one line too', async () => {
      const r = await new Promise<Run>((res) => {
        execFile(
          'node',
          [CLI, 'user', 'create', '--email', 'a@example.com', '--display-name', 'A'],
          {
            cwd: ROOT,
            env: { ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' },
            timeout: 60_000,
          },
          (err, stdout, stderr) => res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    });
  });
});
