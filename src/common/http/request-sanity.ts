import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemException } from '../errors/problem.exception';

/** Deeper than any body the API defines (custom field values are arrays of scalars); guards the recursive validators. */
export const MAX_BODY_DEPTH = 32;

const NUL_MESSAGE = 'Must not contain the NUL character (\\u0000).';
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

/** The first NUL character or over-deep nesting in a parsed JSON value, with its field path. */
function flawIn(value: unknown, path: string, depth: number): ProblemException | null {
  if (typeof value === 'string') return value.includes('\u0000') ? ProblemException.validation(path || 'body', NUL_MESSAGE) : null;
  if (value === null || typeof value !== 'object') return null;
  if (depth > MAX_BODY_DEPTH) return ProblemException.validation(path || 'body', `Nested more than ${MAX_BODY_DEPTH} levels deep.`);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const f = flawIn(value[i], `${path}[${i}]`, depth + 1);
      if (f) return f;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k.includes('\u0000')) return ProblemException.validation(path || 'body', NUL_MESSAGE);
    const f = flawIn(v, path ? `${path}.${k}` : k, depth + 1);
    if (f) return f;
  }
  return null;
}

function flawInMap(values: unknown): ProblemException | null {
  if (!values || typeof values !== 'object') return null;
  for (const [k, v] of Object.entries(values)) {
    for (const s of Array.isArray(v) ? v : [v]) {
      if ((typeof s === 'string' && s.includes('\u0000')) || k.includes('\u0000')) return ProblemException.validation(k, NUL_MESSAGE);
    }
  }
  return null;
}

/**
 * PostgreSQL text cannot hold NUL, and class-transformer recurses once per nesting level: both reached
 * the database or the stack as a 500. Every route's path parameters, query parameters and JSON body are
 * checked once, after parsing; a flaw is a 400 validation_error naming it (raised after authentication).
 */
export function checkStorableInput(fastify: FastifyInstance): void {
  // Callback style: no promise per request for a check that is synchronous.
  fastify.addHook('preValidation', (req: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    const flaw = flawInMap(req.params) ?? flawInMap(req.query) ?? flawIn(req.body, '', 1);
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
