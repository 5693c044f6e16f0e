import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, ArrayMaxSize, IsArray, IsIn, IsNotEmpty, IsString, IsUUID } from 'class-validator';
import { ExpandedShapeIgnored, ExpandedShapeSchema } from '../common/expand/expand';
import { ExternalField } from '../common/http/dto-fields';
import { MaxChars, Nullable, NullClears, OptionalNotNull } from '../common/http/validation';
import { IdOf } from '../common/resolve/name-or-id';
import { WORK_ITEM_PAIRS } from './relation-fields';
import { UserRefDto } from '../users/user-ref';
import { IsDateOnly } from '../modules/modules.dto';
import { PRIORITIES } from './work-item.entity';
import { WorkItemCycleRefDto, WorkItemModuleRefDto } from '../cycles/work-item-expand';

/** A name input: a non-empty string. */
const NAME = { type: 'string', minLength: 1 };

const PRIORITY_MESSAGE = `$property must be one of: ${PRIORITIES.join(', ')}`;

/**
 * Fields shared by create and PATCH. Name forms (`state`, `labels`, ...) are write-only; the expanded objects a
 * read with `?expand=` puts under the same keys are ignored when sent back (ExpandedShapeIgnored).
 */
class WorkItemWriteFields {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      'Rich text, sanitized; write-only (not in the read shape). Content that sanitizes to nothing usable is 400.',
  })
  @Nullable()
  @IsString()
  description_html?: string | null;

  @ApiPropertyOptional({ enum: PRIORITIES, description: 'Omitted on create: none. Omitted on PATCH: unchanged.' })
  @OptionalNotNull()
  @IsIn(PRIORITIES, { message: PRIORITY_MESSAGE })
  priority?: string;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    description:
      "A state of this project. Omitted on create: the project's default state. Omitted on PATCH: unchanged.",
  })
  @OptionalNotNull()
  @IdOf(WORK_ITEM_PAIRS.state)
  state_id?: string;

  @ApiPropertyOptional({
    ...ExpandedShapeSchema(false, NAME),
    description:
      'State name, case-insensitive within the project (write-only). Not together with state_id. An expanded state or null sent back is ignored.',
  })
  @ExpandedShapeIgnored('state_id', false)
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  state?: string;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'A type of the project (own or imported workspace type); null makes the item untyped.',
  })
  @Nullable()
  @IdOf(WORK_ITEM_PAIRS.type)
  type_id?: string | null;

  @ApiPropertyOptional({
    ...ExpandedShapeSchema(false, NAME),
    description:
      "Type name, case-insensitive among the project's non-epic types (write-only). An expanded type or null sent back is ignored.",
  })
  @ExpandedShapeIgnored('type_id', false)
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  type?: string;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'A work item of the workspace (may be in another project); null: top level.',
  })
  @Nullable()
  @IdOf(WORK_ITEM_PAIRS.parent)
  parent_id?: string | null;

  @ApiPropertyOptional({
    ...ExpandedShapeSchema(false, { ...NAME, examples: ['PROJ-12'] }),
    description:
      'Parent identifier, resolved in the workspace (write-only). An expanded parent or null sent back is ignored.',
  })
  @ExpandedShapeIgnored('parent_id', false)
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  parent?: string;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    format: 'uuid',
    description:
      "Active, assignable project members (contributor or admin). Replaces the set; [] or null clears. Omitted on create: the project's default assignee.",
  })
  @NullClears()
  @IsArray()
  @ArrayMaxSize(100)
  @IdOf(WORK_ITEM_PAIRS.assignees)
  assignee_ids?: string[];

  @ApiPropertyOptional({
    ...ExpandedShapeSchema(true, { type: 'string' }),
    description:
      'Assignees by email (write-only); offenders are named in the 400. null clears, like []. Expanded assignees sent back are ignored.',
  })
  @ExpandedShapeIgnored('assignee_ids', true)
  @NullClears()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  assignees?: string[];

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    format: 'uuid',
    description: 'Labels of this project or workspace-level labels. Replaces the set; [] or null clears.',
  })
  @NullClears()
  @IsArray()
  @ArrayMaxSize(100)
  @IdOf(WORK_ITEM_PAIRS.labels)
  label_ids?: string[];

  @ApiPropertyOptional({
    ...ExpandedShapeSchema(true, { type: 'string' }),
    description:
      'Label names, case-insensitive, among project and workspace labels (write-only); a name at both levels is ambiguous (400). null clears, like []. Expanded labels sent back are ignored.',
  })
  @ExpandedShapeIgnored('label_ids', true)
  @NullClears()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  labels?: string[];

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: "A point of the project's active estimate (write-only); null clears.",
  })
  @Nullable()
  @IdOf(WORK_ITEM_PAIRS.estimate)
  estimate_point_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    description: 'Estimate point value, resolved against the active estimate (write-only).',
  })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  estimate?: string;

  @ApiPropertyOptional({ type: String, format: 'date', nullable: true, description: 'Not after target_date.' })
  @Nullable()
  @IsDateOnly()
  start_date?: string | null;

  @ApiPropertyOptional({ type: String, format: 'date', nullable: true })
  @Nullable()
  @IsDateOnly()
  target_date?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description:
      'The cycle to place the item in (the later edition; moves it out of any other cycle, as the cycle membership route does): a live cycle of this project with cycles enabled, else 400 naming cycle_id. null takes it out of its cycle.',
  })
  @Nullable()
  @IsUUID('all')
  cycle_id?: string | null;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    nullable: true,
    maxItems: 100,
    description:
      'The modules the item is in (the later edition): replaces the set, [] or null clears. Live modules of this project with modules enabled, else 400 naming module_ids.',
  })
  @NullClears()
  @IsArray()
  @ArrayMaxSize(100)
  @IsUUID('all', { each: true })
  module_ids?: string[];

  @ExternalField(
    "Id in an external system (write-only, filterable). With external_source, unique among the project's work items.",
  )
  external_id?: string | null;
  @ExternalField('Name of the external system (write-only, filterable).') external_source?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description:
      "Custom property values keyed by property name; each value's shape depends on the property (docs/work-item-types.md). Validated against the work item's type; 400 while custom properties are disabled for the workspace. null is the same as {}. On PATCH only the properties sent change.",
  })
  @Allow()
  custom_fields?: Record<string, unknown> | null;
}

