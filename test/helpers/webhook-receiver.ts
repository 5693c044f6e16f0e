import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server } from 'node:http';

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  raw: string;
  body: Record<string, any>;
  at: number;
}

/** How a path answers besides its status: after a delay, with a body of its own, with extra headers. */
export interface Behaviour {
  delayMs?: number;
  body?: string;
  headers?: Record<string, string>;
}

/**
 * A real HTTP receiver in the test process (127.0.0.1, a port of its own). Each path answers the statuses queued
 * for it in order (`answer('/flaky', 500, 500)`), then 200; `behave` sets a delay, a body or headers.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly queued = new Map<string, number[]>();
  private readonly behaviours = new Map<string, Behaviour>();
  private server!: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        this.received.push({ path, headers: req.headers, raw, body: JSON.parse(raw), at: Date.now() });
        const status = this.queued.get(path)?.shift() ?? 200;
        const b = this.behaviours.get(path) ?? {};
        setTimeout(() => {
          if (res.destroyed) return;
          res.writeHead(status, { 'content-type': 'text/plain', ...b.headers }).end(b.body ?? `answer ${status}`);
        }, b.delayMs ?? 0).unref(); // a delayed answer never holds the test process open
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  answer(path: string, ...statuses: number[]): void {
    this.queued.set(path, statuses);
  }

  behave(path: string, b: Behaviour): void {
    this.behaviours.set(path, b);
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Checks `Webhook-Signature: t=<unix>,v1=<hex>` as a receiver would (the docs' example), within `toleranceS`. */
export function verifyTimestamped(secret: string, raw: string, header: string, toleranceS = 300): boolean {
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=') as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceS) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Checks Plane's `X-Plane-Signature` (hex HMAC-SHA256 of the raw body). */
export function verifyPlane(secret: string, raw: string, header: string): boolean {
  return createHmac('sha256', secret).update(raw).digest('hex') === header;
}
