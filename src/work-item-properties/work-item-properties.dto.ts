import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsNotEmpty, IsObject, IsString, ValidateNested } from 'class-validator';
import { ExternalField } from '../common/http/dto-fields';
import { MaxChars, Nullable, OptionalNotNull } from '../common/http/validation';
import { PROPERTY_TYPES, RELATION_TYPES } from './property-rules';
import { OptionInputDto, PropertyOptionDto } from './property-options.dto';

/** Work item property definition, read shape (both surfaces). */
export class WorkItemPropertyDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({
    readOnly: true,
    description:
      'Read-only slug derived from display_name at creation; the stable key of custom_fields. Never changes.',
  })
  name!: string;
  @ApiProperty({ maxLength: 255 }) display_name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ enum: PROPERTY_TYPES }) property_type!: string;
  @ApiProperty({
    type: String,
    enum: RELATION_TYPES,
    nullable: true,
    description: 'null unless property_type is RELATION.',
  })
  relation_type!: string | null;
  @ApiProperty() is_multi!: boolean;
  @ApiProperty() is_required!: boolean;
  @ApiProperty() is_active!: boolean;
  @ApiProperty({
    type: [String],
    description:
      'Always an array of strings, e.g. ["3"] for a DECIMAL, ["true"] for a BOOLEAN, option ids for an OPTION.',
  })
  default_value!: string[];
  @ApiProperty({ type: [PropertyOptionDto], description: 'Resolved options (OPTION properties), [] otherwise.' })
  options!: PropertyOptionDto[];
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Type-specific presentation settings, stored as sent (replaced whole).',
  })
  settings!: Record<string, unknown>;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Type-specific constraints enforced on custom_fields values (replaced whole); see docs/work-item-types.md.',
  })
  validation_rules!: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, readOnly: true, description: 'Read-only.' })
  logo_props!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_id!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_source!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

class PropertyWriteFields {
  @ApiPropertyOptional({ type: String, nullable: true })
  @Nullable()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({
    type: String,
    enum: RELATION_TYPES,
    nullable: true,
    description: 'Required when property_type is RELATION; must be null otherwise.',
  })
  @Nullable()
  @IsIn(RELATION_TYPES)
  relation_type?: string | null;

  @ApiPropertyOptional({
    type: [OptionInputDto],
    description:
      'Write-only. Create: seeds the options in order. PATCH: matched by name (case-insensitive): a match is updated, a new name is appended; options not listed stay (delete them on the options endpoint).',
  })
  @OptionalNotNull()
  @IsArray()
  @IsObject({ each: true, message: 'each option must be an object' })
  @ValidateNested({ each: true })
  @Type(() => OptionInputDto)
  options?: OptionInputDto[];

  @ApiPropertyOptional({ description: 'OPTION, FILE and RELATION (except RICH_TEXT) only.' })
  @OptionalNotNull()
  @IsBoolean()
  is_multi?: boolean;

  @ApiPropertyOptional({
    description: 'Applies to work items written afterwards; existing empty values are not rejected.',
  })
  @OptionalNotNull()
  @IsBoolean()
  is_required?: boolean;

  @ApiPropertyOptional()
  @OptionalNotNull()
  @IsBoolean()
  is_active?: boolean;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    description:
      'Array of strings; [] or null clears. OPTION: option ids (on create also the names of options sent in the same request).',
  })
  @Nullable()
  @IsArray()
  @IsString({ each: true })
  default_value?: string[] | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'Replaced whole; null clears.',
  })
  @Nullable()
  @IsObject()
  settings?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'Replaced whole; null clears. Keys per property_type: see docs/work-item-types.md.',
  })
  @Nullable()
  @IsObject()
  validation_rules?: Record<string, unknown> | null;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class CreateWorkItemPropertyDto extends PropertyWriteFields {
  @ApiProperty({ maxLength: 255, description: 'The label; the read-only `name` slug is derived from it once.' })
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  display_name!: string;

  @ApiProperty({ enum: PROPERTY_TYPES })
  @IsIn(PROPERTY_TYPES)
  property_type!: string;
}

export class UpdateWorkItemPropertyDto extends PropertyWriteFields {
  @ApiPropertyOptional({ maxLength: 255, description: 'Changes the label only; `name` never changes.' })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  display_name?: string;

  @ApiPropertyOptional({
    enum: PROPERTY_TYPES,
    description: 'Changing it on a property holding values changes what the values mean.',
  })
  @OptionalNotNull()
  @IsIn(PROPERTY_TYPES)
  property_type?: string;
}
