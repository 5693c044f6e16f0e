import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsNotEmpty, IsString } from 'class-validator';
import { ExternalField } from '../common/http/dto-fields';
import { MaxChars, Nullable, OptionalNotNull } from '../common/http/validation';

/** Property option, read shape. */
export class PropertyOptionDto {
  @ApiProperty({ format: 'uuid', description: 'Work items store this id.' }) id!: string;
  @ApiProperty({ maxLength: 255 }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ description: 'At most one default per property.' }) is_default!: boolean;
  @ApiProperty({ readOnly: true, description: 'Read-only, maintained by the service (new options are appended).' })
  sort_order!: number;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_id!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_source!: string | null;
}

/** An option sent inside a property create/PATCH (`options`, write-only). */
export class OptionInputDto {
  @ApiProperty({ maxLength: 255 })
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name!: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @Nullable()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional()
  @OptionalNotNull()
  @IsBoolean()
  is_default?: boolean;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class CreatePropertyOptionDto extends OptionInputDto {}

export class UpdatePropertyOptionDto {
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

  @ApiPropertyOptional({ description: 'Affects only work items created afterwards.' })
  @OptionalNotNull()
  @IsBoolean()
  is_default?: boolean;

  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}
