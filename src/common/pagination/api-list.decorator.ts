import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiQuery, getSchemaPath } from '@nestjs/swagger';
import { FilterType, ListSpec } from './list-spec';
import { OFFSET_MAX, PER_PAGE_DEFAULT, PER_PAGE_MAX } from './list-query';
import { ApiProblemResponses } from '../openapi/problem-responses';

const SCHEMA: Record<FilterType, Record<string, unknown>> = {
  uuid: { type: 'string', format: 'uuid' },
  string: { type: 'string' },
  int: { type: 'integer' },
  bool: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  datetime: { type: 'string', format: 'date-time' },
  enum: { type: 'string' },
};

/** OpenAPI parameters of a list endpoint, generated from the same ListSpec that parses them. */
export function ApiListQuery(spec: ListSpec): MethodDecorator {
  const decorators = [...paginationParams(spec)];
  if (spec.search?.length)
    decorators.push(
      ApiQuery({
        name: 'search',
        required: false,
        schema: { type: 'string' },
        description: 'Case-insensitive substring match.',
      }),
    );
  decorators.push(...filterParams(spec));
  decorators.push(
    ApiProblemResponses(
      [400, '`validation_error` (bad filter, per_page, offset or cursor) or `ordering_not_cursor_eligible`'],
      404,
    ),
  );
  return applyDecorators(...decorators);
}

/** per_page, offset, count, paginate, cursor and order_by (with the spec's orderings). */
function paginationParams(spec: ListSpec): MethodDecorator[] {
  const orderValues = Object.keys(spec.orderings).flatMap((k) => [k, `-${k}`]);
  const eligible = Object.entries(spec.orderings)
    .filter(([, d]) => d.cursor)
    .map(([k]) => k);
  return [
    ApiQuery({
      name: 'per_page',
      required: false,
      schema: { type: 'integer', minimum: 1, default: PER_PAGE_DEFAULT },
      description: `Page size; values above ${PER_PAGE_MAX} are clamped.`,
    }),
    ApiQuery({
      name: 'offset',
      required: false,
      schema: { type: 'integer', minimum: 0, maximum: OFFSET_MAX, default: 0 },
      description: 'Offset pagination start; past the cap use paginate=cursor.',
    }),
    ApiQuery({
      name: 'count',
      required: false,
      schema: { type: 'boolean', default: true },
      description: 'false omits total_count (offset mode).',
    }),
    ApiQuery({
      name: 'paginate',
      required: false,
      // The server takes any value (gap-reference 1.1): the enum lists the meaningful ones, the string the rest.
      schema: { anyOf: [{ type: 'string', enum: ['cursor', 'offset'] }, { type: 'string' }] } as never,
      description: '`cursor` selects cursor mode; any other value means offset.',
    }),
    ApiQuery({
      name: 'cursor',
      required: false,
      schema: { type: 'string' },
      description: 'Opaque next_cursor token; repeat filters, order_by and per_page with it.',
    }),
    ApiQuery({
      name: 'order_by',
      required: false,
      // An unknown value falls back to the default (gap-reference 1.1), so any string is accepted.
      schema: {
        anyOf: [{ type: 'string', enum: orderValues }, { type: 'string' }],
        default: spec.defaultOrder,
      } as never,
      description: `Ordering (prefix - for descending). Cursor-eligible: ${eligible.join(', ') || 'none'}. Unknown values fall back to ${spec.defaultOrder}.`,
    }),
  ];
}

/** One parameter per filter and operator (`name`, `name__in`, `name__gte`, ...). */
function filterParams(spec: ListSpec): MethodDecorator[] {
  const out: MethodDecorator[] = [];
  for (const f of spec.filters) {
    const base = f.type === 'enum' ? { type: 'string', enum: [...(f.values ?? [])] } : SCHEMA[f.type];
    for (const op of f.ops) {
      const name = op === 'eq' ? f.name : `${f.name}__${op}`;
      const schema =
        op === 'isnull'
          ? { type: 'boolean' }
          : op === 'in'
            ? { type: 'string', description: 'Comma-separated values' }
            : base;
      out.push(ApiQuery({ name, required: false, schema: schema as never, description: f.description }));
    }
  }
  return out;
}

/** 200 response of a list: the offset or the cursor envelope around `item`. */
export function ApiListResponse(item: Type<unknown>): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(item),
    ApiOkResponse({
      description: 'Offset envelope by default; cursor envelope with paginate=cursor. Branch on pagination.style.',
      schema: {
        oneOf: [
          {
            type: 'object',
            title: 'OffsetPage',
            required: ['data', 'next', 'previous', 'pagination'],
            properties: {
              data: { type: 'array', items: { $ref: getSchemaPath(item) } },
              next: { type: 'integer', nullable: true },
              previous: { type: 'integer', nullable: true },
              total_count: { type: 'integer', description: 'Omitted when count=false.' },
              pagination: { type: 'object', properties: { style: { type: 'string', enum: ['offset'] } } },
            },
          },
          {
            type: 'object',
            title: 'CursorPage',
            required: ['data', 'next_cursor', 'has_more', 'pagination'],
            properties: {
              data: { type: 'array', items: { $ref: getSchemaPath(item) } },
              next_cursor: { type: 'string', nullable: true },
              has_more: { type: 'boolean' },
              pagination: { type: 'object', properties: { style: { type: 'string', enum: ['cursor'] } } },
            },
          },
        ],
      },
    }),
  );
}
