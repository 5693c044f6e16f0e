import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode } from '../errors/error-codes';
import { problemBody } from '../errors/problem.filter';

/** Deeper than any body the API defines (custom field values are arrays of scalars); guards the recursive validators. */
export const MAX_BODY_DEPTH = 32;

interface Flaw {
  field: string;
  message: string;
}

const NUL_MESSAGE = 'Must not contain the NUL character (\\u0000).';

/** The first NUL character or over-deep nesting in a parsed JSON value, with its field path. */
function flawIn(value: unknown, path: string, depth: number): Flaw | null {
  if (typeof value === 'string') return value.includes('\u0000') ? { field: path || 'body', message: NUL_MESSAGE } : null;
  if (value === null || typeof value !== 'object') return null;
  if (depth > MAX_BODY_DEPTH) return { field: path || 'body', message: `Nested more than ${MAX_BODY_DEPTH} levels deep.` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const f = flawIn(value[i], `${path}[${i}]`, depth + 1);
      if (f) return f;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value)) {
    const field = path ? `${path}.${k}` : k;
    if (k.includes('\u0000')) return { field: path || 'body', message: NUL_MESSAGE };
    const f = flawIn(v, field, depth + 1);
    if (f) return f;
  }
  return null;
}

function flawInMap(values: unknown): Flaw | null {
  if (!values || typeof values !== 'object') return null;
  for (const [k, v] of Object.entries(values)) {
    for (const s of Array.isArray(v) ? v : [v]) {
      if ((typeof s === 'string' && s.includes('\u0000')) || k.includes('\u0000')) return { field: k, message: NUL_MESSAGE };
    }
  }
  return null;
}

/**
 * PostgreSQL text cannot hold NUL, and class-transformer recurses once per nesting level: both reached
 * the database or the stack as a 500. Every route's path parameters, query parameters and JSON body are
 * checked once, after parsing and before the handler, and a flaw is a 400 validation_error naming it.
 */
export function rejectUnstorableInput(fastify: FastifyInstance, baseUrl: string): void {
  fastify.addHook('preValidation', async (req: FastifyRequest, reply: FastifyReply) => {
    const flaw = flawInMap(req.params) ?? flawInMap(req.query) ?? flawIn(req.body, '', 1);
    if (!flaw) return;
    await reply
      .code(400)
      .type('application/problem+json; charset=utf-8')
      .send(problemBody(baseUrl, ErrorCode.ValidationError, `${flaw.field}: ${flaw.message}`, [flaw]));
  });
}
