import { Injectable } from '@nestjs/common';
import { assertNameFree, cleanName } from '../common/names/names';
import { DataSource, EntityManager } from 'typeorm';
import { ProjectContext } from '../common/auth/request-context';
import { ProblemException } from '../common/errors/problem.exception';
import { isUuid } from '../common/http/validation';
import { ListQuery } from '../common/pagination/list-query';
import { Queryable } from '../common/pagination/sql-params';
import { idInNameField, NameOrIdPair } from '../common/resolve/name-or-id';
import { assertProjectFeatureEnabled } from '../features/feature-gate';
import { FeatureFlags } from '../features/feature-flags.queries';
import {
  CreateEstimateDto,
  CreateEstimatePointDto,
  EstimateDto,
  EstimatePointDto,
  UpdateEstimateDto,
  UpdateEstimatePointDto,
} from './estimates.dto';
import { EstimatePointRow, EstimateRow, mapEstimate, mapPoint } from './estimates.mapper';
import { EstimateScope, EstimatesRepository } from './estimates.repository';

/** A work item's estimate as a name-or-id pair (work item writes: estimate_point_id or estimate). */
export const ESTIMATE_POINT_FIELDS: NameOrIdPair = {
  idField: 'estimate_point_id',
  nameField: 'estimate',
  nameTakes: "an estimate point's value",
};

/** Types whose point values must be numbers. */
const NUMERIC_TYPES = new Set(['points', 'time']);
const NUMERIC_RE = /^-?\d+(\.\d+)?$/;

/**
 * Estimates per project (later-edition shape, gap-reference section 7): at most one active estimate,
 * points with values unique per estimate, writes gated by the project's `is_estimates_enabled`.
 * `resolvePoint` is how work item writes turn `estimate_point_id` / `estimate` into a point id.
 */
