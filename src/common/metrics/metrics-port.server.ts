import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ERROR_STATUS, ErrorCode } from '../errors/error-codes';
import { problemBody } from '../errors/problem.filter';
import { MetricsAccess } from './metrics-access';
import { Metrics } from './metrics';

/**
 * /metrics on METRICS_PORT (bound to METRICS_HOST, loopback by default), a plain Node HTTP server apart from
 * the API: nothing but GET /metrics, no API middleware, and reachable only where the operator routes that port.
 * With METRICS_TOKEN the token is required here too. Listens from app.init() (a port in use stops the start)
 * until the application closes; the CLI, which builds the application without serving it, leaves the setting out.
 */
@Injectable()
export class MetricsPortServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: Server | undefined;
  private readonly access: MetricsAccess;

  constructor(
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {
    this.access = new MetricsAccess(cfg.metrics);
  }

  /** Where it listens (tests pass port 0 and read the port here). */
  address(): AddressInfo | undefined {
    return (this.server?.address() as AddressInfo | null) ?? undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { port, host } = this.cfg.metrics;
    if (port === undefined) return;
    const server = createServer((req, res) => void this.answer(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: Error) =>
        reject(new Error(`could not serve metrics on ${host}:${port} (METRICS_PORT): ${err.message}`)),
      );
      server.listen(port, host, () => resolve());
    });
    this.server = server;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') return this.problem(res, ErrorCode.ResourceNotFound, 'Only /metrics is served here.');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return this.problem(res, ErrorCode.MethodNotAllowed, 'Use GET.');
    }
    if (!this.access.allows(req.headers.authorization, false)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      return this.problem(res, ErrorCode.Unauthorized, this.access.refusal);
    }
    try {
      const text = await this.metrics.scrape();
      res.writeHead(200, { 'Content-Type': this.metrics.contentType, 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : text);
    } catch {
      this.problem(res, ErrorCode.InternalError, 'The metrics could not be collected.');
    }
  }

  private problem(res: ServerResponse, code: ErrorCode, detail: string): void {
    const body = problemBody(this.cfg.publicBaseUrl, code, detail);
    res.statusCode = ERROR_STATUS[code];
    res.setHeader('Content-Type', 'application/problem+json; charset=utf-8');
    res.end(JSON.stringify(body));
  }
}
