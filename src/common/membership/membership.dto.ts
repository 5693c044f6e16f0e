import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsUUID } from 'class-validator';
import { OptionalNotNull } from '../http/validation';

const MAX_IDS = 500;

/** Membership change: ids of work items of this project. */
export class WorkItemsMembershipDto {
  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description:
      'Work items to add. A work item is in at most one cycle: adding it to a cycle moves it out of its previous one. Modules have no such limit.',
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_IDS)
  @IsUUID('all', { each: true })
  add?: string[];

  @ApiPropertyOptional({ type: [String], format: 'uuid', description: 'Work items to take out.' })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_IDS)
  @IsUUID('all', { each: true })
  remove?: string[];
}

export class WorkItemsChangeDto {
  @ApiProperty({ type: [String], format: 'uuid', description: 'Ids newly placed in the grouping by this request.' })
  added!: string[];
  @ApiProperty({ type: [String], format: 'uuid', description: 'Ids taken out of the grouping by this request.' })
  removed!: string[];
}
