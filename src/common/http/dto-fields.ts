import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsString, MaxLength } from 'class-validator';
import { Nullable } from './validation';

/** `external_id` / `external_source`: optional, nullable (null clears), max 255. Shared by every resource. */
export function ExternalField(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, maxLength: 255, description }),
    Nullable(),
    IsString(),
    MaxLength(255),
  );
}

/** `logo_props`: an opaque object stored and returned unchanged. */
export function LogoPropsField(): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ type: 'object', additionalProperties: true }), Nullable(), IsObject());
}
