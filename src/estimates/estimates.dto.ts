import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsNotEmpty, IsString } from 'class-validator';
import { ExternalField, Int32Field } from '../common/http/dto-fields';
import { MaxChars, Nullable, OptionalNotNull } from '../common/http/validation';
import { ESTIMATE_TYPES, EstimateType } from './estimate.entity';

export class CreateEstimateDto {
  @ApiProperty({ maxLength: 255, description: 'Unique within the project.' })
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name!: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @Nullable()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({
    enum: ESTIMATE_TYPES,
    default: 'categories',
    description: '`points` and `time` need numeric point values.',
  })
  @OptionalNotNull()
  @IsIn(ESTIMATE_TYPES)
  type?: EstimateType;

  @ApiPropertyOptional({
    type: Boolean,
    description:
      'true makes it the active estimate (the previous one is deactivated). Omitted: active when the project has no active estimate.',
  })
  @OptionalNotNull()
  @IsBoolean()
  is_active?: boolean;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class UpdateEstimateDto {
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

  @ApiPropertyOptional({ enum: ESTIMATE_TYPES })
  @OptionalNotNull()
  @IsIn(ESTIMATE_TYPES)
  type?: EstimateType;

  @ApiPropertyOptional({
    type: Boolean,
    description:
      'true activates this estimate and deactivates the previous one; false leaves the project without an active estimate.',
  })
  @OptionalNotNull()
  @IsBoolean()
  is_active?: boolean;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

/**
 * Highest key a client may choose. An omitted key is the highest + 1, so a chosen key at the integer ceiling
 * would make every later create overflow; a million positions leave the automatic ones room.
 */
export const POINT_KEY_MAX = 1000000;

export class CreateEstimatePointDto {
  @Int32Field({
    minimum: 0,
    maximum: POINT_KEY_MAX,
    description: 'Position of the point (lower first). Omitted: after the last point.',
  })
  key?: number;

  @ApiProperty({
    maxLength: 255,
    description: 'Unique within the estimate; numeric for `points` and `time` estimates.',
  })
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  value!: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @Nullable()
  @IsString()
  description?: string | null;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class UpdateEstimatePointDto {
  @Int32Field({ minimum: 0, maximum: POINT_KEY_MAX })
  key?: number;

  @ApiPropertyOptional({ maxLength: 255 })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  value?: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @Nullable()
  @IsString()
  description?: string | null;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class EstimatePointDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) estimate_id!: string;
  @ApiProperty({ type: 'integer' }) key!: number;
  @ApiProperty() value!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_id!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_source!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by_id!: string | null;
}

export class EstimateDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ maxLength: 255 }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ enum: ESTIMATE_TYPES }) type!: string;
  @ApiProperty({ description: "The project's active estimate: work item estimates resolve against it." })
  is_active!: boolean;
  @ApiProperty({ readOnly: true, description: 'Read-only: true on the estimate activated most recently.' })
  last_used!: boolean;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_id!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_source!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by_id!: string | null;
  @ApiPropertyOptional({ type: [EstimatePointDto], description: 'With ?expand=points: the points, ordered by key.' })
  points?: EstimatePointDto[];
}
