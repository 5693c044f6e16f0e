import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { inFlightCount } from '../http/in-flight';
import { publicPath } from '../http/trailing-slash';
import { FastHistogram, Series } from './fast-histogram';
import { LATENCY_BUCKETS, Metrics } from './metrics';

/** The `route` of a request that matched no route (404, and requests refused before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

type Label = 'method' | 'route' | 'status_class';

/** A route's series, by method and then by status class (index 1 to 5). */
interface RouteSeries {
  template: string;
  byMethod: Map<string, Series[]>;
}

/**
 * Request count and latency by route template (`/api/v2/workspaces/{slug}/projects/`, never the raw path, so no id
 * or slug becomes a label), method and status class (2xx..5xx), and the requests in flight. Counted in Fastify's
 * onResponse hook, when the response has been handed to the socket: `reply.elapsedTime` runs from the start of
 * routing to that moment. A request whose client hangs up before the response is written is not counted.
 * Every request observes into a series found through two map lookups (FastHistogram): the count
 * (http_requests_total) and the histogram come from the same observation.
 */
@Injectable()
export class HttpMetrics implements OnModuleInit {
  /** Series by Fastify route url ('' for unmatched requests); their number is fixed by the code. */
  private readonly routes = new Map<string, RouteSeries>();
  private histogram!: FastHistogram<Label>;

  constructor(
    private readonly metrics: Metrics,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    this.histogram = this.metrics.fastHistogram({
      name: 'http_request_duration_seconds',
      help: 'Time from routing to the response being written, by method, route template and status class.',
      labelNames: ['method', 'route', 'status_class'],
      buckets: LATENCY_BUCKETS,
      counter: {
        name: 'http_requests_total',
        help: 'HTTP requests answered, by method, route template and status class.',
      },
    });
    this.metrics.gauge({
      name: 'http_requests_in_flight',
      help: 'Requests whose handlers are running.',
      collect() {
        this.set(inFlightCount());
      },
    });
    // Added during app.init(), before the server is ready: root hooks reach every route and the 404 handler.
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
      this.seriesOf(req, reply.statusCode).observe(reply.elapsedTime / 1000);
      done();
    });
  }

  private seriesOf(req: FastifyRequest, status: number): Series {
    const url = req.routeOptions.url ?? '';
    let route = this.routes.get(url);
    if (!route) {
      route = { template: templateOf(url), byMethod: new Map() };
      this.routes.set(url, route);
    }
    let classes = route.byMethod.get(req.method);
    if (!classes) {
      classes = [];
      route.byMethod.set(req.method, classes);
    }
    const c = Math.floor(status / 100);
    return (classes[c] ??= this.histogram.series({
      method: req.method,
      route: route.template,
      status_class: `${c}xx`,
    }));
  }
}

/** `/api/v2/workspaces/:slug/` as the OpenAPI document writes it: `/api/v2/workspaces/{slug}/`. */
function templateOf(url: string): string {
  return url ? publicPath(url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')) : UNMATCHED_ROUTE;
}
