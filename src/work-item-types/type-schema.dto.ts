import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class SchemaFieldDto {
  @ApiProperty({ enum: ['string', 'option', 'uuid', 'date'] }) type!: string;
  @ApiProperty() required!: boolean;
  @ApiPropertyOptional() is_multi?: boolean;
  @ApiPropertyOptional({
    type: String,
    description: "Default applied when the field is omitted (priority `none`, the default state's id).",
  })
  default?: string;
  @ApiPropertyOptional() max_length?: number;
  @ApiPropertyOptional({ example: 'YYYY-MM-DD' }) format?: string;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true } }) options?: Array<
    Record<string, unknown>
  >;
}

export class SchemaCustomFieldDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ description: 'property_type' }) type!: string;
  @ApiProperty({ description: 'The property name: the key in custom_fields.' }) name!: string;
  @ApiProperty() display_name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ description: 'As resolved here (the winning context for workspace-level properties).' })
  required!: boolean;
  @ApiProperty() is_multi!: boolean;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'OPTION: the options offered for this type in this project [{id, name, logo_props}].',
  })
  options?: Array<Record<string, unknown>>;
  @ApiPropertyOptional({ description: 'RELATION only.' }) relation_type?: string;
  @ApiPropertyOptional({
    type: [String],
    description: 'Addition: the default applied when omitted (default_value form).',
  })
  default_value?: string[];
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Addition.' })
  validation_rules?: Record<string, unknown>;
}

export class TypeSchemaDto {
  @ApiProperty({ format: 'uuid' }) type_id!: string;
  @ApiProperty() type_name!: string;
  @ApiProperty() type_description!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) type_logo_props!: Record<string, unknown>;
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/SchemaFieldDto' },
    description: 'Standard work item fields.',
  })
  fields!: Record<string, SchemaFieldDto>;
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/SchemaCustomFieldDto' },
    description: 'Keyed by property name; active properties only.',
  })
  custom_fields!: Record<string, SchemaCustomFieldDto>;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Addition: JSON Schema (draft 2020-12) of the custom_fields object a create accepts for this type in this project.',
  })
  custom_fields_json_schema!: Record<string, unknown>;
}
