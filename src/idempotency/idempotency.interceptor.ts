import { CallHandler, ExecutionContext, HttpStatus, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, lastValueFrom, Observable } from 'rxjs';
import { DataSource } from 'typeorm';
import { inTransactionScope } from '../common/database/transaction-scope';
import { ErrorCode } from '../common/errors/error-codes';
import { ProblemException } from '../common/errors/problem.exception';
import { IdempotencyRepository } from './idempotency.repository';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const KEY_RE = /^[\x20-\x7e]{1,255}$/;

/**
 * Idempotency-Key on POST, as Stripe defines it. The first request with a key runs in a transaction scope
 * (common/database/transaction-scope.ts) that the service's own transaction joins, and its response is stored
 * in that same transaction: a change that does not commit leaves no stored response, and a stored response
 * always belongs to a committed change. A repeat of the same request (method, path with query, body) by the
 * same credential within 24 hours replays the response with `Idempotent-Replayed: true` and writes nothing; the
 * key with another request is 422 `idempotency_key_mismatch`; a repeat while the first still runs is 409
 * `idempotency_key_in_use` (a transaction-level advisory lock, so on any instance). A request that fails stores
 * nothing (its transaction rolled back): sending it again runs it again.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly ds: DataSource,
    private readonly store: IdempotencyRepository,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const header = req.headers[IDEMPOTENCY_KEY_HEADER];
    const principal = req.ctx?.principal;
    if (req.method !== 'POST' || header === undefined || !principal) return next.handle();
    if (typeof header !== 'string' || !KEY_RE.test(header)) {
      throw ProblemException.validation('Idempotency-Key', 'Must be 1 to 255 printable ASCII characters, sent once.');
    }
    const credential = `${principal.kind}:${principal.credentialId}`;
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return from(this.run(context, next, reply, credential, header, fingerprint(req)));
  }

  private async run(
    context: ExecutionContext,
    next: CallHandler,
    reply: FastifyReply,
    credential: string,
    key: string,
    fp: string,
  ): Promise<unknown> {
    return inTransactionScope(this.ds, async (client) => {
      if (!(await this.store.tryLock(client, credential, key))) {
        throw new ProblemException(
          ErrorCode.IdempotencyKeyInUse,
          'A request with this Idempotency-Key is still being processed; retry after it has finished.',
          undefined,
          { 'Retry-After': '1' },
        );
      }
      const stored = await this.store.find(client, credential, key);
      if (stored) {
        if (stored.fingerprint !== fp) {
          throw new ProblemException(
            ErrorCode.IdempotencyKeyMismatch,
            'This Idempotency-Key was used for a different request (method, path or body) in the last 24 hours.',
          );
        }
        reply.header(REPLAYED_HEADER, 'true');
        return asJson(reply, stored.body);
      }
      const result: unknown = await lastValueFrom(next.handle(), { defaultValue: undefined });
      // The exact bytes sent are the ones stored, so a replay is byte for byte the first answer.
      const body = result === undefined ? null : JSON.stringify(result);
      await this.store.save(client, credential, key, { fingerprint: fp, status_code: statusOf(context), body });
      return asJson(reply, body);
    });
  }
}

/** The status Nest answers the route with (its @HttpCode, else 201 for a POST). */
function statusOf(context: ExecutionContext): number {
  return (Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler()) as number | undefined) ?? HttpStatus.CREATED;
}

/** Serialized JSON sent as is (Fastify sends a string with a content type set unchanged). */
function asJson(reply: FastifyReply, body: string | null): string | undefined {
  if (body === null) return undefined;
  void reply.type('application/json; charset=utf-8');
  return body;
}

/** What makes two requests "the same": method, path with query, and the body as JSON (key order ignored). */
function fingerprint(req: FastifyRequest): string {
  return createHash('sha256')
    .update(`${req.method} ${req.url}\n`)
    .update(req.body === undefined ? '' : canonicalJson(req.body))
    .digest('hex');
}

/** JSON with object keys sorted at every level: `{"a":1,"b":2}` and `{"b":2,"a":1}` are one body. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
