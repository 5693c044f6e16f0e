import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { UserRefDto } from '../users/user-ref';
import { ACTIVITY_VERBS } from './work-item-activities.queries';

const NULLABLE_TEXT = { type: String, nullable: true } as const;
const NULLABLE_UUID = { type: String, format: 'uuid', nullable: true } as const;

/** One history entry (Plane v2 WorkItemActivity). Read-only. */
export class WorkItemActivityDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) work_item_id!: string;
  @ApiProperty({ enum: ACTIVITY_VERBS, description: 'What happened; clients must tolerate values not listed.' })
  verb!: string;
  @ApiProperty({
    ...NULLABLE_TEXT,
    description:
      'The changed field: name, description, priority, state, type, parent, estimate_point, cycle, start_date, ' +
      'target_date, is_draft, custom_fields, external_id, external_source, archived_at, assignees, labels, ' +
      'modules, comment, link, relation, dependency; null for the work item itself (created, deleted).',
  })
  field!: string | null;
  @ApiProperty({ ...NULLABLE_TEXT, description: 'The value before (ids as text for relational fields).' })
  old_value!: string | null;
  @ApiProperty({ ...NULLABLE_TEXT, description: 'The value after (ids as text for relational fields).' })
  new_value!: string | null;
  @ApiProperty({ ...NULLABLE_UUID, description: 'The record referred to before (state, member, label, link, ...).' })
  old_identifier_id!: string | null;
  @ApiProperty({ ...NULLABLE_UUID, description: 'The record referred to after.' })
  new_identifier_id!: string | null;
  @ApiProperty({ ...NULLABLE_UUID, description: 'The comment, on comment entries.' })
  issue_comment_id!: string | null;
  @ApiProperty({ ...NULLABLE_UUID, description: 'Who made the change.' })
  actor_id!: string | null;
  @ApiProperty({ description: 'A sentence describing the change.' })
  comment!: string;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    description: 'Unix time (ms) of the transaction: every entry of one change has the same epoch.',
  })
  epoch!: number;
  @ApiProperty({ ...NULLABLE_TEXT, description: 'Always null (history is never imported).' })
  external_id!: string | null;
  @ApiProperty({ ...NULLABLE_TEXT, description: 'Always null.' })
  external_source!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiPropertyOptional({
    type: UserRefDto,
    nullable: true,
    description: 'With ?expand=actor: who made the change; null when no user made it.',
  })
  actor?: UserRefDto | null;
}
