import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsObject, IsString, Max, Min } from 'class-validator';
import { INT32_MAX, INT32_MIN } from '../database/columns';
import { MaxChars, Nullable, OptionalNotNull } from './validation';

/**
 * `external_id` / `external_source`: optional, nullable (null clears), max 255. Shared by every resource.
 * An empty or blank string names no external record: it is stored as null, so it never takes part in an
 * external pair's uniqueness (two imports without a source id must not collide).
 */
export function ExternalField(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: String,
      nullable: true,
      maxLength: 255,
      description: `${description}. An empty string is the same as null.`,
    }),
    Transform(({ value }) => (typeof value === 'string' && value.trim() === '' ? null : value)),
    Nullable(),
    IsString(),
    MaxChars(255),
  );
}

/** `logo_props`: an opaque object stored and returned unchanged; null resets it to `{}` (what a new record holds). */
export function LogoPropsField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'object',
      nullable: true,
      additionalProperties: true,
      description: 'Opaque object stored and returned unchanged. null resets it to {}.',
    }),
    Nullable(),
    IsObject(),
  );
}

/**
 * An optional, non-null integer stored in a PostgreSQL `integer`: its bounds are checked here (and declared in
 * the schema), so a larger value is a 400 naming the field rather than the database's out-of-range error.
 */
export function Int32Field(
  opts: { minimum?: number; maximum?: number; default?: number; description?: string } = {},
): PropertyDecorator {
  const minimum = opts.minimum ?? INT32_MIN;
  const maximum = opts.maximum ?? INT32_MAX;
  return applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum, maximum, default: opts.default, description: opts.description }),
    OptionalNotNull(),
    IsInt({ message: '$property must be an integer' }),
    Min(minimum),
    Max(maximum),
  );
}