@Injectable()
export class EstimatesService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: EstimatesRepository,
    private readonly features: FeatureFlags,
  ) {}

  // ---- estimates ----

  async list(ctx: ProjectContext, q: ListQuery, expand: Set<string>) {
    const { rows, envelope } = await this.repo.list(ctx.workspace.id, ctx.project.id, q);
    return envelope(await this.withPoints(ctx, rows, expand));
  }

  async get(ctx: ProjectContext, id: string, expand: Set<string>, db: Queryable = this.ds): Promise<EstimateDto> {
    const row = await this.repo.get(ctx.workspace.id, ctx.project.id, id, db);
    if (!row) throw ProblemException.notFound('Estimate');
    return (await this.withPoints(ctx, [row], expand, db))[0];
  }

  async create(ctx: ProjectContext, dto: CreateEstimateDto, expand: Set<string>): Promise<EstimateDto> {
    return this.ds.transaction(async (tx) => {
      const projectId = ctx.project.id;
      await this.assertEnabled(ctx, tx);
      await this.repo.lockProject(projectId, tx);
      const name = cleanName(dto.name);
      await assertNameFree(this.repo.nameTaken(ctx.workspace.id, projectId, name, null, tx), 'estimate', name);
      const row = await this.repo.insert(
        ctx.workspace.id,
        projectId,
        {
          name,
          description: dto.description,
          type: dto.type ?? 'categories',
          external_id: dto.external_id,
          external_source: dto.external_source,
        },
        ctx.principal.userId,
        tx,
      );
      const activate = dto.is_active ?? !(await this.repo.hasActive(ctx.workspace.id, projectId, tx));
      if (activate) await this.repo.activate(ctx.workspace.id, projectId, row.id, tx);
      return this.get(ctx, row.id, expand, tx);
    });
  }

  async update(ctx: ProjectContext, id: string, dto: UpdateEstimateDto, expand: Set<string>): Promise<EstimateDto> {
    return this.ds.transaction(async (tx) => {
      const projectId = ctx.project.id;
      await this.assertEnabled(ctx, tx);
      await this.repo.lockProject(projectId, tx);
      const current = await this.repo.get(ctx.workspace.id, projectId, id, tx, true);
      if (!current) throw ProblemException.notFound('Estimate');
      let name: string | undefined;
      if (dto.name !== undefined) {
        name = cleanName(dto.name);
        await assertNameFree(this.repo.nameTaken(ctx.workspace.id, projectId, name, id, tx), 'estimate', name);
      }
      if (dto.type !== undefined && NUMERIC_TYPES.has(dto.type) && dto.type !== current.type) {
        const bad = (await this.repo.pointValues(ctx.workspace.id, id, tx)).filter((v) => !NUMERIC_RE.test(v));
        if (bad.length) {
          throw ProblemException.validation(
            'type',
            `A ${dto.type} estimate needs numeric point values; change these first: ${bad.map((v) => `"${v}"`).join(', ')}.`,
          );
        }
      }
      await this.repo.update(
        ctx.workspace.id,
        id,
        {
          name,
          description: dto.description,
          type: dto.type,
          external_id: dto.external_id,
          external_source: dto.external_source,
        },
        tx,
      );
      if (dto.is_active === true && !current.is_active) await this.repo.activate(ctx.workspace.id, projectId, id, tx);
      if (dto.is_active === false && current.is_active) await this.repo.deactivate(ctx.workspace.id, id, tx);
      return this.get(ctx, id, expand, tx);
    });
  }

  /** Soft delete of the estimate and its points; work items lose their point of it. */
  async remove(ctx: ProjectContext, id: string): Promise<void> {
    await this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      await this.repo.lockProject(ctx.project.id, tx);
      const current = await this.repo.get(ctx.workspace.id, ctx.project.id, id, tx, true);
      if (!current) throw ProblemException.notFound('Estimate');
      const pointIds = await this.repo.livePointIds(ctx.workspace.id, id, tx);
      await this.repo.clearPointsFromWorkItems(ctx.workspace.id, pointIds, tx);
      await this.repo.softDelete(ctx.workspace.id, id, tx);
    });
  }

  // ---- points ----

  async listPoints(ctx: ProjectContext, estimateId: string, q: ListQuery) {
    await this.estimateOr404(ctx, estimateId);
    const { rows, envelope } = await this.repo.listPoints(ctx.workspace.id, ctx.project.id, estimateId, q);
    return envelope(rows.map(mapPoint));
  }

  async getPoint(ctx: ProjectContext, estimateId: string, id: string): Promise<EstimatePointDto> {
    await this.estimateOr404(ctx, estimateId);
    return mapPoint(await this.pointOr404(ctx, estimateId, id));
  }

  async createPoint(ctx: ProjectContext, estimateId: string, dto: CreateEstimatePointDto): Promise<EstimatePointDto> {
    return this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      const estimate = await this.estimateOr404(ctx, estimateId, tx, true);
      const value = this.cleanValue(estimate, dto.value);
      if (await this.repo.valueTaken(ctx.workspace.id, estimateId, value, null, tx)) throw this.valueConflict(value);
      const row = await this.repo.insertPoint(
        ctx.workspace.id,
        ctx.project.id,
        estimateId,
        {
          value,
          key: dto.key ?? (await this.repo.nextKey(ctx.workspace.id, estimateId, tx)),
          description: dto.description,
          external_id: dto.external_id,
          external_source: dto.external_source,
        },
        ctx.principal.userId,
        tx,
      );
      return mapPoint(row);
    });
  }

  async updatePoint(
    ctx: ProjectContext,
    estimateId: string,
    id: string,
    dto: UpdateEstimatePointDto,
  ): Promise<EstimatePointDto> {
    return this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      const estimate = await this.estimateOr404(ctx, estimateId, tx, true);
      await this.pointOr404(ctx, estimateId, id, tx);
      let value: string | undefined;
      if (dto.value !== undefined) {
        value = this.cleanValue(estimate, dto.value);
        if (await this.repo.valueTaken(ctx.workspace.id, estimateId, value, id, tx)) throw this.valueConflict(value);
      }
      await this.repo.updatePoint(
        ctx.workspace.id,
        id,
        {
          value,
          key: dto.key,
          description: dto.description,
          external_id: dto.external_id,
          external_source: dto.external_source,
        },
        tx,
      );
      return mapPoint((await this.repo.getPoint(ctx.workspace.id, estimateId, id, tx))!);
    });
  }

  async removePoint(ctx: ProjectContext, estimateId: string, id: string): Promise<void> {
    await this.ds.transaction(async (tx) => {
      await this.assertEnabled(ctx, tx);
      await this.estimateOr404(ctx, estimateId, tx, true);
      await this.pointOr404(ctx, estimateId, id, tx);
      if (!(await this.repo.lockPoint(ctx.workspace.id, id, tx))) throw ProblemException.notFound('Estimate point');
      await this.repo.clearPointsFromWorkItems(ctx.workspace.id, [id], tx);
      await this.repo.softDeletePoint(ctx.workspace.id, id, tx);
    });
  }

  // ---- work item support ----

  /**
   * Resolves a work item's estimate against the project's ACTIVE estimate and returns the point id.
   * Send exactly one form: `{ id }` (the `estimate_point_id` field) or `{ value }` (the write-only
   * `estimate` field, matched case-insensitively against the point values). Failures are 400
   * `validation_error` naming the field: estimates disabled for the project, no active estimate,
   * an id that is not a point of the active estimate, a value matching no point, or a value
   * matching several (then the caller is told to use `estimate_point_id`). Clearing (null) is the
   * caller's business and never reaches this method. `scope` names the project with its workspace (every
   * statement is pinned to the workspace, docs/scaling.md).
   */
  async resolvePoint(db: Queryable, scope: EstimateScope, by: { id?: string; value?: string }): Promise<string> {
    const hasId = by.id !== undefined && by.id !== null;
    const hasValue = by.value !== undefined && by.value !== null;
    if (hasId && hasValue)
      throw ProblemException.validation('estimate', 'Send either estimate_point_id or estimate, not both.');
    if (!hasId && !hasValue)
      throw ProblemException.validation('estimate_point_id', 'An estimate point id or an estimate value is required.');
    const field = hasId ? 'estimate_point_id' : 'estimate';
    const { enabled, active } = await this.repo.resolutionContext(scope, db);
    if (!enabled)
      throw ProblemException.validation(
        field,
        'Estimates are disabled for this project (is_estimates_enabled is false).',
      );
    if (!active) throw ProblemException.validation(field, 'This project has no active estimate.');
    if (hasId) {
      const id = by.id!;
      const rows = isUuid(id) ? await this.repo.activePointsMatching(scope, { id: id.toLowerCase() }, db) : [];
      if (!rows.length)
        throw ProblemException.validation(field, `"${id}" is not a point of the project's active estimate.`);
      return rows[0].id;
    }
    const value = by.value!.trim();
    const rows = await this.repo.activePointsMatching(scope, { value }, db);
    if (!rows.length && isUuid(value))
      throw ProblemException.validation(field, idInNameField(ESTIMATE_POINT_FIELDS, value));
    if (!rows.length)
      throw ProblemException.validation(field, `No point of the project's active estimate has the value "${value}".`);
    if (rows.length > 1) {
      throw ProblemException.validation(
        field,
        `Several points of the active estimate match "${value}"; send estimate_point_id instead.`,
      );
    }
    return rows[0].id;
  }

  // ---- helpers ----

  private async assertEnabled(ctx: ProjectContext, db: EntityManager): Promise<void> {
    await assertProjectFeatureEnabled(this.features, ctx.workspace.id, ctx.project.id, 'is_estimates_enabled', db);
  }

  private async withPoints(
    ctx: ProjectContext,
    rows: EstimateRow[],
    expand: Set<string>,
    db: Queryable = this.ds,
  ): Promise<EstimateDto[]> {
    if (!expand.has('points')) return rows.map((r) => mapEstimate(r));
    const points = await this.repo.pointsOf(
      ctx.workspace.id,
      rows.map((r) => r.id),
      db,
    );
    const byEstimate = new Map<string, EstimatePointRow[]>();
    for (const p of points) byEstimate.set(p.estimate_id, [...(byEstimate.get(p.estimate_id) ?? []), p]);
    return rows.map((r) => mapEstimate(r, byEstimate.get(r.id) ?? []));
  }

  private async estimateOr404(
    ctx: ProjectContext,
    id: string,
    db: Queryable = this.ds,
    forUpdate = false,
  ): Promise<EstimateRow> {
    const row = await this.repo.get(ctx.workspace.id, ctx.project.id, id, db, forUpdate);
    if (!row) throw ProblemException.notFound('Estimate');
    return row;
  }

  private async pointOr404(
    ctx: ProjectContext,
    estimateId: string,
    id: string,
    db: Queryable = this.ds,
  ): Promise<EstimatePointRow> {
    const row = await this.repo.getPoint(ctx.workspace.id, estimateId, id, db);
    if (!row) throw ProblemException.notFound('Estimate point');
    return row;
  }

  private cleanValue(estimate: EstimateRow, raw: string): string {
    const value = raw.trim();
    if (!value) throw ProblemException.validation('value', 'value should not be empty');
    if (NUMERIC_TYPES.has(estimate.type) && !NUMERIC_RE.test(value)) {
      throw ProblemException.validation(
        'value',
        `The points of a ${estimate.type} estimate are numbers (e.g. "3" or "0.5").`,
      );
    }
    return value;
  }

  private valueConflict(value: string): ProblemException {
    return ProblemException.conflict(`This estimate already has a point with the value "${value}".`);
  }
}
