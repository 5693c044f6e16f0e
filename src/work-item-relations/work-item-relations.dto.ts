import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsString, IsUUID } from 'class-validator';

export const RELATION_BATCH_MAX = 50;
export const DEPENDENCY_TYPES = [
  'blocking',
  'blocked_by',
  'start_before',
  'start_after',
  'finish_before',
  'finish_after',
] as const;
export type DependencyType = (typeof DEPENDENCY_TYPES)[number];

const ITEM_IDS_DOC: ApiPropertyOptions = {
  type: [String],
  format: 'uuid',
  minItems: 1,
  maxItems: RELATION_BATCH_MAX,
  uniqueItems: true,
  description:
    'Work items of the workspace (any project the caller can read) to relate this one to; not this work item.',
};

function WorkItemIds(): PropertyDecorator {
  return (target, key) => {
    for (const d of [
      ApiProperty(ITEM_IDS_DOC),
      IsArray(),
      ArrayMinSize(1),
      ArrayMaxSize(RELATION_BATCH_MAX),
      ArrayUnique(),
      IsUUID('all', { each: true }),
    ])
      d(target, key);
  };
}

export class CreateWorkItemRelationDto {
  @ApiProperty({ format: 'uuid', description: 'A live, active relation definition of the workspace.' })
  @IsUUID('all')
  relation_definition_id!: string;

  @ApiProperty({
    description:
      'The definition\'s outward label (this work item is the source: it "blocks" the others) or its inward label ' +
      '(this work item is the target: it "is blocked by" the others).',
  })
  @IsString()
  direction!: string;

  @WorkItemIds() work_item_ids!: string[];
}

export class CreateWorkItemDependencyDto {
  @ApiProperty({ enum: DEPENDENCY_TYPES, description: "The dependency, read from this work item's side." })
  @IsIn(DEPENDENCY_TYPES, { message: `$property must be one of: ${DEPENDENCY_TYPES.join(', ')}` })
  relation_type!: DependencyType;

  @WorkItemIds() work_item_ids!: string[];
}

const IDS: ApiPropertyOptions = { type: [String], format: 'uuid' };

/** Dependency work item ids grouped by the six fixed keys, from this work item's side. */
export class WorkItemDependencyListDto {
  @ApiProperty(IDS) blocking!: string[];
  @ApiProperty(IDS) blocked_by!: string[];
  @ApiProperty(IDS) start_before!: string[];
  @ApiProperty(IDS) start_after!: string[];
  @ApiProperty(IDS) finish_before!: string[];
  @ApiProperty(IDS) finish_after!: string[];
}

/** OpenAPI schema of the relation list: related work item ids keyed by direction label. */
export const RELATION_LIST_SCHEMA = {
  type: 'object',
  description:
    "Related work item ids keyed by direction label: every outward and inward label of the workspace's live " +
    'definitions (an empty array when none), e.g. {"blocks": [...], "is blocked by": [...], "relates to": []}.',
  additionalProperties: { type: 'array', items: { type: 'string', format: 'uuid' } },
} as const;