export class CreateWorkItemDto extends WorkItemWriteFields {
  @ApiProperty({ maxLength: 255 })
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name!: string;
}

export class UpdateWorkItemDto extends WorkItemWriteFields {
  @ApiPropertyOptional({ maxLength: 255 })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxChars(255)
  name?: string;
}

export class WorkItemStateRefDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() color!: string;
  @ApiProperty({ enum: ['backlog', 'unstarted', 'started', 'completed', 'cancelled', 'triage'] }) group!: string;
}

export class WorkItemTypeRefDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) logo_props!: Record<string, unknown>;
  @ApiProperty() is_epic!: boolean;
}

export class WorkItemParentRefDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer' }) sequence_id!: number;
}

/** An assignee with ?expand=assignees (its own schema name kept for generated clients). */
export class WorkItemUserRefDto extends UserRefDto {}

export class WorkItemLabelRefDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) color!: string | null;
}

/** The work item read shape (gap-reference 3.1); expanded objects are added beside their ids. */
export class WorkItemDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ maxLength: 255 }) name!: string;
  @ApiProperty({ example: 'PROJ-12', description: 'Project identifier, a dash, the sequence number.' })
  identifier!: string;
  @ApiProperty({ type: 'integer', description: 'Never reused within the project.' }) sequence_id!: number;
  @ApiProperty({ format: 'uuid', description: 'The project the work item belongs to.' }) project_id!: string;
  @ApiProperty({ enum: PRIORITIES }) priority!: string;
  @ApiProperty({ format: 'uuid' }) state_id!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) type_id!: string | null;
  @ApiProperty({ type: [String], format: 'uuid' }) assignee_ids!: string[];
  @ApiProperty({ type: [String], format: 'uuid' }) label_ids!: string[];
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) parent_id!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The cycle the work item is in, or null.' })
  cycle_id!: string | null;
  @ApiProperty({ type: [String], format: 'uuid', description: 'The modules the work item is in ([] when none).' })
  module_ids!: string[];
  @ApiProperty({ type: String, format: 'date', nullable: true }) start_date!: string | null;
  @ApiProperty({ type: String, format: 'date', nullable: true }) target_date!: string | null;
  @ApiProperty() is_draft!: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) archived_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) created_by_id!: string | null;
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description:
      'Custom property values keyed by property name: {id, value, value_detail}. Populated on create, get, get by identifier and PATCH; null on list rows and archive/unarchive responses.',
  })
  custom_fields!: Record<string, unknown> | null;
  @ApiPropertyOptional({ type: WorkItemStateRefDto, description: 'With expand=state.' }) state?: WorkItemStateRefDto;
  @ApiPropertyOptional({ type: WorkItemTypeRefDto, nullable: true, description: 'With expand=type.' })
  type?: WorkItemTypeRefDto | null;
  @ApiPropertyOptional({ type: WorkItemParentRefDto, nullable: true, description: 'With expand=parent.' })
  parent?: WorkItemParentRefDto | null;
  @ApiPropertyOptional({ type: [WorkItemUserRefDto], description: 'With expand=assignees.' })
  assignees?: WorkItemUserRefDto[];
  @ApiPropertyOptional({ type: [WorkItemLabelRefDto], description: 'With expand=labels.' })
  labels?: WorkItemLabelRefDto[];
  @ApiPropertyOptional({
    type: WorkItemCycleRefDto,
    nullable: true,
    description: 'With expand=cycle: the cycle the work item is in, or null.',
  })
  cycle?: WorkItemCycleRefDto | null;
  @ApiPropertyOptional({
    type: [WorkItemModuleRefDto],
    description: 'With expand=modules: the modules the work item is in ([] when none).',
  })
  modules?: WorkItemModuleRefDto[];
}

export const WORK_ITEM_EXPAND = ['state', 'type', 'parent', 'assignees', 'labels', 'cycle', 'modules'] as const;
