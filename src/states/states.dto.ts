import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsNotEmpty, IsNumber, IsString } from 'class-validator';
import { ExternalField } from '../common/http/dto-fields';
import { MaxChars, Nullable, OptionalNotNull } from '../common/http/validation';
import { OptionalColorField, RequiredColorField } from './color';
import { STATE_GROUPS, StateGroup } from './state.entity';

export class CreateStateDto {
  @ApiProperty({ maxLength: 255, description: 'Unique within the project.' })
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name!: string;

  @RequiredColorField()
  color!: string;

  @ApiPropertyOptional({ enum: STATE_GROUPS, default: 'backlog' })
  @OptionalNotNull()
  @IsIn(STATE_GROUPS)
  group?: StateGroup;

  @ApiPropertyOptional({ type: String, nullable: true })
  @Nullable()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({
    type: Number,
    description: 'Ordering weight, lower first. Omitted: placed after the last state.',
  })
  @OptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  sequence?: number;

  @ApiPropertyOptional({
    type: Boolean,
    description: 'true makes this the default state and clears the previous default.',
  })
  @OptionalNotNull()
  @IsBoolean()
  is_default?: boolean;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class UpdateStateDto {
  @ApiPropertyOptional({ maxLength: 255 })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name?: string;

  @OptionalColorField()
  color?: string;

  @ApiPropertyOptional({ enum: STATE_GROUPS, description: 'Changes how the work items in this state are counted.' })
  @OptionalNotNull()
  @IsIn(STATE_GROUPS)
  group?: StateGroup;

  @ApiPropertyOptional({ type: String, nullable: true })
  @Nullable()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({ type: Number })
  @OptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  sequence?: number;

  @ApiPropertyOptional({
    type: Boolean,
    description: 'true demotes the previous default. false on the default state is 400: promote another state instead.',
  })
  @OptionalNotNull()
  @IsBoolean()
  is_default?: boolean;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class StateDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ maxLength: 255 }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ example: '#3A3A3A' }) color!: string;
  @ApiProperty({ enum: STATE_GROUPS }) group!: string;
  @ApiProperty() sequence!: number;
  @ApiProperty() is_default!: boolean;
  @ApiProperty({ readOnly: true, description: 'Read-only: the service-managed intake state.' }) is_triage!: boolean;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_id!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_source!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by_id!: string | null;
}
