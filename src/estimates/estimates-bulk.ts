import { Injectable } from '@nestjs/common';
import { ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { BulkRoutes, BulkTargets, projectCollection } from '../common/bulk/bulk-routes';
import { BulkTarget } from '../common/bulk/bulk-writes';
import { assertUuid } from '../common/http/validation';
import {
  CreateEstimateDto,
  CreateEstimatePointDto,
  EstimateDto,
  EstimatePointDto,
  UpdateEstimateDto,
  UpdateEstimatePointDto,
} from './estimates.dto';
import { EstimatesService } from './estimates.service';

const NO_EXPAND = new Set<string>();

/** A project's estimates as bulk targets: each row is the single estimate create, PATCH or DELETE. */
@Injectable()
export class EstimatesBulkTargets implements BulkTargets {
  constructor(private readonly estimates: EstimatesService) {}

  target(ctx: ProjectContext): BulkTarget<CreateEstimateDto, UpdateEstimateDto> {
    return {
      createDto: CreateEstimateDto,
      updateDto: UpdateEstimateDto,
      create: (dto) => this.estimates.create(ctx, dto, NO_EXPAND),
      update: (id, dto) => this.estimates.update(ctx, id, dto, NO_EXPAND),
      remove: (id) => this.estimates.remove(ctx, id),
      pair: { table: 'estimates', workspaceId: ctx.workspace.id, scopeId: ctx.project.id },
    };
  }
}

/** An estimate's points as bulk targets; an unknown or foreign estimate is the request's 404. */
@Injectable()
export class EstimatePointsBulkTargets implements BulkTargets {
  constructor(private readonly estimates: EstimatesService) {}

  async target(
    ctx: ProjectContext,
    params: Record<string, string>,
  ): Promise<BulkTarget<CreateEstimatePointDto, UpdateEstimatePointDto>> {
    const estimateId = assertUuid(params.estimate_id, 'estimate_id');
    await this.estimates.get(ctx, estimateId, NO_EXPAND);
    return {
      createDto: CreateEstimatePointDto,
      updateDto: UpdateEstimatePointDto,
      create: (dto) => this.estimates.createPoint(ctx, estimateId, dto),
      update: (id, dto) => this.estimates.updatePoint(ctx, estimateId, id, dto),
      remove: (id) => this.estimates.removePoint(ctx, estimateId, id),
      pair: { table: 'estimate_points', workspaceId: ctx.workspace.id, scopeId: estimateId },
    };
  }
}

export const EstimatesBulkController = BulkRoutes(
  projectCollection('estimates', ProjectRole.Admin, { create: CreateEstimateDto, read: EstimateDto }),
  EstimatesBulkTargets,
);

export const EstimatePointsBulkController = BulkRoutes(
  {
    path: 'api/v2/workspaces/:slug/projects/:project_id/estimates/:estimate_id/points',
    tag: 'estimates',
    operation: 'estimate_points',
    noun: 'estimate points',
    auth: { scope: 'projects.estimates:write', project: ProjectRole.Admin },
    createDto: CreateEstimatePointDto,
    readDto: EstimatePointDto,
    pairScope: 'this estimate',
  },
  EstimatePointsBulkTargets,
);
