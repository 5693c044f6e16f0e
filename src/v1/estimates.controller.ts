import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { ErrorCode } from '../common/errors/error-codes';
import { ProblemException } from '../common/errors/problem.exception';
import { UuidParam } from '../common/http/params';
import {
  CreateEstimateDto,
  CreateEstimatePointDto,
  UpdateEstimateDto,
  UpdateEstimatePointDto,
} from '../estimates/estimates.dto';
import { ESTIMATE_LIST, POINT_LIST } from '../estimates/estimates.queries';
import { EstimatesService } from '../estimates/estimates.service';
import { everyRow } from './v1-list';
import { asV2Body, fromV1 } from './v1-shape';
import { V1Shaper } from './v1-shaper';
import { V1Transaction } from './v1-transaction';
import { V1_RECORDS, V1Returns } from './v1-responses';

const READ = { scope: 'projects.estimates:read', project: ProjectRole.Guest } as const;
const WRITE = { scope: 'projects.estimates:write', project: ProjectRole.Admin } as const;
/** v1's `last_used` is the estimate the project uses: v2's `is_active`. */
const ESTIMATE_IN = { last_used: 'is_active' };
const NONE = () => new ProblemException(ErrorCode.ResourceNotFound, 'This project has no estimate.');

/**
 * v1 addresses a project's estimate without an id (/estimates/): the one the project uses (v2's active estimate,
 * at most one per project). Its points keep their ids.
 */
@ApiTags('v1 estimates')
@Controller('api/v1/workspaces/:slug/projects/:project_id/estimates')
export class V1EstimatesController {
  constructor(
    private readonly estimates: EstimatesService,
    private readonly shape: V1Shaper,
    private readonly tx: V1Transaction,
  ) {}

  /** The project's active estimate's id (404 when it has none). */
  private async activeId(ctx: ProjectContext): Promise<string> {
    const all = await everyRow(ESTIMATE_LIST, (q) => this.estimates.list(ctx, q, new Set()));
    const active = all.find((e) => e.is_active);
    if (!active) throw NONE();
    return active.id;
  }

  @Get()
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.estimate })
  @ApiOperation({ operationId: 'v1_estimates_get', summary: "The project's estimate" })
  async get(@Ctx() ctx: ProjectContext) {
    return this.shape.one('estimates', ctx, await this.estimates.get(ctx, await this.activeId(ctx), new Set()));
  }

  @Post()
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.estimate })
  @ApiOperation({ operationId: 'v1_estimates_create' })
  async create(@Ctx() ctx: ProjectContext, @Body() body: unknown) {
    const dto = await asV2Body(CreateEstimateDto, fromV1(body, ESTIMATE_IN));
    return this.shape.one('estimates', ctx, await this.estimates.create(ctx, dto, new Set()));
  }

  @Patch()
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.estimate })
  @ApiOperation({ operationId: 'v1_estimates_update' })
  async update(@Ctx() ctx: ProjectContext, @Body() body: unknown) {
    const dto = await asV2Body(UpdateEstimateDto, fromV1(body, ESTIMATE_IN));
    const id = await this.activeId(ctx);
    return this.shape.one('estimates', ctx, await this.estimates.update(ctx, id, dto, new Set()));
  }

  @Put()
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.estimate })
  @ApiOperation({ operationId: 'v1_estimates_replace' })
  replace(@Ctx() ctx: ProjectContext, @Body() body: unknown) {
    return this.update(ctx, body);
  }

  @Delete()
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_estimates_delete' })
  async remove(@Ctx() ctx: ProjectContext): Promise<void> {
    await this.estimates.remove(ctx, await this.activeId(ctx));
  }

  @Get(':estimate_id/estimate-points')
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.estimatePoint, list: 'array' })
  @ApiOperation({ operationId: 'v1_estimate_points_list', summary: 'Every point of the estimate (an array)' })
  async points(@Ctx() ctx: ProjectContext, @UuidParam('estimate_id') estimate: string) {
    const rows = await everyRow(POINT_LIST, (q) => this.estimates.listPoints(ctx, estimate, q));
    return this.shape.many('estimate_points', ctx, rows);
  }

  @Post(':estimate_id/estimate-points')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.estimatePoint, list: 'array' })
  @ApiOperation({
    operationId: 'v1_estimate_points_create',
    description:
      'v1 sends an array of points, created in order in one transaction: a point refused by a rule (a value already used) creates none of them.',
  })
  async createPoints(@Ctx() ctx: ProjectContext, @UuidParam('estimate_id') estimate: string, @Body() body: unknown) {
    const list = Array.isArray(body) ? body : [body];
    const dtos: CreateEstimatePointDto[] = [];
    for (const point of list) dtos.push(await asV2Body(CreateEstimatePointDto, point));
    // All the points or none: a point a rule refuses rolls back the ones created before it.
    const created = await this.tx.run(async () => {
      const rows = [];
      for (const dto of dtos) rows.push(await this.estimates.createPoint(ctx, estimate, dto));
      return rows;
    });
    return this.shape.many('estimate_points', ctx, created);
  }

  @Patch(':estimate_id/estimate-points/:pk')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.estimatePoint })
  @ApiOperation({ operationId: 'v1_estimate_points_update' })
  async updatePoint(
    @Ctx() ctx: ProjectContext,
    @UuidParam('estimate_id') estimate: string,
    @UuidParam('pk') pk: string,
    @Body() body: unknown,
  ) {
    const dto = await asV2Body(UpdateEstimatePointDto, body);
    return this.shape.one('estimate_points', ctx, await this.estimates.updatePoint(ctx, estimate, pk, dto));
  }

  @Put(':estimate_id/estimate-points/:pk')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.estimatePoint })
  @ApiOperation({ operationId: 'v1_estimate_points_replace' })
  replacePoint(
    @Ctx() ctx: ProjectContext,
    @UuidParam('estimate_id') estimate: string,
    @UuidParam('pk') pk: string,
    @Body() body: unknown,
  ) {
    return this.updatePoint(ctx, estimate, pk, body);
  }

  @Delete(':estimate_id/estimate-points/:pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_estimate_points_delete' })
  async removePoint(
    @Ctx() ctx: ProjectContext,
    @UuidParam('estimate_id') estimate: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.estimates.removePoint(ctx, estimate, pk);
  }
}
