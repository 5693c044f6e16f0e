import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { QueryFailedError } from 'typeorm';
import { ThrottlerException } from '@nestjs/throttler';
import { ErrorCode, ERROR_STATUS, ERROR_TITLES } from './error-codes';
import { FieldError, ProblemException } from './problem.exception';
import { allowedMethodsFor } from '../http/route-registry';
import { NO_SLASH_PREFIX } from '../http/trailing-slash';

/** Renders a problem+json body. Exported for the few places that answer outside Nest (rewrite, 404 of Fastify). */
export function problemBody(
  baseUrl: string,
  code: ErrorCode,
  detail: string,
  errors?: FieldError[],
  extensions?: Record<string, unknown>,
) {
  const body: Record<string, unknown> = {
    ...extensions,
    type: `${baseUrl}/errors/${code}`,
    title: ERROR_TITLES[code],
    status: ERROR_STATUS[code],
    code,
    detail,
  };
  if (errors && errors.length) body.errors = errors;
  else if (code === ErrorCode.ValidationError) body.errors = [];
  return body;
}

/**
 * Writes `problem` as application/problem+json: the filter's answers, and the refusals Fastify makes before
 * any Nest route runs (create-app.ts), so both look the same.
 */
export function sendProblem(reply: FastifyReply, baseUrl: string, problem: ProblemException): void {
  if (problem.headers) for (const [k, v] of Object.entries(problem.headers)) reply.header(k, v);
  void reply
    .status(ERROR_STATUS[problem.code])
    .header('content-type', 'application/problem+json; charset=utf-8')
    .send(problemBody(baseUrl, problem.code, problem.detail, problem.errors, problem.extensions));
}

/** The SQLSTATE of a database error, wrapped by TypeORM or not. */
function sqlState(e: unknown): string | undefined {
  const err = e as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = err?.driverError?.code ?? err?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Connection-level failures of the pool: the database is down, restarting, full or unreachable. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '3D000',
]);

/**
 * A request that failed because the database cannot be reached is 503 with Retry-After, which clients and load
 * balancers treat as temporary, not a 500.
 */
