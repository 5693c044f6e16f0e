import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole, WORK_ITEM_READER } from '../common/auth/roles';
import { ErrorCode } from '../common/errors/error-codes';
import { ProblemException } from '../common/errors/problem.exception';
import { UuidParam, WorkItemIdParam } from '../common/http/params';
import { WorkItemPropertiesService } from '../work-item-properties/work-item-properties.service';
import { projectOwner, workspaceOwner } from '../work-item-types/work-item-types.service';
import { UpdateWorkItemDto } from '../work-items/work-items.dto';
import { WorkItemsService } from '../work-items/work-items.service';
import { V1Returns } from './v1-responses';
import { asV2Body } from './v1-shape';

const READ = { scope: 'projects.work_items:read', project: WORK_ITEM_READER } as const;
const WRITE = { scope: 'projects.work_items:write', project: ProjectRole.Contributor } as const;
const WI = 'api/v1/workspaces/:slug/projects/:project_id/work-items/:work_item_id/work-item-properties';

/** The SDK's `WorkItemPropertyValues`: each property with a value, its value(s) as a list. */
const V1_VALUES = {
  type: 'array',
  items: {
    type: 'object',
    properties: { property_id: { type: 'string', format: 'uuid' }, values: { type: 'array' } },
    required: ['property_id', 'values'],
  },
};

type Values = Array<{ property_id: string; values: unknown[] }>;
type Read = Record<string, { id: string; value: unknown }>;

/**
 * Custom property values of a work item through v1, by property id. v2 keeps them in the work item's
 * `custom_fields` (keyed by property name): a read is the item's, a write is v2's work item PATCH of that one key
 * (its validation, type rules and history), a delete sets it to null.
 */
@ApiTags('v1 work item types')
@Controller(WI)
export class V1PropertyValuesController {
  constructor(
    private readonly items: WorkItemsService,
    private readonly properties: WorkItemPropertiesService,
  ) {}

  private async values(ctx: ProjectContext, item: string): Promise<Values> {
    const read = ((await this.items.get(ctx, item, new Set())).custom_fields ?? {}) as Read;
    return Object.values(read)
      .filter((f) => f.value !== null && f.value !== undefined)
      .map((f) => ({ property_id: f.id, values: Array.isArray(f.value) ? f.value : [f.value] }));
  }

  /** The property's custom_fields key: a property of this project, or of the workspace. */
  private async key(ctx: ProjectContext, id: string): Promise<string> {
    const notFound = (e: unknown) => e instanceof ProblemException && e.code === ErrorCode.ResourceNotFound;
    try {
      return (await this.properties.get(projectOwner(ctx), id)).name;
    } catch (e) {
      if (!notFound(e)) throw e;
      return (await this.properties.get(workspaceOwner(ctx), id)).name;
    }
  }

  private async set(ctx: ProjectContext, item: string, property: string, value: unknown): Promise<Values> {
    const dto = await asV2Body(UpdateWorkItemDto, { custom_fields: { [await this.key(ctx, property)]: value } });
    await this.items.update(ctx, item, dto, new Set());
    return (await this.values(ctx, item)).filter((v) => v.property_id === property);
  }

  @Get('values')
  @Authenticated(READ)
  @V1Returns({ schema: V1_VALUES })
  @ApiOperation({ operationId: 'v1_property_values_list' })
  list(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') item: string) {
    return this.values(ctx, item);
  }

  @Get(':property_id/values')
  @Authenticated(READ)
  @V1Returns({ schema: V1_VALUES })
  @ApiOperation({ operationId: 'v1_property_values_get', description: 'An empty list when the item has no value.' })
  async get(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @UuidParam('property_id') property: string,
  ) {
    await this.key(ctx, property);
    return (await this.values(ctx, item)).filter((v) => v.property_id === property);
  }

  @Post(':property_id/values')
  @Authenticated(WRITE)
  @V1Returns({ schema: V1_VALUES })
  @ApiOperation({ operationId: 'v1_property_values_create', description: "`{value}`: v2's custom_fields rules." })
  async create(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @UuidParam('property_id') property: string,
    @Body() body: unknown,
  ) {
    return this.set(ctx, item, property, (body as { value?: unknown } | null)?.value);
  }

  @Patch(':property_id/values')
  @Authenticated(WRITE)
  @V1Returns({ schema: V1_VALUES })
  @ApiOperation({ operationId: 'v1_property_values_update' })
  update(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @UuidParam('property_id') property: string,
    @Body() body: unknown,
  ) {
    return this.create(ctx, item, property, body);
  }

  @Delete(':property_id/values')
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_property_values_delete' })
  async remove(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @UuidParam('property_id') property: string,
  ): Promise<void> {
    await this.set(ctx, item, property, null);
  }
}
