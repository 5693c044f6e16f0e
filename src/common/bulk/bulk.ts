import { applyDecorators, ArgumentMetadata, Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsObject, IsOptional, IsUUID } from 'class-validator';
import { ErrorCode } from '../errors/error-codes';
import { FieldError, ProblemException } from '../errors/problem.exception';
import { FieldErrorDto, ProblemDto } from '../openapi/problem-responses';
import { BodyValidationPipe } from '../http/validation';

/**
 * Bulk writes of the later edition (gap-reference 9.6): `bulk-create/`, `bulk-update/` (`{items, all_or_none}`),
 * `bulk-delete/` (`{ids, all_or_none}`). At most BULK_MAX_ITEMS rows (400 above); every row is answered in
 * `results` by its index, 200 even when rows failed; with `all_or_none` a failed row means nothing was written and
 * the answer is 409 carrying the same results. A feature evaluates each row with the rules of its single operation.
 */
export const BULK_MAX_ITEMS = 50;

export class BulkWriteBodyDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    minItems: 1,
    maxItems: BULK_MAX_ITEMS,
    description: `1 to ${BULK_MAX_ITEMS} write bodies, each validated like the single operation's (bulk-update: each with its id).`,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(BULK_MAX_ITEMS)
  @IsObject({ each: true })
  items!: Array<Record<string, unknown>>;

  @ApiPropertyOptional({
    default: false,
    description: 'true: if any row fails, nothing is written and the answer is 409 with the per-row results.',
  })
  @IsOptional()
  @IsBoolean()
  all_or_none?: boolean;
}

export class BulkDeleteBodyDto {
  @ApiProperty({ type: [String], format: 'uuid', minItems: 1, maxItems: BULK_MAX_ITEMS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(BULK_MAX_ITEMS)
  @IsUUID('all', { each: true })
  ids!: string[];

  @ApiPropertyOptional({
    default: false,
    description: 'true: if any row fails, nothing is deleted and the answer is 409 with the per-row results.',
  })
  @IsOptional()
  @IsBoolean()
  all_or_none?: boolean;
}

export class BulkRowResultDto {
  @ApiProperty({ type: 'integer', description: 'Position of the row in items / ids.' }) index!: number;
  @ApiProperty({ enum: ['created', 'updated', 'deleted', 'failed'] }) result!: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'The row written, or the id a failed row named.' }) id?: string;
  @ApiPropertyOptional({ description: 'Failed rows: the problem type URI.' }) type?: string;
  @ApiPropertyOptional({ enum: Object.values(ErrorCode), description: 'Failed rows: the problem code.' }) code?: string;
  @ApiPropertyOptional({ description: 'Failed rows: what is wrong.' }) detail?: string;
  @ApiPropertyOptional({ type: [FieldErrorDto], description: 'Failed rows with validation_error.' })
  errors?: FieldErrorDto[];
}

export class BulkWriteResponseDto {
  @ApiProperty({ type: [BulkRowResultDto] }) results!: BulkRowResultDto[];
  @ApiProperty({ type: 'integer' }) succeeded!: number;
  @ApiProperty({ type: 'integer' }) failed!: number;
}

/** The 409 of an all_or_none write with a failed row: a problem carrying every row's outcome. */
export class BulkConflictDto extends ProblemDto {
  @ApiPropertyOptional({
    type: [BulkRowResultDto],
    description:
      'Every row of an all_or_none request that failed (absent on other 409s: project_archived, a concurrent write).',
  })
  results?: BulkRowResultDto[];
}

/** OpenAPI of a bulk route: the 200 answer and the all_or_none 409. */
export function ApiBulkResponses(): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(BulkConflictDto),
    ApiOkResponse({ type: BulkWriteResponseDto, description: 'Every row answered by index (failed rows too).' }),
    ApiResponse({
      status: 409,
      description:
        '`conflict`: all_or_none was set and a row failed (nothing written; `results` holds every row), or a concurrent write',
      content: { 'application/problem+json': { schema: { $ref: getSchemaPath(BulkConflictDto) } } },
    }),
  );
}

export type RowWritten = { index: number; result: 'created' | 'updated' | 'deleted'; id: string };
export type RowFailed = {
  index: number;
  result: 'failed';
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
  id?: string;
};
export type RowOutcome = RowWritten | RowFailed;

/** A row's failure from the problem its rule threw; anything else (a bug, the database gone) fails the request. */
export function rowFailure(index: number, e: unknown, id?: string): RowFailed {
  if (!(e instanceof ProblemException)) throw e;
  return {
    index,
    result: 'failed',
    code: e.code,
    detail: e.detail,
    ...(e.errors?.length ? { errors: e.errors } : {}),
    ...(id ? { id } : {}),
  };
}

const bodyPipe = new BodyValidationPipe();

/** Validates each item as the single operation's body (the global pipe's rules): the DTO, or the row's failure. */
export async function validateRows<T extends object>(
  dto: Type<T>,
  items: Array<Record<string, unknown>>,
): Promise<Array<{ index: number; value: T } | RowFailed>> {
  const meta: ArgumentMetadata = { type: 'body', metatype: dto };
  return Promise.all(
    items.map(async (item, index) => {
      try {
        return { index, value: (await bodyPipe.transform(item, meta)) as T };
      } catch (e) {
        return rowFailure(index, e);
      }
    }),
  );
}

/** Validates a single body (upsert's) as the global pipe would: the DTO, or the pipe's 400. */
export async function validateOne<T extends object>(dto: Type<T>, body: unknown): Promise<T> {
  return (await bodyPipe.transform(body, { type: 'body', metatype: dto })) as T;
}

/** A row that passed its checks but was not written because all_or_none saw another row fail. */
export function notWritten(p: { index: number }): RowFailed {
  return rowFailure(
    p.index,
    ProblemException.conflict('Not written: another row of this request failed and all_or_none is set.'),
  );
}

export const isFailed = (r: { index: number } | RowFailed): r is RowFailed => (r as RowFailed).result === 'failed';

/** Thrown inside a bulk write's transaction to roll it back when all_or_none saw a failed row. */
export class BulkAborted extends Error {
  constructor(readonly outcomes: RowOutcome[]) {
    super('bulk write aborted: all_or_none and a failed row');
  }
}

/** The answer: 200 with every row's outcome in index order, or (all_or_none, a row failed) 409 with them. */
export function bulkAnswer(outcomes: RowOutcome[], allOrNone: boolean, baseUrl: string): BulkWriteResponseDto {
  const results = [...outcomes].sort((a, b) => a.index - b.index).map((o) => rowBody(o, baseUrl));
  const failed = results.filter((r) => r.result === 'failed').length;
  if (allOrNone && failed) {
    throw new ProblemException(
      ErrorCode.Conflict,
      `${failed} of ${results.length} rows failed and all_or_none is set: nothing was written. See results.`,
      undefined,
      undefined,
      { results },
    );
  }
  return { results, succeeded: results.length - failed, failed };
}

function rowBody(o: RowOutcome, baseUrl: string): BulkRowResultDto {
  if (o.result !== 'failed') return o;
  const { index, result, code, ...rest } = o;
  return { index, result, type: `${baseUrl}/errors/${code}`, code, ...rest };
}
