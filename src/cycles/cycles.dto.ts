import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsNumber, IsString, IsUUID, ValidateBy, ValidationOptions } from 'class-validator';
import { ExternalField, LogoPropsField } from '../common/http/dto-fields';
import { MaxChars, Nullable, OptionalNotNull } from '../common/http/validation';
import { DATETIME_RE, isValidDate, isValidDateTime } from '../common/pagination/list-query';

/** Area/Location spelling of IANA names (`UTC`, `Asia/Kolkata`, `Etc/GMT+5`); rejects `utc` and `+02:00`. */
const TIME_ZONE_NAME = /^[A-Z][A-Za-z0-9_+-]*(\/[A-Z0-9][A-Za-z0-9_+-]*)*$/;

/**
 * An IANA zone name the runtime's time zone database knows, current names and links alike: ICU's
 * `supportedValuesOf` lists only canonical names, some of them outdated (`Asia/Calcutta` but not
 * `Asia/Kolkata`), so the check asks the formatter, which resolves every link.
 */
export function isTimeZone(v: unknown): v is string {
  if (typeof v !== 'string' || v.length > 64 || !TIME_ZONE_NAME.test(v)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: v });
    return true;
  } catch {
    return false;
  }
}

export function IsTimeZone(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isTimeZone',
      validator: {
        validate: (v: unknown) => isTimeZone(v),
        defaultMessage: () => '$property must be an IANA time zone name such as UTC or America/New_York',
      },
    },
    options,
  );
}

/**
 * Parses an ISO 8601 date-time into a UTC ISO string, or null when it is not one. A value without an
 * offset is taken as UTC (never as the server's local time); a bare date is midnight UTC.
 */
export function parseDateTime(raw: string): string | null {
  if (!isValidDateTime(raw) || !isValidDate(raw.slice(0, 10))) return null;
  let v = raw.replace(' ', 'T');
  if (v.length > 10 && !/(Z|[+-]\d{2}:?\d{2})$/.test(v)) v += 'Z';
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/**
 * The date-time forms a cycle date accepts (IsDateTimeString): more than RFC 3339's `date-time` (an offset may be
 * left out, a space may stand for T, a bare date is midnight UTC), so the schema states the pattern, not the format.
 */
const DATE_TIME_INPUT = { type: String, nullable: true, pattern: DATETIME_RE.source } as const;

/** An ISO 8601 date-time (a bare date means midnight UTC; no offset means UTC). */
export function IsDateTimeString(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isDateTimeString',
      validator: {
        validate: (v: unknown) => typeof v === 'string' && parseDateTime(v) !== null,
        defaultMessage: () => '$property must be an ISO 8601 date-time, e.g. 2025-01-31T09:00:00Z',
      },
    },
    options,
  );
}

export class CreateCycleDto {
  @ApiProperty({ maxLength: 255, description: "Unique among the project's cycles." })
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name!: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @Nullable()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({
    ...DATE_TIME_INPUT,
    description: 'Sent without an offset it is taken as UTC; a bare date is midnight UTC.',
  })
  @Nullable()
  @IsDateTimeString()
  start_date?: string | null;

  @ApiPropertyOptional({ ...DATE_TIME_INPUT, description: 'Not before start_date. Same forms as start_date.' })
  @Nullable()
  @IsDateTimeString()
  end_date?: string | null;

  @ApiPropertyOptional({ example: 'Europe/Berlin', default: 'UTC', description: 'IANA time zone name.' })
  @OptionalNotNull()
  @IsTimeZone()
  timezone?: string;

  @ApiPropertyOptional({ type: Number, description: "Lower first; defaults to after the project's existing cycles." })
  @OptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  sort_order?: number;

  @LogoPropsField() logo_props?: Record<string, unknown> | null;
  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class UpdateCycleDto {
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

  @ApiPropertyOptional({ ...DATE_TIME_INPUT, description: 'null clears. Same forms as on create.' })
  @Nullable()
  @IsDateTimeString()
  start_date?: string | null;

  @ApiPropertyOptional({
    ...DATE_TIME_INPUT,
    description: 'null clears; checked against the stored start_date. Same forms as on create.',
  })
  @Nullable()
  @IsDateTimeString()
  end_date?: string | null;

  @ApiPropertyOptional({ example: 'Europe/Berlin' })
  @OptionalNotNull()
  @IsTimeZone()
  timezone?: string;

  @ApiPropertyOptional({ type: Number })
  @OptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  sort_order?: number;

  @LogoPropsField() logo_props?: Record<string, unknown> | null;
  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

/** Work items of a cycle counted per state group (archived, deleted and draft work items excluded). */
export class CycleProgressDto {
  @ApiProperty({ type: 'integer' }) total!: number;
  @ApiProperty({ type: 'integer' }) backlog!: number;
  @ApiProperty({ type: 'integer' }) unstarted!: number;
  @ApiProperty({ type: 'integer' }) started!: number;
  @ApiProperty({ type: 'integer' }) completed!: number;
  @ApiProperty({ type: 'integer' }) cancelled!: number;
  @ApiProperty({ type: 'integer' }) triage!: number;
}

export class CycleDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ maxLength: 255 }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) start_date!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) end_date!: string | null;
  @ApiProperty({ example: 'UTC' }) timezone!: string;
  @ApiProperty({ format: 'uuid', readOnly: true, description: 'Read-only: the user who created the cycle.' })
  owned_by_id!: string;
  @ApiProperty() sort_order!: number;
  @ApiProperty({ type: 'object', additionalProperties: true }) logo_props!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_id!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_source!: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    readOnly: true,
    description: 'Read-only: set by the archive operation, cleared by unarchive; null on a live cycle.',
  })
  archived_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by_id!: string | null;
  @ApiPropertyOptional({
    type: CycleProgressDto,
    readOnly: true,
    description: 'Read-only, on single-cycle responses (get, create, update, archive, unarchive); not in list items.',
  })
  progress?: CycleProgressDto;
}

export class TransferCycleDto {
  @ApiProperty({ format: 'uuid', description: 'Another cycle of this project.' })
  @IsUUID('all')
  new_cycle_id!: string;
}

export class TransferResultDto {
  @ApiProperty({ format: 'uuid' }) new_cycle_id!: string;
  @ApiProperty({ type: [String], format: 'uuid', description: 'The unfinished work items moved.' })
  transferred!: string[];
}
