'use strict';
/** The data `npm run test:scale` starts from: an owner, a workspace, API keys, users for membership changes. */
const { execFile } = require('node:child_process');
const { promisify } = require('node:util');
const { resolve } = require('node:path');
const lib = require('../../bench/lib');
const { call } = require('./load');

const SLUG = 'scale';

/** The admin CLI, asynchronously (several at once); its JSON answer. */
async function cli(dbUrl, ...argv) {
  const env = { ...process.env, DATABASE_URL: dbUrl, LOG_LEVEL: 'error' };
  const { stdout } = await promisify(execFile)('node', [resolve(lib.ROOT, 'dist/src/cli.js'), ...argv], { env });
  return JSON.parse(stdout);
}

/**
 * Users (workspace members) and API keys in one transaction: the CLI would take a process each, which on a busy
 * 2-core machine is most of the start. Keys are made as the service makes them (src/common/auth/credentials.ts).
 */
async function usersAndKeys(c, labels, memberCount) {
  const { newApiKey, hashSecret } = require(resolve(lib.ROOT, 'dist/src/common/auth/credentials.js'));
  const ws = (await c.query(`SELECT id FROM workspaces WHERE slug = $1`, [SLUG])).rows[0].id;
  const user = async (email, role) => {
    const id = (await c.query(`INSERT INTO users (email, display_name) VALUES ($1, $1) RETURNING id`, [email])).rows[0]
      .id;
    await c.query(`INSERT INTO workspace_members (workspace_id, member_id, role) VALUES ($1, $2, $3)`, [ws, id, role]);
    return id;
  };
  const owner = await user('owner@example.com', 'owner');
  const leaver = await user('leaver@example.com', 'member');
  const users = [];
  for (let i = 0; i < memberCount; i++) users.push(await user(`churn${i}@example.com`, 'member'));
  const keys = [];
  for (const label of labels) {
    const key = newApiKey();
    const userId = label === 'leaver' ? leaver : owner;
    const sql = `INSERT INTO api_keys (user_id, key_hash, key_prefix, label) VALUES ($1, $2, $3, $4) RETURNING id`;
    const id = (await c.query(sql, [userId, hashSecret(key), key.slice(0, 12), label])).rows[0].id;
    keys.push({ id, key });
  }
  return { leaver, users, keys };
}

/** The schema and the workspace through the CLI, the rest in SQL, against the database directly. */
async function seed(dbUrl, workers) {
  await cli(dbUrl, 'migrate');
  await cli(dbUrl, 'workspace', 'create', '--slug', SLUG, '--name', 'Scale');
  const labels = ['owner', 'revoked', 'probe', 'leaver', ...Array.from({ length: workers }, (_, i) => `load ${i}`)];
  const { leaver, users, keys } = await lib.sql(dbUrl, async (c) => {
    await c.query('BEGIN');
    const out = await usersAndKeys(c, labels, workers * 2);
    await c.query('COMMIT');
    return out;
  });
  return {
    slug: SLUG,
    ownerKey: keys[0].key,
    revokeKey: keys[1],
    probeKey: keys[2].key,
    leaver: { id: leaver, email: 'leaver@example.com', key: keys[3].key },
    loadKeys: keys.slice(4).map((k) => k.key),
    users,
  };
}

/** The project of the load, created through the balancer, with the leaver as a contributor. */
async function createProject(balancer, data) {
  const base = `/api/v2/workspaces/${data.slug}/projects/`;
  const p = await call(balancer, 'POST', base, data.ownerKey, { name: 'Scale', identifier: 'SCALE' });
  if (p.status !== 201) throw new Error(`project create: ${p.status} ${JSON.stringify(p.json)}`);
  const m = await call(balancer, 'POST', `${base}${p.json.id}/members/`, data.ownerKey, {
    member_id: data.leaver.id,
    role: 'contributor',
  });
  if (m.status !== 201) throw new Error(`project member add: ${m.status} ${JSON.stringify(m.json)}`);
  return p.json.id;
}

module.exports = { seed, createProject };
