import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import sjson from 'secure-json-parse';
import { AppConfig } from '../config/config';
import { JsonLogger } from '../logging/json-logger';
import { redactQuery } from '../logging/redact-query';
import { traceLogFields } from '../tracing/log-fields';
import { ErrorCode } from '../errors/error-codes';
import { problemBody, sendProblem } from '../errors/problem.filter';
import { ProblemException } from '../errors/problem.exception';
import { literalRouteMethods, registerRoute } from './route-registry';
import { rewriteUrl } from './trailing-slash';
import { trackInFlight } from './in-flight';
import { conditionalResponses } from './conditional';
import { checkStorableInput, deferInputProblem } from './request-sanity';
import { isBodyless } from './bodyless';
import { securityHeaders } from './security-headers';
import { setupOpenApi } from '../openapi/openapi';
import { enableCors } from './cors';

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as text, or null when its bytes are not well-formed UTF-8 (RFC 8259 requires UTF-8). */
function decodeUtf8(body: string | Buffer): string | null {
  if (typeof body === 'string') return body;
  try {
    return UTF8.decode(body);
  } catch {
    return null;
  }
}

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

type Done = (err: Error | null, body?: unknown) => void;

/**
 * Builds the HTTP application around `rootModule` (the application's AppModule, given by its caller so that
 * src/common names no feature): Fastify with the trailing-slash rewrite, the route registry for 405s, a JSON
 * body parser with the configured size limit, request ids, security headers and the OpenAPI document. Used by
 * main.ts, the CLI and the tests (through src/app.factory.ts), so all run the same stack.
 */
export async function createHttpApp(
  cfg: AppConfig,
  rootModule: DynamicModule,
  opts: { logger?: boolean } = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter(fastifyOptions(cfg, opts) as never);
  const fastify = adapter.getInstance<FastifyInstance>();
  addHooks(fastify, cfg);
  const app = await NestFactory.create<NestFastifyApplication>(rootModule, adapter, {
    logger: opts.logger === false ? false : new JsonLogger(cfg.logLevel),
    bufferLogs: false,
    // Nest would register its own JSON parser during init(), replacing the one below (which lets an
    // empty body with a JSON content type through as "no body").
    bodyParser: false,
  });
  addBodyParsers(fastify);
  enableCors(app, cfg.corsOrigins);
  setupOpenApi(app, cfg);
  await app.init();
  return app;
}

