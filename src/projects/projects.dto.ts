import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsString, IsUUID, Matches } from 'class-validator';
import { ExternalField, LogoPropsField } from '../common/http/dto-fields';
import { MaxChars, Nullable, OptionalNotNull } from '../common/http/validation';

const IDENTIFIER_RE = /^[A-Za-z][A-Za-z0-9]{0,11}$/;

export class CreateProjectDto {
  @ApiProperty({ maxLength: 255 })
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name!: string;

  @ApiPropertyOptional({
    maxLength: 12,
    pattern: '^[A-Za-z][A-Za-z0-9]{0,11}$',
    description: 'Stored upper-case; unique in the workspace. Derived from the name when omitted.',
  })
  @OptionalNotNull()
  @IsString()
  @Matches(IDENTIFIER_RE, { message: 'identifier must start with a letter and hold 1-12 letters or digits' })
  identifier?: string;

  @ApiPropertyOptional({ type: String })
  @Nullable()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'A workspace member; assigned to new work items when assignees are omitted.',
  })
  @Nullable()
  @IsUUID('all')
  default_assignee_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'A workspace member; becomes a project admin.',
  })
  @Nullable()
  @IsUUID('all')
  project_lead_id?: string | null;

  @LogoPropsField() logo_props?: Record<string, unknown> | null;
  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class UpdateProjectDto {
  @ApiPropertyOptional({ maxLength: 255 })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name?: string;

  @ApiPropertyOptional({ maxLength: 12, pattern: '^[A-Za-z][A-Za-z0-9]{0,11}$' })
  @OptionalNotNull()
  @IsString()
  @Matches(IDENTIFIER_RE, { message: 'identifier must start with a letter and hold 1-12 letters or digits' })
  identifier?: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @Nullable()
  @IsString()
  description?: string | null;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true })
  @Nullable()
  @IsUUID('all')
  default_assignee_id?: string | null;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true })
  @Nullable()
  @IsUUID('all')
  project_lead_id?: string | null;

  @LogoPropsField() logo_props?: Record<string, unknown> | null;
  @ExternalField('Id in an external system') external_id?: string | null;
  @ExternalField('Name of the external system') external_source?: string | null;
}

export class ProjectDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ maxLength: 255 }) name!: string;
  @ApiProperty({ example: 'PROJ' }) identifier!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) default_assignee_id!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) project_lead_id!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) logo_props!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_id!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) external_source!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) archived_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by_id!: string | null;
}