function databaseUnavailable(e: unknown): boolean {
  const err = e as { message?: string } | null;
  const code = sqlState(e);
  if (code && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|does not allow connections|is not currently accepting connections/.test(
    err?.message ?? '',
  );
}

const unavailable = () =>
  new ProblemException(ErrorCode.ServiceUnavailable, 'The database is unavailable; retry shortly.', undefined, {
    'Retry-After': '5',
  });

/**
 * A statement the database gave up on: canceled (57014: a `statement_timeout` the operator set, or an
 * administrator's pg_cancel_backend), a lock not granted in time (55P03: `lock_timeout`), or out of resources
 * (53xxx other than too many connections, which is unavailable above). The statement's transaction rolled back and
 * the request can be retried, so it is a 503 with Retry-After, not a 500.
 */
function statementAbandoned(code: string | undefined): boolean {
  return code === '57014' || code === '55P03' || (code !== undefined && code.startsWith('53'));
}

const abandoned = () =>
  new ProblemException(
    ErrorCode.ServiceUnavailable,
    'The database did not complete the request in time and rolled it back; retry shortly. For large lists, count=false or paginate=cursor is cheaper.',
    undefined,
    { 'Retry-After': '5' },
  );

interface PgDriverError {
  code?: string;
  message?: string;
  detail?: string;
  constraint?: string;
  column?: string;
}

/**
 * SQLSTATE 22001 (string_data_right_truncation): a value longer than its varchar(n) column. The DTOs' length
 * checks (MaxChars) count as the column does, so this is a backstop for a check gone missing: the client sent
 * something too long, a 400, not a 500. PostgreSQL names no column for it ("value too long for type character
 * varying(255)"), so the answer names a field only if the driver gives one; the limit comes from the message.
 */
function valueTooLong(e: PgDriverError): ProblemException {
  const limit = /\((\d+)\)/.exec(e.message ?? '')?.[1];
  const message = limit ? `Must be at most ${limit} characters.` : 'Too long.';
  const detail = `A value is longer than its field takes${limit ? ` (at most ${limit} characters)` : ''}.`;
  return new ProblemException(ErrorCode.ValidationError, detail, e.column ? [{ field: e.column, message }] : []);
}

/**
 * The one place where failures become application/problem+json (RFC 9457).
 * Domain problems, framework HTTP errors, Fastify parser errors and PostgreSQL errors
 * are mapped to stable codes; anything unexpected is a logged 500 without a stack trace in the body.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');
  constructor(private readonly baseUrl: string) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const reply = ctx.getResponse<FastifyReply>();
    const req = ctx.getRequest<FastifyRequest>();
    const problem = this.toProblem(exception, req);
    if (problem.code === ErrorCode.InternalError) {
      const err = exception as Error;
      this.logger.error({ msg: 'unhandled exception', reqId: req?.id, err: err?.message, stack: err?.stack });
    } else if (problem.code === ErrorCode.ServiceUnavailable) {
      this.logger.warn({
        msg: statementAbandoned(sqlState(exception)) ? 'statement canceled by the database' : 'database unavailable',
        reqId: req?.id,
        err: (exception as Error)?.message,
      });
    } else if (exception instanceof QueryFailedError && (exception.driverError as PgDriverError)?.code === '22001') {
      // A 400 for the client, but a length check is missing somewhere: worth a line (no stack trace).
      this.logger.warn({ msg: 'value too long for its column', reqId: req?.id, err: exception.message });
    }
    sendProblem(reply, this.baseUrl, problem);
  }

  private toProblem(exception: unknown, req: FastifyRequest): ProblemException {
    if (exception instanceof ProblemException) return exception;
    if (exception instanceof ThrottlerException) {
      return new ProblemException(ErrorCode.RateLimited, 'Request was throttled. Retry after the time in Retry-After.');
    }
    if (databaseUnavailable(exception)) return unavailable();
    if (statementAbandoned(sqlState(exception))) return abandoned();
    if (exception instanceof QueryFailedError) return this.fromPg(exception.driverError as PgDriverError);
    if (exception instanceof HttpException) return this.fromHttp(exception, req);
    const fst = exception as { statusCode?: number; code?: string; message?: string };
    if (fst && typeof fst.code === 'string' && fst.code.startsWith('FST_')) return this.fromFastify(fst);
    return new ProblemException(ErrorCode.InternalError, 'An unexpected error occurred.');
  }

  private fromHttp(e: HttpException, req: FastifyRequest): ProblemException {
    const status = e.getStatus();
    if (status === 404) {
      const url = req?.url ?? '';
      if (url.startsWith(NO_SLASH_PREFIX)) {
        return new ProblemException(ErrorCode.ResourceNotFound, 'No route matches this path. v2 paths end with "/".');
      }
      const path = url.split('?')[0];
      const allowed = allowedMethodsFor(path);
      if (allowed.length && !allowed.includes(req.method))
        return ProblemException.methodNotAllowed(req.method, allowed);
      return new ProblemException(ErrorCode.ResourceNotFound, 'No route matches this path.');
    }
    if (status === 413) return new ProblemException(ErrorCode.PayloadTooLarge, 'Request body is too large.');
    if (status === 415)
      return new ProblemException(ErrorCode.UnsupportedMediaType, 'Send JSON with Content-Type: application/json.');
    if (status === 429) return new ProblemException(ErrorCode.RateLimited, 'Request was throttled.');
    if (status === 401) return ProblemException.unauthorized();
    if (status === 403) return ProblemException.forbidden();
    if (status === 405) return new ProblemException(ErrorCode.MethodNotAllowed, 'Method not allowed.');
    if (status === 400)
      return new ProblemException(ErrorCode.ValidationError, 'Malformed request.', [
        { field: 'body', message: e.message },
      ]);
    if (status >= 500) return new ProblemException(ErrorCode.InternalError, 'An unexpected error occurred.');
    return new ProblemException(ErrorCode.ValidationError, e.message);
  }

  private fromFastify(e: { statusCode?: number; code?: string; message?: string }): ProblemException {
    switch (e.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return new ProblemException(ErrorCode.PayloadTooLarge, 'Request body is too large.');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return ProblemException.unsupportedMediaType();
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return new ProblemException(ErrorCode.ValidationError, 'The JSON body is empty.', [
          { field: 'body', message: 'Body cannot be empty when Content-Type is application/json.' },
        ]);
      default:
        if (e.statusCode === 413) return new ProblemException(ErrorCode.PayloadTooLarge, 'Request body is too large.');
        if (e.statusCode === 415)
          return new ProblemException(ErrorCode.UnsupportedMediaType, 'Unsupported media type.');
        if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
          return new ProblemException(ErrorCode.ValidationError, 'Malformed request body.', [
            { field: 'body', message: e.message ?? 'Malformed body.' },
          ]);
        }
        return new ProblemException(ErrorCode.InternalError, 'An unexpected error occurred.');
    }
  }

  private fromPg(e: PgDriverError): ProblemException {
    switch (e?.code) {
      case '23505':
        return ProblemException.conflict(
          `A record with the same unique value already exists${e.constraint ? ` (${e.constraint})` : ''}.`,
        );
      case '23503':
        return new ProblemException(ErrorCode.ValidationError, 'A referenced record does not exist.', [
          { field: e.column ?? 'body', message: 'Referenced record does not exist.' },
        ]);
      case '22P02':
      case '22007':
      case '22008':
      case '22009':
      case '22021':
      case '22003':
        return new ProblemException(ErrorCode.ValidationError, 'A value has an invalid format.', [
          { field: e.column ?? 'body', message: 'Invalid value.' },
        ]);
      case '22001':
        return valueTooLong(e);
      case '40001':
      case '40P01':
        return ProblemException.conflict('The request conflicted with a concurrent change; retry it.');
      default:
        return new ProblemException(ErrorCode.InternalError, 'An unexpected error occurred.');
    }
  }
}
