import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  RequestMethod,
  SetMetadata,
} from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { ApiExtension, ApiHeader, ApiResponse } from '@nestjs/swagger';
import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PoolClient } from 'pg';
import { from, lastValueFrom, Observable, tap } from 'rxjs';
import { DataSource } from 'typeorm';
import { poolReader } from '../database/prepared';
import { inTransactionScope } from '../database/transaction-scope';
import { ErrorCode } from '../errors/error-codes';
import { ProblemException } from '../errors/problem.exception';

/**
 * ETags and conditional requests (RFC 9110 section 13), as GitHub serves them.
 *
 * - Every 200 JSON answer to a GET carries an ETag; `If-None-Match` naming it answers 304 with no body.
 *   A route marked `@Versioned(table)` gets a strong tag `"<version>-<digest>"`: the record's row version
 *   (columns.ts RowVersion) read before the handler, and a digest of the representation (so `?expand=` and
 *   `?fields=` variants differ). Every other GET (lists, pages of a record) gets a weak tag `W/"<digest>"`.
 * - A PATCH or DELETE of a `@Versioned` route with `If-Match` runs in a transaction scope whose first statement
 *   is an UPDATE of the record's version guarded by the versions the tags name: it locks the row, so the check
 *   and the handler's write are one atomic step; a concurrent request with the same tag waits for the lock and
 *   then matches nothing. When nothing matched, the request writes nothing: the handler runs only to produce its
 *   own refusal (404, 403, ...); had it succeeded, it is rolled back and answered 412 `precondition_failed`.
 *   Without `If-Match` a request runs exactly as before.
 */
export interface VersionedRoute {
  table: string;
  /**
   * How the record is found: the path parameter holding its id, or a map from each key column to the path
   * parameter holding it (`@workspace` / `@project`: the request's workspace or project, for records without an id
   * of their own, as features are, or whose project may be addressed by identifier).
   */
  param: string | Record<string, string>;
  /** The GET's service reads the version with the record and hands it over (withRowVersion): no read of its own. */
  supplied?: boolean;
}

const VERSIONED = 'wt:versioned';
/** A malformed id is the handler's 400 to give: no statement is sent with it. */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

declare module 'fastify' {
  interface FastifyRequest {
    /** The row version the response represents: makes its ETag strong. */
    rowVersion?: number;
  }
}

const IF_MATCH_DOC = {
  name: 'If-Match',
  required: false,
  description:
    'ETags (from a GET of this record) the record must still have: otherwise 412 `precondition_failed` and ' +
    'nothing is written. `*` matches any existing record. Without it the request runs unconditionally.',
};
export const IF_NONE_MATCH_DOC = {
  name: 'If-None-Match',
  required: false,
  description: 'ETags the client holds: when one is current the answer is 304 with no body.',
};

/**
 * Marks a single-record route of a versioned table (migrations' VERSIONED_TABLES): its GET gets a strong ETag,
 * its PATCH and DELETE honour `If-Match`. `param` names the path parameter with the record's id.
 */
export function Versioned(
  table: string,
  param: string | Record<string, string> = 'pk',
  opts: { supplied?: boolean } = {},
): MethodDecorator {
  return (target, key, descriptor) => {
    const method = Reflect.getMetadata(METHOD_METADATA, descriptor.value as object) as RequestMethod | undefined;
    if (method === undefined) throw new Error(`@Versioned on ${String(key)}: put it above the route decorator`);
    const isGet = method === RequestMethod.GET;
    const docs = isGet
      ? [ApiExtension('x-versioned', true)]
      : [
          ApiHeader(IF_MATCH_DOC),
          ApiResponse({
            status: 412,
            description: '`precondition_failed`: the record changed since the ETag in If-Match; nothing was written',
            content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDto' } } },
          }),
        ];
    applyDecorators(SetMetadata(VERSIONED, { table, param, ...opts } satisfies VersionedRoute), ...docs)(
      target,
      key,
      descriptor,
    );
  };
}

const supplied = new WeakMap<object, number>();

/**
 * A service that read the record's version in the statement that read the record hands it over with the response
 * object: the ETag is then of one snapshot with the body, and the GET costs no statement of its own. Its route is
 * marked `@Versioned(table, param, { supplied: true })`; any other GET returning such an object gets a strong tag too.
 */
export function withRowVersion<T extends object>(dto: T, version: number): T {
  supplied.set(dto, version);
  return dto;
}

function suppliedVersion(result: unknown): number | undefined {
  return result !== null && typeof result === 'object' ? supplied.get(result) : undefined;
}

/** The versions a strong `If-Match` list names (`*` is null: any existing record); weak or malformed tags name none. */
export function ifMatchVersions(header: string): number[] | null {
  if (header.trim() === '*') return null;
  const versions: number[] = [];
  for (const m of header.matchAll(/(W\/)?"([^"]*)"/g)) {
    const v = /^(\d{1,9})-[A-Za-z0-9_-]+$/.exec(m[2]);
    if (!m[1] && v) versions.push(Number(v[1]));
  }
  return versions;
}

