import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { Expandable, ExpandParam } from '../common/expand/expand';
import { UuidParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import {
  CreateEstimateDto,
  CreateEstimatePointDto,
  EstimateDto,
  EstimatePointDto,
  UpdateEstimateDto,
  UpdateEstimatePointDto,
} from './estimates.dto';
import { ESTIMATE_EXPANDS } from './estimates.mapper';
import { ESTIMATE_LIST, POINT_LIST } from './estimates.queries';
import { EstimatesService } from './estimates.service';
import { Versioned } from '../common/http/conditional';

const GATED: [number, string] = [
  400,
  '`validation_error` (also: estimates disabled for the project, field `is_estimates_enabled`)',
];

@ApiTags('estimates')
@ApiSlugParam()
@ApiUuidParam('project_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/estimates')
export class EstimatesController {
  constructor(private readonly estimates: EstimatesService) {}

  @Get()
  @Authenticated({ scope: 'projects.estimates:read', project: ProjectRole.Guest })
  @ApiOperation({ operationId: 'estimates_list', summary: 'List the estimates of a project' })
  @Expandable(ESTIMATE_EXPANDS)
  @ApiListQuery(ESTIMATE_LIST)
  @ApiListResponse(EstimateDto)
  list(@Ctx() ctx: ProjectContext, @ListParams(ESTIMATE_LIST) q: ListQuery, @ExpandParam() expand: Set<string>) {
    return this.estimates.list(ctx, q, expand);
  }

  @Post()
  @Authenticated({ scope: 'projects.estimates:write', project: ProjectRole.Admin })
  @ApiOperation({
    operationId: 'estimates_create',
    summary: 'Create an estimate',
    description:
      'Active when `is_active` is true (the previous active estimate is deactivated) or when omitted and the project has no active estimate.',
  })
  @Expandable(ESTIMATE_EXPANDS)
  @ApiCreatedResponse({ type: EstimateDto })
  @ApiProblemResponses(GATED, 404, [409, '`conflict`: the name is already used in the project'])
  create(@Ctx() ctx: ProjectContext, @Body() body: CreateEstimateDto, @ExpandParam() expand: Set<string>) {
    return this.estimates.create(ctx, body, expand);
  }

  @Versioned('estimates')
  @Get(':pk')
  @Authenticated({ scope: 'projects.estimates:read', project: ProjectRole.Guest })
  @ApiOperation({ operationId: 'estimates_get', summary: 'Get an estimate' })
  @ApiUuidParam('pk')
  @Expandable(ESTIMATE_EXPANDS)
  @ApiOkResponse({ type: EstimateDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @ExpandParam() expand: Set<string>) {
    return this.estimates.get(ctx, pk, expand);
  }

  @Versioned('estimates')
  @Patch(':pk')
  @Authenticated({ scope: 'projects.estimates:write', project: ProjectRole.Admin })
  @ApiOperation({ operationId: 'estimates_update', summary: 'Update an estimate (partial)' })
  @ApiUuidParam('pk')
  @Expandable(ESTIMATE_EXPANDS)
  @ApiOkResponse({ type: EstimateDto })
  @ApiProblemResponses(GATED, 404, [409, '`conflict`: the name is already used in the project'])
  update(
    @Ctx() ctx: ProjectContext,
    @UuidParam('pk') pk: string,
    @Body() body: UpdateEstimateDto,
    @ExpandParam() expand: Set<string>,
  ) {
    return this.estimates.update(ctx, pk, body, expand);
  }

  @Versioned('estimates')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated({ scope: 'projects.estimates:write', project: ProjectRole.Admin })
  @ApiOperation({
    operationId: 'estimates_delete',
    summary: 'Delete an estimate and its points (soft)',
    description: 'Work items lose their point of this estimate.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(GATED, 404)
  async remove(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.estimates.remove(ctx, pk);
  }
}

@ApiTags('estimates')
@ApiSlugParam()
@ApiUuidParam('project_id')
@ApiUuidParam('estimate_id')
@Controller('api/v2/workspaces/:slug/projects/:project_id/estimates/:estimate_id/points')
export class EstimatePointsController {
  constructor(private readonly estimates: EstimatesService) {}

  @Get()
  @Authenticated({ scope: 'projects.estimates:read', project: ProjectRole.Guest })
  @ApiOperation({ operationId: 'estimate_points_list', summary: 'List the points of an estimate' })
  @ApiListQuery(POINT_LIST)
  @ApiListResponse(EstimatePointDto)
  list(@Ctx() ctx: ProjectContext, @UuidParam('estimate_id') estimateId: string, @ListParams(POINT_LIST) q: ListQuery) {
    return this.estimates.listPoints(ctx, estimateId, q);
  }

  @Post()
  @Authenticated({ scope: 'projects.estimates:write', project: ProjectRole.Admin })
  @ApiOperation({ operationId: 'estimate_points_create', summary: 'Add a point to an estimate' })
  @ApiCreatedResponse({ type: EstimatePointDto })
  @ApiProblemResponses(GATED, 404, [409, '`conflict`: the value is already used in the estimate'])
  create(
    @Ctx() ctx: ProjectContext,
    @UuidParam('estimate_id') estimateId: string,
    @Body() body: CreateEstimatePointDto,
  ) {
    return this.estimates.createPoint(ctx, estimateId, body);
  }

  @Versioned('estimate_points')
  @Get(':pk')
  @Authenticated({ scope: 'projects.estimates:read', project: ProjectRole.Guest })
  @ApiOperation({ operationId: 'estimate_points_get', summary: 'Get an estimate point' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: EstimatePointDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @UuidParam('estimate_id') estimateId: string, @UuidParam('pk') pk: string) {
    return this.estimates.getPoint(ctx, estimateId, pk);
  }

  @Versioned('estimate_points')
  @Patch(':pk')
  @Authenticated({ scope: 'projects.estimates:write', project: ProjectRole.Admin })
  @ApiOperation({ operationId: 'estimate_points_update', summary: 'Update an estimate point (partial)' })
  @ApiUuidParam('pk')
  @ApiOkResponse({ type: EstimatePointDto })
  @ApiProblemResponses(GATED, 404, [409, '`conflict`: the value is already used in the estimate'])
  update(
    @Ctx() ctx: ProjectContext,
    @UuidParam('estimate_id') estimateId: string,
    @UuidParam('pk') pk: string,
    @Body() body: UpdateEstimatePointDto,
  ) {
    return this.estimates.updatePoint(ctx, estimateId, pk, body);
  }

  @Versioned('estimate_points')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated({ scope: 'projects.estimates:write', project: ProjectRole.Admin })
  @ApiOperation({
    operationId: 'estimate_points_delete',
    summary: 'Delete an estimate point (soft)',
    description: 'Work items carrying the point lose it.',
  })
  @ApiUuidParam('pk')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(GATED, 404)
  async remove(
    @Ctx() ctx: ProjectContext,
    @UuidParam('estimate_id') estimateId: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.estimates.removePoint(ctx, estimateId, pk);
  }
}
