import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsNotEmpty, IsNumber, IsObject, IsString, IsUUID, ValidateNested } from 'class-validator';
import { ExternalField } from '../common/http/dto-fields';
import { MaxChars, Nullable, OptionalNotNull } from '../common/http/validation';

export class ContextOptionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: "This context's default; for OPTION properties it takes precedence over default_value." })
  is_default!: boolean;
  @ApiProperty({ readOnly: true, description: 'Read-only; follows the order of the options list sent.' })
  sort_order!: number;
}

/** Property context, read shape. */
export class PropertyContextDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ maxLength: 255 }) name!: string;
  @ApiProperty({ description: "Replaces the property's own value inside the scope." }) is_required!: boolean;
  @ApiProperty({ description: "Replaces the property's own value inside the scope." }) is_multi!: boolean;
  @ApiProperty({
    readOnly: true,
    description: 'Read-only; true on the context seeded with the property. No effect on resolution.',
  })
  is_default!: boolean;
  @ApiProperty({ type: [String] }) default_value!: string[];
  @ApiProperty({ type: 'object', additionalProperties: true }) settings!: Record<string, unknown>;
  @ApiProperty({ description: 'Presentational only.' }) sort_order!: number;
  @ApiProperty() applies_to_all_projects!: boolean;
  @ApiProperty() applies_to_all_work_item_types!: boolean;
  @ApiProperty({ type: [String], format: 'uuid', description: 'Empty when applies_to_all_projects is true.' })
  project_ids!: string[];
  @ApiProperty({ type: [String], format: 'uuid', description: 'Empty when applies_to_all_work_item_types is true.' })
  issue_type_ids!: string[];
  @ApiProperty({ type: [ContextOptionDto], description: 'The choices offered in this scope, in order.' })
  options!: ContextOptionDto[];
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_id!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_source!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

/** `{id}` keeps an existing option of the property; `{name, description, is_default}` creates one. */
export class ContextOptionInputDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'An existing option of this property.' })
  @OptionalNotNull()
  @IsUUID('all')
  id?: string;

  @ApiPropertyOptional({ maxLength: 255, description: 'Creates an option (ignored when id is given).' })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name?: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @Nullable()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({ default: false, description: 'Default in this context (at most one).' })
  @OptionalNotNull()
  @IsBoolean()
  is_default?: boolean;
}

class ContextWriteFields {
  @ApiPropertyOptional({
    maxLength: 255,
    description:
      'Unique (case-insensitive) among the property\'s contexts; defaults to "Default", which the seeded context holds, so always send one.',
  })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name?: string;

  @ApiPropertyOptional({ description: "Defaults to the property's own value." })
  @OptionalNotNull()
  @IsBoolean()
  is_required?: boolean;

  @ApiPropertyOptional({ description: "Defaults to the property's own value." })
  @OptionalNotNull()
  @IsBoolean()
  is_multi?: boolean;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    description:
      "Defaults to the property's own value; null or [] clears. For OPTION properties: ids of options offered in this context.",
  })
  @Nullable()
  @IsArray()
  @IsString({ each: true })
  default_value?: string[] | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: "Defaults to the property's own settings; replaced whole.",
  })
  @Nullable()
  @IsObject()
  settings?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    description: 'Lower first; default places the context after the existing ones. Presentational only.',
  })
  @OptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  sort_order?: number;

  @ApiPropertyOptional({
    description: 'At most one context per property may set it. Omitted on create: false; on PATCH: unchanged.',
  })
  @OptionalNotNull()
  @IsBoolean()
  applies_to_all_projects?: boolean;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description:
      'Required (non-empty) when applies_to_all_projects is false; 400 when it is true. Projects of the workspace, no duplicates. PATCH: replaces the set.',
  })
  @Nullable()
  @IsArray()
  @IsUUID('all', { each: true })
  project_ids?: string[] | null;

  @ApiPropertyOptional({ description: 'Omitted on create: false; on PATCH: unchanged.' })
  @OptionalNotNull()
  @IsBoolean()
  applies_to_all_work_item_types?: boolean;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description:
      'Required (non-empty) when applies_to_all_work_item_types is false; 400 when it is true. Workspace-level types, no duplicates. PATCH: replaces the set.',
  })
  @Nullable()
  @IsArray()
  @IsUUID('all', { each: true })
  issue_type_ids?: string[] | null;

  @ApiPropertyOptional({
    type: [ContextOptionInputDto],
    nullable: true,
    description:
      'OPTION properties. PATCH: replaces the set; an option left out is removed from this context (deleted, with its values, when no other context offers it). null is the same as [].',
  })
  @Nullable()
  @IsArray()
  @IsObject({ each: true, message: 'each option must be an object' })
  @ValidateNested({ each: true })
  @Type(() => ContextOptionInputDto)
  options?: ContextOptionInputDto[] | null;

  @ExternalField(
    'Id in an external system; send with external_source (both or neither); the pair is unique within the property',
  )
  external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class CreatePropertyContextDto extends ContextWriteFields {}
export class UpdatePropertyContextDto extends ContextWriteFields {}
