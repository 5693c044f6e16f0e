'use strict';
/** The checks of `npm run test:scale` that run beside the load, and the ones over the database afterwards. */
const { execFile } = require('node:child_process');
const { promisify } = require('node:util');
const { resolve } = require('node:path');
const { call } = require('./load');
const lib = require('../../bench/lib');

const { ROOT, sleep } = lib;
const direct = (port) => `http://127.0.0.1:${port}`;

/**
 * Polls every instance with the credential until it is refused. Per instance: when the last request it still
 * accepted was sent and when its first refusal arrived, in milliseconds after `since` (null: not refused in 10 s).
 * "Refused within a second" means no request sent a second or more after `since` was accepted.
 */
async function untilRefusedEverywhere(apiPorts, path, key, refused, since) {
  return Promise.all(
    apiPorts.map(async (port) => {
      let lastAccepted = -Infinity;
      while (Date.now() - since < 10000) {
        const r = await call(direct(port), 'GET', path, key);
        if (refused(r)) return { lastAccepted: Math.round(lastAccepted - since), refusedAt: Math.round(r.end - since) };
        lastAccepted = r.start;
        await sleep(20);
      }
      return null;
    }),
  );
}

/** Every instance answers `path` with 200 to `key` (and so holds the credential in its auth cache). */
async function warm(apiPorts, path, key) {
  for (const port of apiPorts) {
    const r = await call(direct(port), 'GET', path, key);
    if (r.status !== 200) throw new Error(`warm-up of ${path} on ${port}: ${r.status}`);
  }
}

/**
 * An API key revoked with the admin CLI (the only way to revoke one; it reaches PostgreSQL through PgBouncer as
 * the instances do), then refused (401) by every instance: the milliseconds after the CLI returned, per instance.
 */
async function keyRevocation(ctx) {
  await warm(ctx.apiPorts, '/api/v2/users/me/', ctx.revokeKey.key);
  const cli = resolve(ROOT, 'dist/src/cli.js');
  const env = { ...process.env, DATABASE_URL: ctx.bouncerUrl, LOG_LEVEL: 'error' };
  await promisify(execFile)('node', [cli, 'api-key', 'revoke', '--id', ctx.revokeKey.id], { env });
  const since = Date.now();
  const refused = (r) => r.status === 401;
  return untilRefusedEverywhere(ctx.apiPorts, '/api/v2/users/me/', ctx.revokeKey.key, refused, since);
}

/** A member removed from the workspace through instance 1's API, then refused by every instance. */
async function memberRemoval(ctx) {
  const path = `/api/v2/workspaces/${ctx.slug}/projects/${ctx.projectId}/work-items/?per_page=1`;
  await warm(ctx.apiPorts, path, ctx.leaver.key);
  const url = `/api/v2/workspaces/${ctx.slug}/members/remove/`;
  const r = await call(direct(ctx.apiPorts[0]), 'POST', url, ctx.ownerKey, { email: ctx.leaver.email });
  if (r.status !== 204) throw new Error(`member removal through api1: ${r.status} ${JSON.stringify(r.json)}`);
  const refused = (x) => x.status === 403 || x.status === 404;
  return untilRefusedEverywhere(ctx.apiPorts, path, ctx.leaver.key, refused, r.end);
}

const remaining = (r) => Number(r.headers?.get('x-ratelimit-remaining'));

/**
 * One budget per credential across the instances: a key unused by the load, sent to api1, api2, api3 in turn,
 * sees X-RateLimit-Remaining fall by one per request whatever instance answers; spent through all three
 * instances together, it is refused (429) by each. Must fit in one window (else it says so and fails).
 */
async function sharedRateLimit(ctx) {
  const { apiPorts, limit } = ctx;
  const path = '/api/v2/users/me/';
  const started = Date.now();
  const seen = [];
  for (let i = 0; i < 6; i++) seen.push(remaining(await call(direct(apiPorts[i % 3]), 'GET', path, ctx.probeKey)));
  const stepwise = seen.every((v, i) => i === 0 || v === seen[i - 1] - 1);
  let sent = seen.length;
  let ok = seen.length;
  const lane = async (j) => {
    while (sent < limit) {
      sent++;
      if ((await call(direct(apiPorts[j % 3]), 'GET', path, ctx.probeKey)).status === 200) ok++;
    }
  };
  await Promise.all(Array.from({ length: 24 }, (_, j) => lane(j)));
  const after = await Promise.all(apiPorts.map((p) => until429(direct(p), path, ctx.probeKey)));
  const seconds = (Date.now() - started) / 1000;
  const inWindow = seconds < ctx.windowSeconds;
  const pass = stepwise && after.every((r) => r.status === 429) && inWindow;
  const letThrough = after.reduce((n, r) => n + r.letThrough, 0);
  return { pass, seen, ok, sent, after: after.map((r) => r.status), letThrough, seconds, inWindow };
}

/**
 * Requests until a 429, for up to 15 s. A Redis that does not answer within 1 s is skipped for 5 s (the limiter
 * fails open, by design: src/common/throttle/redis-throttler.storage.ts), which on an overloaded machine lets a few
 * requests through after the budget is spent; they are counted and reported.
 */
async function until429(base, path, key) {
  const deadline = Date.now() + 15000;
  let letThrough = 0;
  for (;;) {
    const r = await call(base, 'GET', path, key);
    if (r.status === 429 || Date.now() > deadline) return { status: r.status, letThrough };
    letThrough++;
    await sleep(200);
  }
}

module.exports = { keyRevocation, memberRemoval, sharedRateLimit };
