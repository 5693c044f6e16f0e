import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsString, IsUUID, Matches } from 'class-validator';
import { ExternalField, LogoPropsField } from '../common/http/dto-fields';
import { MaxChars, Nullable, OptionalNotNull, PROJECT_IDENTIFIER_RE } from '../common/http/validation';

const IDENTIFIER_RE = PROJECT_IDENTIFIER_RE;

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

export class ProjectWorkItemBreakdownDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { backlog: 12, started: 3 },
    description: 'Live, unarchived work items per state group (groups without items are left out).',
  })
  by_state_group!: Record<string, number>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, example: { none: 10, high: 5 } })
  by_priority!: Record<string, number>;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    description: 'Keyed by assignee user id; an item with two assignees counts for both.',
  })
  by_assignee!: Record<string, number>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: 'Keyed by cycle id.' })
  by_cycle!: Record<string, number>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: 'Keyed by module id.' })
  by_module!: Record<string, number>;
}

export class ProjectSummaryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'PROJ' }) identifier!: string;
  @ApiProperty() name!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { members: 4, states: 6, labels: 3, cycles: 2, modules: 1, issues: 42 },
    description:
      'Resource counts keyed by name (members, states, labels, cycles, modules, issues = live unarchived work items); `?counts=` narrows the keys.',
  })
  counts!: Record<string, number>;
  @ApiProperty({ type: ProjectWorkItemBreakdownDto }) work_items!: ProjectWorkItemBreakdownDto;
}
