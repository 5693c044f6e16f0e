import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsNotEmpty, IsNumber, IsString } from 'class-validator';
import { ExternalField, LogoPropsField } from '../common/http/dto-fields';
import { MaxChars, Nullable, OptionalNotNull } from '../common/http/validation';

export const LABEL_MAX = 64;
const trim = Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));

/** A required text field (create) or an optional non-null one (PATCH), trimmed, non-empty, at most `max`. */
function TextField(max: number, required: boolean, description: string): PropertyDecorator {
  const doc = { type: String, maxLength: max, description };
  return applyDecorators(
    required ? ApiProperty(doc) : ApiPropertyOptional(doc),
    trim,
    ...(required ? [] : [OptionalNotNull()]),
    IsString(),
    IsNotEmpty(),
    MaxChars(max),
  );
}

const OUTWARD = 'Label read from the source end ("blocks"); unique among the workspace\'s labels.';
const INWARD = 'Label read from the target end ("is blocked by"); equal to outward for a symmetric kind.';

export class CreateRelationDefinitionDto {
  @TextField(255, true, 'Unique in the workspace (case-insensitive).') name!: string;
  @TextField(LABEL_MAX, true, OUTWARD) outward!: string;
  @TextField(LABEL_MAX, true, INWARD) inward!: string;

  @ApiPropertyOptional({ type: String, default: '' })
  @OptionalNotNull()
  @IsString()
  description?: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 32 })
  @Nullable()
  @IsString()
  @MaxChars(32)
  color?: string | null;

  @ApiPropertyOptional({ type: Boolean, default: true, description: 'An inactive definition takes no new relations.' })
  @OptionalNotNull()
  @IsBoolean()
  is_active?: boolean;

  @LogoPropsField() logo_props?: Record<string, unknown> | null;

  @ApiPropertyOptional({ type: Number, description: 'Lower first in lists.' })
  @OptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  sort_order?: number;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class UpdateRelationDefinitionDto {
  @TextField(255, false, 'Unique in the workspace (case-insensitive).') name?: string;
  @TextField(LABEL_MAX, false, OUTWARD) outward?: string;
  @TextField(LABEL_MAX, false, INWARD) inward?: string;

  @ApiPropertyOptional({ type: String })
  @OptionalNotNull()
  @IsString()
  description?: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 32 })
  @Nullable()
  @IsString()
  @MaxChars(32)
  color?: string | null;

  @ApiPropertyOptional({ type: Boolean })
  @OptionalNotNull()
  @IsBoolean()
  is_active?: boolean;

  @LogoPropsField() logo_props?: Record<string, unknown> | null;

  @ApiPropertyOptional({ type: Number })
  @OptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  sort_order?: number;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class RelationDefinitionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty() outward!: string;
  @ApiProperty() inward!: string;
  @ApiProperty({ type: String, nullable: true }) color!: string | null;
  @ApiProperty() is_active!: boolean;
  @ApiProperty({ description: 'Built in (seeded for every workspace): cannot be changed or deleted.' })
  is_default!: boolean;
  @ApiProperty({ type: 'object', additionalProperties: true }) logo_props!: Record<string, unknown>;
  @ApiProperty() sort_order!: number;
  @ApiProperty({ type: String, nullable: true }) external_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) external_source!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by_id!: string | null;
}
