import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsNumber, IsString, IsUUID } from 'class-validator';
import { ExternalField } from '../common/http/dto-fields';
import { MaxChars, Nullable, OptionalNotNull } from '../common/http/validation';
import { NullableColorField } from '../states/color';

export class CreateLabelDto {
  @ApiProperty({
    maxLength: 255,
    description: 'Unique within the project (project labels) or among the workspace-level labels.',
  })
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name!: string;

  @NullableColorField()
  color?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @Nullable()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      'A label of the same project (or, for a workspace label, another workspace label). Display grouping only.',
  })
  @Nullable()
  @IsUUID('all')
  parent_id?: string | null;

  @ApiPropertyOptional({ type: Number, description: 'Lower first. Omitted: placed after the last label.' })
  @OptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  sort_order?: number;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class UpdateLabelDto {
  @ApiPropertyOptional({ maxLength: 255 })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name?: string;

  @NullableColorField()
  color?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @Nullable()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'null lifts the label to the top level.',
  })
  @Nullable()
  @IsUUID('all')
  parent_id?: string | null;

  @ApiPropertyOptional({ type: Number })
  @OptionalNotNull()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  sort_order?: number;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class LabelDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ maxLength: 255 }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: String, nullable: true, example: '#EF4444' }) color!: string | null;
  @ApiProperty() sort_order!: number;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) parent_id!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_id!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_source!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by_id!: string | null;
}
