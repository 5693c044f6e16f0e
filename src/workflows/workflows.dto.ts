import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  ValidateIf,
} from 'class-validator';
import { MaxChars, Nullable, OptionalNotNull } from '../common/http/validation';
import { Int32Field } from '../common/http/dto-fields';

export class CreateWorkflowDto {
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
    type: Boolean,
    default: false,
    description:
      "true makes it the project's active workflow (the previous one is deactivated). Rules apply while the project feature is_workflow_enabled is on.",
  })
  @OptionalNotNull()
  @IsBoolean()
  is_active?: boolean;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'At most one default per project; true clears the previous default.',
  })
  @OptionalNotNull()
  @IsBoolean()
  is_default?: boolean;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description: 'Work item types the workflow is meant for (stored; not used by enforcement).',
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(200)
  @IsUUID('all', { each: true })
  work_item_type_ids?: string[];
}

export class UpdateWorkflowDto {
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

  @ApiPropertyOptional({ type: Boolean })
  @OptionalNotNull()
  @IsBoolean()
  is_active?: boolean;

  @ApiPropertyOptional({ type: Boolean })
  @OptionalNotNull()
  @IsBoolean()
  is_default?: boolean;

  @ApiPropertyOptional({ type: [String], format: 'uuid' })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(200)
  @IsUUID('all', { each: true })
  work_item_type_ids?: string[];
}

export class WorkflowDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ maxLength: 255 }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty() is_active!: boolean;
  @ApiProperty() is_default!: boolean;
  @ApiProperty({ type: [String], format: 'uuid' }) work_item_type_ids!: string[];
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by_id!: string | null;
}

/** At most this many states attached by one `{state_ids}` request. */
export const ATTACH_MAX_STATES = 50;

export class CreateWorkflowStateDto {
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'A state of the project; one row per state in a workflow. Send this or `state_ids`, not both.',
  })
  @ValidateIf((o: CreateWorkflowStateDto) => o.state_ids === undefined || o.state_id !== undefined)
  @IsUUID('all')
  state_id?: string;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    minItems: 1,
    maxItems: ATTACH_MAX_STATES,
    description:
      "The later edition's attach form (Plane's client sends it): states of the project to attach at once. States already attached are kept as they are (idempotent); the answer is the array of the workflow's rows for them, in the order sent. Not with `state_id` or `is_default`.",
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(ATTACH_MAX_STATES)
  @IsUUID('all', { each: true })
  state_ids?: string[];

  @ApiPropertyOptional({
    type: Boolean,
    default: true,
    description: 'false: work items cannot be created in this state while the workflow applies.',
  })
  @OptionalNotNull()
  @IsBoolean()
  allow_issue_creation?: boolean;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'At most one per workflow; true clears the previous one. Informational.',
  })
  @OptionalNotNull()
  @IsBoolean()
  is_default?: boolean;
}

export class UpdateWorkflowStateDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @OptionalNotNull()
  @IsUUID('all')
  state_id?: string;

  @ApiPropertyOptional({ type: Boolean })
  @OptionalNotNull()
  @IsBoolean()
  allow_issue_creation?: boolean;

  @ApiPropertyOptional({ type: Boolean })
  @OptionalNotNull()
  @IsBoolean()
  is_default?: boolean;
}

export class WorkflowStateDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) workflow_id!: string;
  @ApiProperty({ format: 'uuid' }) state_id!: string;
  @ApiProperty() allow_issue_creation!: boolean;
  @ApiProperty() is_default!: boolean;
}

export class CreateWorkflowTransitionDto {
  @ApiProperty({
    format: 'uuid',
    description:
      'A workflow state (row of .../workflows/{workflow_id}/states/) of this workflow: the state moved from.',
  })
  @IsUUID('all')
  workflow_state_id!: string;

  @ApiProperty({
    format: 'uuid',
    description: 'A state of the project, other than the one moved from: the state moved to.',
  })
  @IsUUID('all')
  transition_state_id!: string;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'A state of the project (stored; approval flows are not run by the API).',
  })
  @Nullable()
  @IsUUID('all')
  rejection_state_id?: string | null;

  @Int32Field({ minimum: 0, default: 0, description: 'Stored; approval flows are not run by the API.' })
  required_approvals?: number;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description: 'Project members allowed to make this move; empty means everyone who may edit the work item.',
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(200)
  @IsUUID('all', { each: true })
  member_ids?: string[];
}

export class UpdateWorkflowTransitionDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @OptionalNotNull()
  @IsUUID('all')
  transition_state_id?: string;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true })
  @Nullable()
  @IsUUID('all')
  rejection_state_id?: string | null;

  @Int32Field({ minimum: 0 })
  required_approvals?: number;

  @ApiPropertyOptional({ type: [String], format: 'uuid' })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(200)
  @IsUUID('all', { each: true })
  member_ids?: string[];
}

export class WorkflowTransitionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) workflow_state_id!: string;
  @ApiProperty({ format: 'uuid' }) transition_state_id!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) rejection_state_id!: string | null;
  @ApiProperty({ type: 'integer' }) required_approvals!: number;
  @ApiProperty({ type: [String], format: 'uuid' }) member_ids!: string[];
}
