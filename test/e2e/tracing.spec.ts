import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { DIST_MAIN, ensureBuilt, ROOT } from '../helpers/build';
import { createTestDatabase } from '../helpers/database';
import { waitFor } from '../helpers/wait';

/** A span as OTLP/HTTP JSON carries it, with the name of the instrumentation that made it. */
interface OtlpSpan {
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}
const SERVER = 2;

interface OtlpExport {
  resourceSpans: Array<{
    scopeSpans: Array<{
      scope: { name: string };
      spans: Array<Omit<OtlpSpan, 'scope' | 'attributes'> & { attributes?: Array<{ key: string; value: object }> }>;
    }>;
  }>;
}

/** An in-process OTLP receiver: accepts OTLP/HTTP JSON on /v1/traces and keeps every span. */
async function otlpReceiver(): Promise<{ server: Server; url: string; spans: OtlpSpan[] }> {
  const spans: OtlpSpan[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        for (const rs of (JSON.parse(body) as OtlpExport).resourceSpans)
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans) {
              const attributes = Object.fromEntries(
                (s.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0] as unknown]),
              );
              spans.push({ ...s, scope: ss.scope.name, attributes });
            }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans };
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/**
 * Tracing runs in the compiled service started as an operator starts it (node dist/src/main.js): the
 * instrumentations patch pg and node:http as they load, which Jest's own module loader would bypass.
 */
describe('OpenTelemetry tracing (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ChildProcess;
  let output = '';
  let base: string;
  let key: string;

  beforeAll(async () => {
    ensureBuilt();
    receiver = await otlpReceiver();
    db = await createTestDatabase();
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: db.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    };
    for (const k of ['REDIS_URL', 'PUBLIC_BASE_URL', 'METRICS_PORT', 'OTEL_TRACES_SAMPLER', 'OTEL_SDK_DISABLED'])
      delete env[k];
    service = spawn('node', [DIST_MAIN], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    service.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    service.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    base = `http://127.0.0.1:${port}`;
    await waitFor(
      'the service to start',
      async () => {
        if (service.exitCode !== null) throw new Error(`service exited:\n${output}`);
        return fetch(`${base}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
      },
      // Minutes, not seconds, while other suites load the machine: the SDK and its exporters load first.
      150_000,
    );
    key = /API key\s+(wt_api_\S+)/.exec(output)![1];
  }, 180_000);

  afterAll(async () => {
    if (service?.exitCode === null) {
      service.kill('SIGTERM');
      await new Promise((r) => service.once('exit', r));
    }
    await db?.drop();
    await new Promise((r) => receiver?.server.close(r));
  });

  const traceOf = (traceId: string) => receiver.spans.filter((s) => s.traceId === traceId);

  it('exports the HTTP, request handler and pg spans of one request, continuing the incoming traceparent; logs carry the trace id', async () => {
    const [traceId, parentId] = [hex(16), hex(8)];
    const res = await fetch(`${base}/api/v2/workspaces/default/projects/?api_key=leak-me&per_page=5`, {
      headers: { 'X-Api-Key': key, traceparent: `00-${traceId}-${parentId}-01` },
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    await waitFor('the spans of the request', () => traceOf(traceId).some((s) => s.scope.endsWith('pg')), 15_000);
    await new Promise((r) => setTimeout(r, 300)); // the rest of the batch

    const spans = traceOf(traceId);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const server = spans.find((s) => s.kind === SERVER && s.scope === '@opentelemetry/instrumentation-http')!;
    expect(server).toBeDefined();
    expect(server.parentSpanId).toBe(parentId);
    expect(server.attributes['http.route']).toBe('/api/v2/workspaces/:slug/projects');
    expect(server.attributes['http.response.status_code']).toBe(200);
    const handler = spans.find((s) => s.scope === '@fastify/otel' && s.name === 'handler - ProjectsController.list')!;
    expect(handler).toBeDefined();
    const ancestors = (s: OtlpSpan): string[] => {
      const parent = s.parentSpanId ? byId.get(s.parentSpanId) : undefined;
      return parent ? [parent.spanId, ...ancestors(parent)] : [];
    };
    expect(ancestors(handler)).toContain(server.spanId);
    const statements = spans.filter(
      (s) => s.scope === '@opentelemetry/instrumentation-pg' && s.name.startsWith('pg.query'),
    );
    expect(statements.some((s) => String(s.attributes['db.query.text']).includes('FROM projects'))).toBe(true);
    for (const s of statements) expect(ancestors(s)).toContain(handler.spanId);
    // Credentials in the query string are redacted in spans as in logs; statement values are never recorded.
    expect(JSON.stringify(spans)).not.toContain('leak-me');
    expect(JSON.stringify(spans)).not.toContain(key);

    const lines = output
      .split('\n')
      .filter((l) => l.startsWith('{') && l.includes(requestId))
      .map((l) => JSON.parse(l) as { trace_id?: string; span_id?: string });
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) {
      expect(line.trace_id).toBe(traceId);
      expect(byId.has(line.span_id!)).toBe(true);
    }
  });

  it('a request without traceparent starts a trace of its own; probes and scrapes are not traced', async () => {
    const seen = new Set(receiver.spans.map((s) => s.traceId));
    expect((await fetch(`${base}/api/v2/users/me/`, { headers: { 'X-Api-Key': key } })).status).toBe(200);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    const fresh = () =>
      receiver.spans.filter(
        (s) => !seen.has(s.traceId) && s.kind === SERVER && s.scope.endsWith('instrumentation-http'),
      );
    await waitFor('the new trace', () => fresh().length > 0, 15_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(fresh().map((s) => [s.name, s.parentSpanId ?? ''])).toEqual([['GET /api/v2/users/me', '']]);
  });
});
