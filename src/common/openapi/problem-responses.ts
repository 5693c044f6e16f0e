import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ErrorCode } from '../errors/error-codes';

export class FieldErrorDto {
  @ApiProperty({ example: 'name' }) field!: string;
  @ApiProperty({ example: 'name must be shorter than or equal to 255 characters' }) message!: string;
}

/** RFC 9457 problem details, the body of every failure. */
export class ProblemDto {
  @ApiProperty({
    example: 'http://localhost:3000/errors/validation_error',
    description: "The code's entry in the error catalogue (GET it: HTML for browsers, JSON otherwise).",
  })
  type!: string;
  @ApiProperty({ example: 'Validation error' }) title!: string;
  @ApiProperty({ type: 'integer', example: 400 }) status!: number;
  @ApiProperty({ enum: Object.values(ErrorCode), example: 'validation_error' }) code!: string;
  @ApiProperty({ example: 'name: name should not be empty' }) detail!: string;
  @ApiPropertyOptional({ type: [FieldErrorDto], description: 'Present on validation_error.' }) errors?: FieldErrorDto[];
}

const DESCRIPTIONS: Record<number, string> = {
  400: '`validation_error` (or `ordering_not_cursor_eligible` on lists)',
  401: '`unauthorized`: missing or invalid credentials',
  403: '`forbidden`: role or token scope insufficient',
  404: '`resource_not_found`: no such record in this tenant',
  405: '`method_not_allowed`',
  409: '`conflict`',
  413: '`payload_too_large`',
  415: '`unsupported_media_type`',
  429: '`rate_limited`: see Retry-After',
};

/** Headers of a 429 (credential-throttler.guard.ts sets them). */
const RATE_LIMIT_HEADERS = {
  'Retry-After': { description: 'Seconds until the budget refills.', schema: { type: 'integer' } },
  'X-RateLimit-Limit': { description: 'Requests allowed per window.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window (0 here).', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
};

/** Problem+json responses of an operation; `extra` overrides descriptions (e.g. mode-gating 409s). */
export function ApiProblemResponses(...statuses: Array<number | [number, string]>): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(ProblemDto),
    ...statuses.map((s) => {
      const [status, description] = Array.isArray(s) ? s : [s, DESCRIPTIONS[s] ?? 'Problem'];
      return ApiResponse({
        status,
        description,
        content: { 'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDto) } } },
        ...(status === 429 ? { headers: RATE_LIMIT_HEADERS } : {}),
      });
    }),
  );
}

/**
 * The 400 every operation can answer, whatever its own inputs: a NUL character in any query parameter, a
 * body nested past 32 levels, `?expand=` where none is accepted (request-sanity.ts, expand/). Added by
 * buildOpenApi to operations that declare no 400 of their own.
 */
export const GENERIC_INPUT_PROBLEM = problemResponse(
  '`validation_error`: a malformed parameter or body (a NUL character, nesting past 32 levels, `expand` where none is accepted)',
);

/** A problem+json response object for documents post-processed by buildOpenApi. */
function problemResponse(description: string) {
  return {
    description,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDto' } } },
  };
}

/** A body over BODY_LIMIT_BYTES (cut off while being read, before the credential check). */
export const BODY_TOO_LARGE = problemResponse(
  '`payload_too_large`: the body exceeds the configured limit (1 MiB by default)',
);

/** A body that is not JSON (`application/json` or `+json`). */
export const BODY_NOT_JSON = problemResponse('`unsupported_media_type`: the body is not JSON');

/** The database cannot be reached (down, restarting, refusing connections): temporary, see Retry-After. */
export const DATABASE_UNAVAILABLE = {
  ...problemResponse('`service_unavailable`: the database cannot be reached; retry after the time in Retry-After'),
  headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } },
};

/** A failure of the server itself: a problem with no detail of its cause (logged with the request id). */
export const INTERNAL_ERROR = problemResponse(
  '`internal_error`: an unexpected failure of the server; the body names no cause',
);

/** A write rolled back because a concurrent one conflicted with it (PostgreSQL 40001, 40P01): safe to retry. */
export const WRITE_CONFLICT = problemResponse(
  '`conflict`: the write met a concurrent change and was rolled back; retry it',
);
