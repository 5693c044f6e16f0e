import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayNotEmpty, IsArray, IsBoolean, IsNotEmpty, IsString, IsUUID } from 'class-validator';
import { ExternalField } from '../common/http/dto-fields';
import { MaxChars, Nullable, OptionalNotNull } from '../common/http/validation';

/** Work item type, read shape (both surfaces). `external_id`/`external_source` are write-only. */
export class WorkItemTypeDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ maxLength: 255 }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty() is_active!: boolean;
  @ApiProperty({
    readOnly: true,
    description:
      'Read-only; exactly one default per project (project level) or per workspace (workspace level); moved by mark-default.',
  })
  is_default!: boolean;
  @ApiProperty({ readOnly: true, description: 'Read-only.' }) is_epic!: boolean;
  @ApiProperty({ type: 'integer', readOnly: true, description: 'Read-only.' }) level!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    readOnly: true,
    description: 'Read-only; generated at creation.',
  })
  logo_props!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class CreateWorkItemTypeDto {
  @ApiProperty({
    maxLength: 255,
    description:
      'Unique case-insensitively among the types of the project (project level) or of the workspace (workspace level).',
  })
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name!: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @Nullable()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({ default: true })
  @OptionalNotNull()
  @IsBoolean()
  is_active?: boolean;

  @ExternalField('Id in an external system (write-only)') external_id?: string | null;
  @ExternalField('Name of the external system (write-only)') external_source?: string | null;
}

export class UpdateWorkItemTypeDto {
  @ApiPropertyOptional({ maxLength: 255 })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name?: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @Nullable()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({ description: 'false on the default type is 400.' })
  @OptionalNotNull()
  @IsBoolean()
  is_active?: boolean;

  @ExternalField('Id in an external system (write-only; null clears)') external_id?: string | null;
  @ExternalField('Name of the external system (write-only; null clears)') external_source?: string | null;
}

export class ImportWorkItemTypesDto {
  @ApiProperty({
    type: [String],
    format: 'uuid',
    description: 'Workspace-level type ids to add to the project roster (additive; re-importing is harmless).',
  })
  @IsArray()
  @ArrayNotEmpty()
  @IsUUID('all', { each: true, message: 'each value in work_item_types must be a UUID' })
  work_item_types!: string[];
}

export class AttachPropertiesDto {
  @ApiProperty({
    type: [String],
    format: 'uuid',
    description:
      'Ids of existing properties of the same level (project or workspace). A property definition is not accepted.',
  })
  @IsArray()
  @ArrayNotEmpty()
  @IsUUID('all', {
    each: true,
    message: 'each value in properties must be a property id (UUID); property definitions are not accepted here',
  })
  properties!: string[];
}

export class AttachedPropertiesDto {
  @ApiProperty({ type: [String], format: 'uuid' }) properties!: string[];
}
