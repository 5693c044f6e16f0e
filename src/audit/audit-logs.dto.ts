import { ApiProperty } from '@nestjs/swagger';
import { AUDIT_CATEGORIES, AUDIT_OUTCOMES } from './audit.service';
import { catalogueDescription } from './audit-events';

/** One audit log entry (spec "Audit log entry"). Read-only: the trail has no write operations. */
export class AuditLogDto {
  @ApiProperty({ format: 'uuid', description: 'Entry id (time-ordered: ordering by id is ordering by created_at).' })
  id!: string;
  @ApiProperty({ format: 'uuid', description: 'Deduplication key: key exported entries on it. Not accepted as {pk}.' })
  event_id!: string;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    description:
      'Strictly increasing in commit order within the workspace (not gapless); orders entries written in the same instant.',
  })
  sequence_number!: number;
  @ApiProperty({ description: catalogueDescription() }) event_name!: string;
  @ApiProperty({ enum: AUDIT_CATEGORIES }) category!: string;
  @ApiProperty({ enum: AUDIT_OUTCOMES }) outcome!: string;
  @ApiProperty({
    description:
      '`api` (REST API), `admin` (admin CLI and first-start bootstrap), `auth` (the OAuth authorization server and its sign-in and consent pages) or `system`. Tolerate other values.',
  })
  source!: string;
  @ApiProperty({
    description:
      "`user` (OAuth token), `api_token` (API key), `bot` (an app installation's bot user, client-credentials token), `system` or `anonymous`.",
  })
  actor_type!: string;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The user id (member_id on rosters); null for system and anonymous entries.',
  })
  actor_id!: string | null;
  @ApiProperty({ description: 'Snapshot at event time.' }) actor_display_name!: string;
  @ApiProperty({ description: 'Snapshot at event time; empty when there is no actor.' }) actor_email!: string;
  @ApiProperty({ description: 'Kind of object acted on, e.g. workspace_member, project_member, api_key, route.' })
  target_type!: string;
  @ApiProperty({ description: 'Id of the object acted on (not always a UUID, e.g. a route).' }) target_id!: string;
  @ApiProperty() target_display_name!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) old_value!: unknown;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) new_value!: unknown;
  @ApiProperty({ description: 'Why a failure happened (a reason or problem code); empty on success.' }) reason!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Free-form. An aggregated failure carries `aggregation: {window_start, window_end, window_seconds, fingerprint, occurrences}`: ' +
      'the identical failures of that window counted on one entry (occurrences is final once window_end has passed).',
  })
  metadata!: Record<string, unknown>;
  @ApiProperty({ description: 'Client address; empty for CLI and system entries (no client).' }) ip_address!: string;
  @ApiProperty() user_agent!: string;
  @ApiProperty({ format: 'uuid' }) workspace_id!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) project_id!: string | null;
  @ApiProperty({
    format: 'date-time',
    description: 'UTC with microseconds; strictly increasing in commit order within the workspace.',
  })
  created_at!: string;
}
