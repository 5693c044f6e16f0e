import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsObject, IsString, MaxLength } from 'class-validator';
import { Nullable } from './validation';

/**
 * `external_id` / `external_source`: optional, nullable (null clears), max 255. Shared by every resource.
 * An empty or blank string names no external record: it is stored as null, so it never takes part in an
 * external pair's uniqueness (two imports without a source id must not collide).
 */
export function ExternalField(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, maxLength: 255, description: `${description}. An empty string is the same as null.` }),
    Transform(({ value }) => (typeof value === 'string' && value.trim() === '' ? null : value)),
    Nullable(),
    IsString(),
    MaxLength(255),
  );
}

/** `logo_props`: an opaque object stored and returned unchanged. */
export function LogoPropsField(): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ type: 'object', additionalProperties: true }), Nullable(), IsObject());
}
