import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';
import { OptionalNotNull } from '../common/http/validation';
import { Int32Field } from '../common/http/dto-fields';

/** Boolean flags of the workspace features object (gap-reference 3.8, plus is_custom_properties_enabled). */
export const WORKSPACE_FLAGS = [
  'is_work_item_types_enabled',
  'is_workitem_hierarchy_enabled',
  'is_project_grouping_enabled',
  'is_teams_enabled',
  'is_wiki_enabled',
  'is_initiative_enabled',
  'is_customer_enabled',
  'is_release_enabled',
  'is_state_duration_enabled',
  'is_pi_enabled',
  'is_custom_properties_enabled',
] as const;
export const WORKSPACE_FEATURE_FIELDS = [...WORKSPACE_FLAGS, 'work_item_type_default_level'] as const;
export type WorkspaceFeatureField = (typeof WORKSPACE_FEATURE_FIELDS)[number];

/** Boolean flags of the project features object (later edition's shape plus cycles/modules/estimates switches). */
export const PROJECT_FLAGS = [
  'is_workflow_enabled',
  'is_cycles_enabled',
  'is_modules_enabled',
  'is_estimates_enabled',
  'is_automated_cycle_enabled',
  'is_epic_enabled',
  'is_manually_start_end_cycles_enabled',
  'is_milestone_enabled',
  'is_parallel_cycles_enabled',
  'is_project_updates_enabled',
] as const;
export type ProjectFeatureField = (typeof PROJECT_FLAGS)[number];

/** A PATCHable boolean flag: optional, never null, strictly boolean (no "true" strings, no 0/1). */
function Flag(description?: string): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({ type: Boolean, description })(target, key);
    OptionalNotNull()(target, key);
    IsBoolean({ message: '$property must be a boolean' })(target, key);
  };
}

export class WorkspaceFeaturesDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({
    description:
      'Work item type mode: true is workspace mode (types and properties managed at the workspace level), false is project mode.',
  })
  is_work_item_types_enabled!: boolean;
  @ApiProperty({ type: 'integer' }) work_item_type_default_level!: number;
  @ApiProperty({ description: 'Spelled `workitem`.' }) is_workitem_hierarchy_enabled!: boolean;
  @ApiProperty() is_project_grouping_enabled!: boolean;
  @ApiProperty() is_teams_enabled!: boolean;
  @ApiProperty() is_wiki_enabled!: boolean;
  @ApiProperty() is_initiative_enabled!: boolean;
  @ApiProperty() is_customer_enabled!: boolean;
  @ApiProperty() is_release_enabled!: boolean;
  @ApiProperty() is_state_duration_enabled!: boolean;
  @ApiProperty() is_pi_enabled!: boolean;
  @ApiProperty({ description: 'When false, sending custom_fields on work items is 400.' })
  is_custom_properties_enabled!: boolean;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

/** PATCH body: partial; unknown keys (including misspellings) are ignored; id and created_at are read-only. */
export class UpdateWorkspaceFeaturesDto {
  @Flag('true switches to workspace mode, false to project mode; the switch is recorded in the audit trail.')
  is_work_item_types_enabled?: boolean;

  @Int32Field()
  work_item_type_default_level?: number;

  @Flag() is_workitem_hierarchy_enabled?: boolean;
  @Flag() is_project_grouping_enabled?: boolean;
  @Flag() is_teams_enabled?: boolean;
  @Flag() is_wiki_enabled?: boolean;
  @Flag() is_initiative_enabled?: boolean;
  @Flag() is_customer_enabled?: boolean;
  @Flag() is_release_enabled?: boolean;
  @Flag() is_state_duration_enabled?: boolean;
  @Flag() is_pi_enabled?: boolean;
  @Flag() is_custom_properties_enabled?: boolean;
}

export class ProjectFeaturesDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) project_id!: string;
  @ApiProperty({ description: 'Default false.' }) is_workflow_enabled!: boolean;
  @ApiProperty({ description: 'Default true; when false, cycle writes are 400 (reads keep working).' })
  is_cycles_enabled!: boolean;
  @ApiProperty({ description: 'Default true; when false, module writes are 400 (reads keep working).' })
  is_modules_enabled!: boolean;
  @ApiProperty({ description: 'Default true.' }) is_estimates_enabled!: boolean;
  @ApiProperty() is_automated_cycle_enabled!: boolean;
  @ApiProperty() is_epic_enabled!: boolean;
  @ApiProperty() is_manually_start_end_cycles_enabled!: boolean;
  @ApiProperty() is_milestone_enabled!: boolean;
  @ApiProperty() is_parallel_cycles_enabled!: boolean;
  @ApiProperty() is_project_updates_enabled!: boolean;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class UpdateProjectFeaturesDto {
  @Flag() is_workflow_enabled?: boolean;
  @Flag() is_cycles_enabled?: boolean;
  @Flag() is_modules_enabled?: boolean;
  @Flag() is_estimates_enabled?: boolean;
  @Flag() is_automated_cycle_enabled?: boolean;
  @Flag() is_epic_enabled?: boolean;
  @Flag() is_manually_start_end_cycles_enabled?: boolean;
  @Flag() is_milestone_enabled?: boolean;
  @Flag() is_parallel_cycles_enabled?: boolean;
  @Flag() is_project_updates_enabled?: boolean;
}
