import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemException } from '../errors/problem.exception';

/** Deeper than any body the API defines (custom field values are arrays of scalars); guards the recursive validators. */
export const MAX_BODY_DEPTH = 32;

/**
 * More object members and array elements than any body the API defines holds (a work item with 100 assignees,
 * 100 labels and every custom field is a few hundred): the validators' cost grows faster than linearly with
 * the width of an object, so a wide body under the size limit could hold the event loop for seconds.
 */
export const MAX_BODY_MEMBERS = 10000;

const NUL_MESSAGE = 'Must not contain the NUL character (\\u0000).';
const SURROGATE_MESSAGE = 'Must be valid Unicode: contains an unpaired surrogate (\\uD800-\\uDFFF).';
/** With the u flag a well-formed pair is one code point; only a lone surrogate is category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Why a string cannot be stored (PostgreSQL text holds neither NUL nor unpaired surrogates), or null. */
export function unstorable(s: string): string | null {
  if (s.includes('\u0000')) return NUL_MESSAGE;
  return LONE_SURROGATE.test(s) ? SURROGATE_MESSAGE : null;
}
const DEFERRED = Symbol('deferredInputProblem');

type Deferring = FastifyRequest & { [DEFERRED]?: ProblemException };

/**
 * Records a problem with the request's input, raised by InputProblemGuard after authentication: the
 * order of checks is credentials (401), tenant wall (404), role (403), then input (400/415), so a
 * caller without access learns nothing from how its input was wrong. The first problem found wins.
 */
export function deferInputProblem(req: FastifyRequest, problem: ProblemException): void {
  (req as Deferring)[DEFERRED] ??= problem;
}

/** The first unstorable string, over-deep nesting or excess width in a parsed JSON value, with its field path. */
function flawIn(value: unknown, path: string, depth: number, seen: { members: number }): ProblemException | null {
  if (typeof value === 'string') {
    const why = unstorable(value);
    return why ? ProblemException.validation(path || 'body', why) : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth > MAX_BODY_DEPTH)
    return ProblemException.validation(path || 'body', `Nested more than ${MAX_BODY_DEPTH} levels deep.`);
  if (Array.isArray(value)) {
    if ((seen.members += value.length) > MAX_BODY_MEMBERS) return tooWide(path);
    for (let i = 0; i < value.length; i++) {
      const f = flawIn(value[i], `${path}[${i}]`, depth + 1, seen);
      if (f) return f;
    }
    return null;
  }
  const entries = Object.entries(value);
  if ((seen.members += entries.length) > MAX_BODY_MEMBERS) return tooWide(path);
  for (const [k, v] of entries) {
    const why = unstorable(k);
    if (why) return ProblemException.validation(path || 'body', why);
    const f = flawIn(v, path ? `${path}.${k}` : k, depth + 1, seen);
    if (f) return f;
  }
  return null;
}

function tooWide(path: string): ProblemException {
  return ProblemException.validation(
    path || 'body',
    `Holds more than ${MAX_BODY_MEMBERS} members and elements in all.`,
  );
}

function flawInMap(values: unknown): ProblemException | null {
  if (!values || typeof values !== 'object') return null;
  for (const [k, v] of Object.entries(values)) {
    for (const s of Array.isArray(v) ? v : [v]) {
      const why = unstorable(k) ?? (typeof s === 'string' ? unstorable(s) : null);
      if (why) return ProblemException.validation(k, why);
    }
  }
  return null;
}

/**
 * PostgreSQL text cannot hold NUL or unpaired surrogates, and class-transformer recurses once per nesting
 * level: all reached the database or the stack as a 500 (or a 400 naming no field). Every route's path parameters, query parameters and JSON body are
 * checked once, after parsing; a flaw is a 400 validation_error naming it (raised after authentication).
 */
export function checkStorableInput(fastify: FastifyInstance): void {
  // Callback style: no promise per request for a check that is synchronous.
  fastify.addHook('preValidation', (req: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    const flaw = flawInMap(req.params) ?? flawInMap(req.query) ?? flawIn(req.body, '', 1, { members: 0 });
    if (flaw) deferInputProblem(req, flaw);
    done();
  });
}

/** Raises the input problem recorded for the request, after the credential, tenant and role guards. */
@Injectable()
export class InputProblemGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const problem = context.switchToHttp().getRequest<Deferring>()[DEFERRED];
    if (problem) throw problem;
    return true;
  }
}
