import type { FastifyRequest } from 'fastify';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { Span } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { TracingSettings } from '../config/config';
import { redactQuery } from '../logging/redact-query';

/** Requests not traced: scrapes and probes arrive every few seconds and say nothing about the API. */
const UNTRACED = new Set(['/metrics', '/healthz', '/readyz']);
const untraced = (url: string | undefined) => UNTRACED.has((url ?? '/').split('?')[0]);

/** The query of `url` with credential-like values redacted, as the request logs show it. */
function redactedQuery(url: string): string | undefined {
  const redacted = redactQuery(url);
  const q = redacted.indexOf('?');
  return q < 0 ? undefined : redacted.slice(q + 1);
}

/**
 * The OpenTelemetry Node SDK with the instrumentations of this stack: node:http (the server span; continues an
 * incoming W3C `traceparent`), Fastify (@fastify/otel, the Fastify team's instrumentation: the request and route
 * handler spans) and pg (a span per statement, its text with placeholders, never its values). Spans leave
 * through the OTLP exporter the OTEL_EXPORTER_OTLP_* variables describe (http/protobuf by default). The SDK's
 * metrics and logs stay off: metrics are Prometheus's (/metrics), logs are the JSON lines on stdout.
 *
 * Must start before pg and node:http are first required (see register.ts).
 */
export function startTracing(settings: TracingSettings): NodeSDK {
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => untraced(req.url),
        // The server span records the query (url.query): credential-like values are redacted, as in the logs.
        requestHook: (span, req) => {
          const query = 'url' in req && typeof req.url === 'string' ? redactedQuery(req.url) : undefined;
          if (query !== undefined) span.setAttribute('url.query', query);
        },
      }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        // The request and handler spans; a span for each of the service's own hooks would only add noise.
        instrumentHooks: false,
        ignorePaths: (route: { url: string }) => untraced(route.url),
        // Its request span records the URL with its query (url.path): redacted likewise.
        requestHook: (span: Span, request: FastifyRequest) => span.setAttribute('url.path', redactQuery(request.url)),
      }),
      // Statements of a request only: migrations, the auth cache's LISTEN and background flushes would each be a
      // trace of their own.
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
    ],
  });
  sdk.start();
  return sdk;
}
