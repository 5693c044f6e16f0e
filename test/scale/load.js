'use strict';
/**
 * The mixed load of `npm run test:scale`: workers, each with an API key, work items and users of its own, send
 * reads, creates, patches and project membership changes through the balancer at a bounded rate, and keep a
 * journal of what was acknowledged (2xx) and what is unknown (no answer, or a 5xx), for the checks afterwards.
 */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One HTTP call; never throws. `start`/`end` are epoch milliseconds, for matching against the kill time. */
async function call(base, method, path, key, body) {
  const start = performance.timeOrigin + performance.now();
  const headers = { 'content-type': 'application/json', ...(key ? { 'X-Api-Key': key } : {}) };
  try {
    const r = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(20000),
    });
    const text = await r.text();
    const type = r.headers.get('content-type') || '';
    const json = /json/.test(type) && text ? JSON.parse(text) : null;
    const end = performance.timeOrigin + performance.now();
    return { status: r.status, json, type, headers: r.headers, server: r.headers.get('x-served-by'), start, end };
  } catch (e) {
    const end = performance.timeOrigin + performance.now();
    return { status: 0, json: null, type: '', error: e.cause?.code || e.name, server: null, start, end };
  }
}

/** Why a request did not succeed, as the report groups it. */
function causeOf(r) {
  if (r.status >= 200 && r.status < 300) return 'ok';
  if (r.status === 0) return `no answer (${r.error})`;
  if (r.status >= 500) return /problem\+json/.test(r.type) ? `service ${r.status}` : `balancer ${r.status}`;
  return `${r.status} ${r.json?.code ?? ''}`.trim();
}

const acked = (r) => r.status >= 200 && r.status < 300;

class Worker {
  constructor(n, ctx, key, users, record) {
    Object.assign(this, { n, ctx, key, users: users.map((id) => ({ id, state: null, uncertain: false })), record });
    this.items = [];
    this.count = 0;
    this.unackedCreates = 0;
  }

  async send(op, method, path, body) {
    const r = await call(this.ctx.balancer, method, path, this.key, body);
    this.record({
      op,
      worker: this.n,
      status: r.status,
      cause: causeOf(r),
      server: r.server,
      start: r.start,
      end: r.end,
    });
    return r;
  }

  get itemsPath() {
    return `/api/v2/workspaces/${this.ctx.slug}/projects/${this.ctx.projectId}/work-items/`;
  }

  async create() {
    const name = `w${this.n} item ${++this.count}`;
    const r = await this.send('create', 'POST', this.itemsPath, { name });
    if (acked(r)) this.items.push({ id: r.json.id, sequence: r.json.sequence_id, name, acked: name, after: [] });
    else this.unackedCreates++;
  }

  async patch() {
    const item = this.items[Math.floor(Math.random() * this.items.length)];
    if (!item) return this.create();
    const name = `w${this.n} patched ${++this.count}`;
    const r = await this.send('patch', 'PATCH', `${this.itemsPath}${item.id}/`, { name });
    if (acked(r)) Object.assign(item, { acked: name, after: [] });
    else item.after.push(name);
  }

  async read() {
    const item = this.items[Math.floor(Math.random() * this.items.length)];
    if (item && Math.random() < 0.4) return this.send('get', 'GET', `${this.itemsPath}${item.id}/`);
    return this.send('list', 'GET', `${this.itemsPath}?per_page=20`);
  }

  /** add (contributor) -> role to commenter -> remove, per user; after an unknown outcome, read the roster. */
  async membership() {
    const user = this.users[this.count++ % this.users.length];
    const base = `/api/v2/workspaces/${this.ctx.slug}/projects/${this.ctx.projectId}/members/`;
    if (user.uncertain) return this.resync(user, base);
    let r;
    if (!user.state) {
      r = await this.send('member add', 'POST', base, { member_id: user.id, role: 'contributor' });
      if (acked(r)) user.state = { id: r.json.id, role: 'contributor' };
    } else if (user.state.role === 'contributor') {
      r = await this.send('member role', 'PATCH', `${base}${user.state.id}/`, { role: 'commenter' });
      if (acked(r)) user.state.role = 'commenter';
    } else {
      r = await this.send('member remove', 'DELETE', `${base}${user.state.id}/`);
      if (acked(r)) user.state = null;
    }
    if (!acked(r)) user.uncertain = true;
  }

  async resync(user, base) {
    const r = await this.send('member list', 'GET', `${base}?per_page=100`);
    if (!acked(r)) return;
    const row = r.json.data.find((m) => m.member_id === user.id);
    user.state = row ? { id: row.id, role: row.role } : null;
    user.uncertain = false;
  }

  async step() {
    const x = Math.random();
    if (x < 0.5) return this.read();
    if (x < 0.7) return this.create();
    if (x < 0.9) return this.patch();
    return this.membership();
  }

  /** Steps until `done()`, at most `rate` requests a second. */
  async run(done, rate) {
    let next = Date.now();
    while (!done()) {
      await this.step();
      next += 1000 / rate;
      const wait = next - Date.now();
      if (wait > 0) await sleep(wait);
      else next = Date.now();
    }
  }
}

module.exports = { call, causeOf, acked, Worker };
