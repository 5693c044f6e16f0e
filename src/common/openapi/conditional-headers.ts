import type { OpenAPIObject } from '@nestjs/swagger';
import { IF_NONE_MATCH_DOC } from '../http/conditional';

interface Operation {
  parameters?: Array<Record<string, unknown>>;
  responses?: Record<string, { description?: string; headers?: Record<string, unknown>; content?: unknown }>;
}

const PROBLEM = { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDto' } } };

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe (as Stripe defines it): the first request with a key runs and its response is kept 24 hours ' +
    'per credential and key; the same request again (method, path with query, body) gets that response with ' +
    '`Idempotent-Replayed: true` and writes nothing. The key with another request is 422 ' +
    '`idempotency_key_mismatch`; while the first still runs, 409 `idempotency_key_in_use`. A request that fails ' +
    'stores nothing. Use a new random value (a UUID) per operation.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[ -~]+$' },
};
const REPLAYED = {
  description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key.',
  schema: { type: 'string', enum: ['true'] },
};
const ETAG = (kind: string) => ({
  description: `${kind}; send it in If-None-Match to get 304 while it is current.`,
  schema: { type: 'string' },
});
const STRONG = 'Strong ETag `"<version>-<digest>"` of this record (the version its If-Match on PATCH/DELETE checks)';
const WEAK = 'Weak ETag of this answer (`W/"<digest>"`)';

/**
 * Declares Idempotency-Key on every POST of the API (with its 409 and 422), and ETag / If-None-Match / 304 on
 * every GET; the @Versioned routes declare If-Match and 412 themselves (http/conditional.ts). Runs before the
 * problem examples are generated, which read the codes named here.
 */
export function declareConditionalRequests(doc: OpenAPIObject): void {
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/api/v2/workspaces/') && !path.startsWith('/api/v2/users/')) continue;
    const ops = item as Record<string, Operation>;
    if (ops.post) declareIdempotency(ops.post);
    if (ops.get) declareEtag(ops.get);
    const patch = ops.patch;
    if (patch?.parameters?.some((p) => p.name === 'If-Match') && patch.responses?.['200']) {
      patch.responses['200'] = withHeaders(patch.responses['200'], {
        ETag: ETAG('Strong ETag of the record after the change (only when If-Match was sent)'),
      });
    }
  }
}

function declareIdempotency(op: Operation): void {
  (op.parameters ??= []).push({ ...IDEMPOTENCY_KEY });
  const responses = (op.responses ??= {});
  for (const [status, response] of Object.entries(responses)) {
    if (status.startsWith('2')) responses[status] = withHeaders(response, { 'Idempotent-Replayed': REPLAYED });
  }
  const conflict = responses['409'];
  const inUse = '`idempotency_key_in_use`: a request with the same Idempotency-Key is still running (see Retry-After)';
  responses['409'] = conflict
    ? { ...conflict, description: `${conflict.description ?? ''}; or ${inUse}` }
    : { description: inUse, content: PROBLEM };
  responses['422'] = {
    description: '`idempotency_key_mismatch`: the Idempotency-Key was used for another request in the last 24 hours',
    content: PROBLEM,
  };
}

function declareEtag(op: Operation): void {
  const responses = op.responses ?? {};
  if (!responses['200']) return;
  // The marker @Versioned leaves on its GETs (a strong tag); not part of the published document.
  const marked = op as { 'x-versioned'?: boolean };
  const strong = !!marked['x-versioned'];
  delete marked['x-versioned'];
  (op.parameters ??= []).push({ ...IF_NONE_MATCH_DOC, in: 'header', schema: { type: 'string' } });
  responses['200'] = withHeaders(responses['200'], { ETag: ETAG(strong ? STRONG : WEAK) });
  responses['304'] = {
    description: 'Not modified: the ETag in If-None-Match is current. No body.',
    headers: { ETag: ETAG(strong ? STRONG : WEAK) },
  };
}

function withHeaders<T extends { headers?: Record<string, unknown> }>(
  response: T,
  headers: Record<string, unknown>,
): T {
  return { ...response, headers: { ...(response.headers ?? {}), ...headers } };
}