/** Fastify's server options: logging, limits, routing, and problems for what fails before any route. */
function fastifyOptions(cfg: AppConfig, opts: { logger?: boolean }): FastifyServerOptions & Record<string, unknown> {
  return {
    logger: opts.logger === false ? false : loggerOptions(cfg),
    bodyLimit: cfg.bodyLimitBytes,
    trustProxy: cfg.trustProxy,
    // A request that arrives while the server closes (on a connection accepted just before) is served like any
    // other, not refused with Fastify's bare 503: shutdown waits for running handlers before it ends the pool.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: false, ignoreDuplicateSlashes: false },
    rewriteUrl: (req: IncomingMessage) => rewriteUrl(req.url ?? '/'),
    clientErrorHandler: (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(cfg, err, socket),
    // Requests the router refuses before any route runs: a path segment longer than any id, slug or
    // identifier (maxParamLength, 100) names nothing, so 404 like an unknown path; a malformed percent
    // escape is a 400. Both as problems, instead of Fastify's plain JSON 414 / 400.
    frameworkErrors: (err: { code?: string }, _req: FastifyRequest, reply: FastifyReply) => {
      const problem =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new ProblemException(ErrorCode.ResourceNotFound, 'No resource has a path segment this long.')
          : new ProblemException(ErrorCode.ValidationError, 'The request path is malformed.', [
              { field: 'path', message: 'Holds a percent escape that is not valid UTF-8.' },
            ]);
      sendProblem(reply, cfg.publicBaseUrl, problem);
    },
    genReqId: (req: IncomingMessage) => {
      const h = req.headers['x-request-id'];
      return typeof h === 'string' && REQUEST_ID_RE.test(h) ? h : randomUUID();
    },
  };
}

function loggerOptions(cfg: AppConfig) {
  return {
    level: cfg.logLevel,
    // trace_id / span_id of the request's span when tracing is on.
    mixin: traceLogFields,
    // Credentials belong in headers (never logged), but a client may put one in the query string.
    serializers: {
      req: (req: { method: string; url: string; id: string; ip?: string }) => ({
        method: req.method,
        url: redactQuery(req.url),
        reqId: req.id,
        remoteAddress: req.ip,
      }),
    },
  };
}

/**
 * A request Node's HTTP parser rejects (bad header bytes, oversized headers) never reaches a route: answer it
 * as a problem too, instead of Fastify's plain JSON.
 */
function answerClientError(cfg: AppConfig, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy(err);
  const [field, detail] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? ['headers', 'The request line and headers are too large.']
      : ['request', 'The HTTP request is malformed.'];
  const body = JSON.stringify(
    problemBody(cfg.publicBaseUrl, ErrorCode.ValidationError, detail, [{ field, message: detail }]),
  );
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Route registry, security headers and request ids, graceful-shutdown `Connection: close`, 405s. */
function addHooks(fastify: FastifyInstance, cfg: AppConfig): void {
  const security = securityHeaders(cfg.publicBaseUrl.startsWith('https://'));
  fastify.addHook('onRoute', (route) => registerRoute(route.url, route.method));
  // Graceful shutdown: once close() starts, responses (of requests still in flight) carry
  // `Connection: close`, so keep-alive sockets end with them and the server can finish closing.
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onSend', (req, reply, payload, next) => {
    // A header the route set itself wins (the sign-in pages' Content-Security-Policy names the app's redirect origins).
    for (const [name, value] of security) if (!reply.hasHeader(name)) reply.header(name, value);
    reply.header('X-Request-Id', req.id);
    if (closing) reply.header('Connection', 'close');
    next(null, payload);
  });
  // A method the literal route lacks is 405 there, not a run of the parameter route it falls back to.
  fastify.addHook('onRequest', (req, reply, done) => {
    const matched = req.routeOptions.url;
    const allowed = matched && matched.includes(':') ? literalRouteMethods(matched, req.url.split('?')[0]) : null;
    if (!allowed || allowed.includes(req.method)) return done();
    sendProblem(reply, cfg.publicBaseUrl, ProblemException.methodNotAllowed(req.method, allowed));
  });
  trackInFlight(fastify);
  conditionalResponses(fastify);
  checkStorableInput(fastify);
}

/** JSON only. An empty body counts as no body; on @Bodyless() routes any body is ignored, whatever its type. */
function addBodyParsers(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    /^application\/([\w.+-]+\+)?json(\s*;.*)?$/i,
    { parseAs: 'buffer' },
    (req: FastifyRequest, body: string | Buffer, done: Done) => parseJson(req, body, done),
  );
  fastify.addContentTypeParser('*', (req: FastifyRequest, payload: NodeJS.ReadableStream, done: Done) => {
    if (!isBodyless(req)) deferInputProblem(req, ProblemException.unsupportedMediaType());
    payload.resume();
    done(null, undefined);
  });
}

function parseJson(req: FastifyRequest, body: string | Buffer, done: Done): void {
  if (isBodyless(req)) return done(null, undefined);
  const text = decodeUtf8(body);
  if (text === null) {
    // Decoding with replacement would store U+FFFD in place of the client's bytes: refuse, like NUL.
    deferInputProblem(
      req,
      ProblemException.validation('body', 'Must be valid UTF-8: holds a malformed byte sequence.'),
    );
    return done(null, undefined);
  }
  if (text.trim() === '') return done(null, undefined);
  try {
    done(null, sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }));
  } catch {
    // Raised after authentication (InputProblemGuard), like every other input problem.
    deferInputProblem(req, ProblemException.invalidJson());
    done(null, undefined);
  }
}