@Injectable()
export class ConditionalInterceptor implements NestInterceptor {
  constructor(
    private readonly ds: DataSource,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const route = this.reflector.get<VersionedRoute | undefined>(VERSIONED, context.getHandler());
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const row = route && recordOf(req, route);
    if (req.method === 'GET' && !route?.supplied && row) return from(this.versionedGet(req, row, next));
    if (req.method === 'GET') return next.handle().pipe(tap((result) => (req.rowVersion = suppliedVersion(result))));
    if (!row) return next.handle();
    const ifMatch = req.headers['if-match'];
    if ((req.method !== 'PATCH' && req.method !== 'DELETE') || ifMatch === undefined) return next.handle();
    const versions = ifMatchVersions(Array.isArray(ifMatch) ? ifMatch.join(',') : ifMatch);
    if (versions === null) return next.handle();
    return from(this.conditionalWrite(req, row, versions, next));
  }

  /** The version is read before the record: a tag may be older than the body it labels, never newer. */
  private async versionedGet(req: FastifyRequest, row: VersionedRecord, next: CallHandler): Promise<unknown> {
    const rows = await poolReader(this.ds).query<Array<{ version: number }>>(
      `SELECT version FROM ${row.table} WHERE ${row.where}`,
      row.values,
    );
    const result: unknown = await lastValueFrom(next.handle(), { defaultValue: undefined });
    if (rows[0]) req.rowVersion = rows[0].version;
    return result;
  }

  private async conditionalWrite(
    req: FastifyRequest,
    row: VersionedRecord,
    versions: number[],
    next: CallHandler,
  ): Promise<unknown> {
    return inTransactionScope(this.ds, async (client) => {
      const matched = await lockIfCurrent(client, row, versions);
      const result: unknown = await lastValueFrom(next.handle(), { defaultValue: undefined });
      if (!matched) {
        throw new ProblemException(
          ErrorCode.PreconditionFailed,
          'The record has changed since the ETag in If-Match was issued (or the tag is not one of its ETags); nothing was written.',
        );
      }
      const after = await client.query<{ version: number }>(
        `SELECT version FROM ${row.table} WHERE ${row.where}`,
        row.values,
      );
      if (after.rows[0]) req.rowVersion = after.rows[0].version;
      return result;
    });
  }
}

/** The compare-and-lock: one UPDATE that matches only while the version is one the client named. */
async function lockIfCurrent(client: PoolClient, row: VersionedRecord, versions: number[]): Promise<boolean> {
  if (!versions.length) return false;
  const res = await client.query(
    `UPDATE ${row.table} SET version = version WHERE ${row.where} AND version = ANY($${row.values.length + 1}::int[])`,
    [...row.values, versions],
  );
  return res.rowCount === 1;
}

/** The record a versioned route names: its table and the key condition (always within the request's workspace). */
interface VersionedRecord {
  table: string;
  where: string;
  values: string[];
}

/** Undefined when a key value is missing or not a UUID (the handler gives its own 400 or 404, no statement is sent). */
function recordOf(req: FastifyRequest, route: VersionedRoute): VersionedRecord | undefined {
  const workspaceId = req.ctx?.workspace?.id;
  if (!workspaceId) return undefined;
  const key = typeof route.param === 'string' ? { id: route.param } : route.param;
  const params = req.params as Record<string, string | undefined>;
  const where = ['workspace_id = $1'];
  const values = [workspaceId];
  for (const [column, source] of Object.entries(key)) {
    // A project addressed by its identifier (`projects/ENG/`) is the project the guard resolved.
    const project = source === '@project' || source === 'project_id';
    const value = source === '@workspace' ? workspaceId : project ? req.ctx?.project?.id : params[source];
    if (!value || !UUID_RE.test(value)) return undefined;
    values.push(value);
    where.push(`${column} = $${values.length}`);
  }
  return { table: route.table, where: where.join(' AND '), values };
}

/** A short digest of a representation (SHA-1 is fast and plenty for telling two bodies apart). */
function digest(payload: string | Buffer): string {
  // One-shot hash(): no Hash object per call (about half the cost of createHash on a small body).
  return hash('sha1', payload, 'base64url');
}

/** Whether an `If-None-Match` list names `tag` (weak comparison, RFC 9110 13.1.2), or is `*`. */
export function noneMatchHits(header: string, tag: string): boolean {
  if (header.trim() === '*') return true;
  const opaque = tag.replace(/^W\//, '');
  return [...header.matchAll(/(?:W\/)?("[^"]*")/g)].some((m) => m[1] === opaque);
}

/**
 * The ETag of every 200 JSON answer to a GET (and of a conditional PATCH's answer), and 304 for `If-None-Match`.
 * Runs on the serialized payload, so a tag costs one digest and no second serialization.
 */
export function conditionalResponses(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (req: FastifyRequest, reply: FastifyReply, payload: unknown, next) => {
    const tagged =
      reply.statusCode === 200 &&
      (typeof payload === 'string' || Buffer.isBuffer(payload)) &&
      (req.method === 'GET' || req.rowVersion !== undefined) &&
      String(reply.getHeader('content-type') ?? '').includes('json');
    if (!tagged) return next(null, payload);
    // Encoded once: the digest reads these bytes and the socket is handed them (a string would be encoded twice).
    const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
    const hash = digest(body);
    const tag = req.rowVersion !== undefined ? `"${req.rowVersion}-${hash}"` : `W/"${hash}"`;
    void reply.header('ETag', tag);
    const inm = req.headers['if-none-match'];
    if (req.method === 'GET' && typeof inm === 'string' && noneMatchHits(inm, tag)) {
      void reply.code(304);
      reply.removeHeader('content-type');
      reply.removeHeader('content-length');
      return next(null, '');
    }
    next(null, body);
  });
}
