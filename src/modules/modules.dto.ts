import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsNumber, IsString, IsUUID, ValidateBy, ValidationOptions } from 'class-validator';
import { ExternalField, LogoPropsField } from '../common/http/dto-fields';
import { MaxChars, Nullable, OptionalNotNull } from '../common/http/validation';
import { isValidDate } from '../common/pagination/list-query';
import { MODULE_STATUSES } from './module.entity';

/** A calendar date `YYYY-MM-DD` that exists. */
export function IsDateOnly(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isDateOnly',
      validator: {
        validate: (v: unknown) => typeof v === 'string' && isValidDate(v),
        defaultMessage: () => '$property must be a date in the form YYYY-MM-DD',
      },
    },
    options,
  );
}

const STATUS_MESSAGE = `$property must be one of: ${MODULE_STATUSES.join(', ')}`;

export class CreateModuleDto {
  @ApiProperty({ maxLength: 255, description: "Unique among the project's modules." })
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name!: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Plain text.' })
  @Nullable()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({ enum: MODULE_STATUSES, default: 'planned' })
  @OptionalNotNull()
  @IsIn(MODULE_STATUSES, { message: STATUS_MESSAGE })
  status?: string;

  @ApiPropertyOptional({ type: String, format: 'date', nullable: true })
  @Nullable()
  @IsDateOnly()
  start_date?: string | null;

  @ApiPropertyOptional({ type: String, format: 'date', nullable: true, description: 'Not earlier than start_date.' })
  @Nullable()
  @IsDateOnly()
  target_date?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'User id of a member of this project.',
  })
  @Nullable()
  @IsUUID('all')
  lead_id?: string | null;

  @ApiPropertyOptional({
    type: Number,
    description:
      'Lower first. A new module is placed ahead of the existing ones: a value that is not below the current minimum is replaced; PATCH afterwards to set a specific slot.',
  })
  @OptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  sort_order?: number;

  @LogoPropsField() logo_props?: Record<string, unknown> | null;
  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class UpdateModuleDto {
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

  @ApiPropertyOptional({ enum: MODULE_STATUSES, description: 'Any status may follow any other.' })
  @OptionalNotNull()
  @IsIn(MODULE_STATUSES, { message: STATUS_MESSAGE })
  status?: string;

  @ApiPropertyOptional({ type: String, format: 'date', nullable: true })
  @Nullable()
  @IsDateOnly()
  start_date?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'date',
    nullable: true,
    description: 'Checked against the stored start_date too.',
  })
  @Nullable()
  @IsDateOnly()
  target_date?: string | null;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true })
  @Nullable()
  @IsUUID('all')
  lead_id?: string | null;

  @ApiPropertyOptional({ type: Number })
  @OptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  sort_order?: number;

  @LogoPropsField() logo_props?: Record<string, unknown> | null;
  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class ModuleDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ maxLength: 255 }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ enum: MODULE_STATUSES }) status!: string;
  @ApiProperty({ type: String, format: 'date', nullable: true }) start_date!: string | null;
  @ApiProperty({ type: String, format: 'date', nullable: true }) target_date!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) lead_id!: string | null;
  @ApiProperty({
    type: [String],
    format: 'uuid',
    readOnly: true,
    description:
      "Read-only, derived: the distinct assignees of the module's work items (not deleted, not archived), ordered by id. Empty on create.",
  })
  member_ids!: string[];
  @ApiProperty() sort_order!: number;
  @ApiProperty({ type: 'object', additionalProperties: true }) logo_props!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_id!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_source!: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    readOnly: true,
    description: 'Read-only: set by the archive operation, cleared by unarchive; null on a live module.',
  })
  archived_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by_id!: string | null;
}
