import type { OpenAPIObject } from '@nestjs/swagger';
import { ERROR_CODES, ErrorCode, isErrorCode } from '../errors/error-codes';
import { problemBody } from '../errors/problem.filter';
import type { FieldError } from '../errors/problem.exception';
import { unstorable } from '../http/request-sanity';

interface Parameter {
  name: string;
  in: string;
  schema?: { format?: string };
}
interface Response {
  description?: string;
  content?: Record<string, { schema?: unknown; example?: unknown; examples?: unknown }>;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: unknown;
  responses?: Record<string, Response>;
}

const PROBLEM = 'application/problem+json';

/**
 * The codes a problem response documents: those its description names (`conflict`, `workflow_transition_denied`,
 * ...) that belong to its status, else the usual code of the status (its first row in the error-code table).
 */
export function documentedCodes(status: number, description = '', isList = true): ErrorCode[] {
  const named = [...description.matchAll(/`([a-z_]+)`/g)]
    .map((m) => m[1])
    .filter((c): c is ErrorCode => isErrorCode(c) && ERROR_CODES[c].status === status)
    // The shared 400 description names the cursor refusal "on lists": only a list can answer it.
    .filter((c) => isList || c !== ErrorCode.OrderingNotCursorEligible);
  if (named.length) return [...new Set(named)];
  const usual = (Object.keys(ERROR_CODES) as ErrorCode[]).find((c) => ERROR_CODES[c].status === status);
  return usual ? [usual] : [];
}

/**
 * A 400 this very operation answers, whatever the caller's data: malformed JSON for an operation with a body, a
 * malformed id in the path, a NUL character in a query parameter (request-sanity.ts).
 */
function validationExample(op: Operation): { detail: string; errors?: FieldError[] } {
  const fail = (field: string, message: string) => ({ detail: `${field}: ${message}`, errors: [{ field, message }] });
  if (op.requestBody) return fail('body', 'The request body is not valid JSON.');
  const params = op.parameters ?? [];
  const uuid = params.filter((p) => p.in === 'path' && p.schema?.format === 'uuid').pop();
  if (uuid) return fail(uuid.name, 'Must be a valid UUID.');
  const query = params.find((p) => p.in === 'query');
  if (query) return fail(query.name, unstorable('\u0000')!);
  return ERROR_CODES[ErrorCode.ValidationError].example;
}

/** The detail a description quotes for the code (`conflict`: "The default state cannot be deleted."), if any. */
function quotedDetail(code: ErrorCode, description: string): string | undefined {
  return new RegExp('`' + code + '`: "([^"]+)"').exec(description)?.[1];
}

function exampleBody(baseUrl: string, code: ErrorCode, op: Operation, description: string) {
  const { detail, errors } = code === ErrorCode.ValidationError ? validationExample(op) : ERROR_CODES[code].example;
  return problemBody(baseUrl, code, quotedDetail(code, description) ?? detail, errors);
}

/**
 * Gives every problem response of the document its own example, built from the error-code table: without one,
 * Swagger UI renders ProblemDto's property examples (a 400 validation_error) under every status. A response
 * naming several codes gets one named example per code. Response objects are shared between operations, so
 * each gets a copy.
 */
export function addProblemExamples(doc: OpenAPIObject, baseUrl: string): void {
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as Operation[]) {
      if (!op?.responses) continue;
      for (const [status, response] of Object.entries(op.responses)) {
        const media = response.content?.[PROBLEM];
        const isList = !!op.parameters?.some((p) => p.in === 'query' && p.name === 'paginate');
        const codes = media ? documentedCodes(Number(status), response.description, isList) : [];
        if (!media || !codes.length) continue;
        const { example: _e, examples: _es, ...rest } = media;
        const body = (code: ErrorCode) => exampleBody(baseUrl, code, op, response.description ?? '');
        const withExample =
          codes.length === 1
            ? { ...rest, example: body(codes[0]) }
            : {
                ...rest,
                examples: Object.fromEntries(codes.map((c) => [c, { summary: ERROR_CODES[c].title, value: body(c) }])),
              };
        op.responses[status] = { ...response, content: { ...response.content, [PROBLEM]: withExample } };
      }
    }
  }
}
