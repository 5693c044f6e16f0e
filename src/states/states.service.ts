import { Injectable } from '@nestjs/common';
import { assertNameFree, cleanName } from '../common/names/names';
import { DataSource } from 'typeorm';
import { ProjectContext } from '../common/auth/request-context';
import { ProblemException } from '../common/errors/problem.exception';
import { ListQuery } from '../common/pagination/list-query';
import { CreateStateDto, StateDto, UpdateStateDto } from './states.dto';
import { mapState } from './states.mapper';
import { StatesRepository, StatesSeedRepository, StateWrite } from './states.repository';
import { assertExternalPairFree } from '../common/database/external-pair';

/** States of a project (gap-reference 3.3): exactly one default, protected deletes. */
@Injectable()
export class StatesService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: StatesRepository,
    private readonly seeds: StatesSeedRepository,
  ) {}

  /** Seeds the default states of a new project inside the project create's transaction. */
  seedDefaults(...args: Parameters<StatesSeedRepository['seedDefaults']>) {
    return this.seeds.seedDefaults(...args);
  }

  async list(ctx: ProjectContext, q: ListQuery) {
    const { rows, envelope } = await this.repo.list(ctx.workspace.id, ctx.project.id, q);
    return envelope(rows.map(mapState));
  }

  async get(ctx: ProjectContext, id: string): Promise<StateDto> {
    const row = await this.repo.get(ctx.workspace.id, ctx.project.id, id);
    if (!row) throw ProblemException.notFound('State');
    return mapState(row);
  }

  async create(ctx: ProjectContext, dto: CreateStateDto): Promise<StateDto> {
    return this.ds.transaction(async (tx) => {
      const projectId = ctx.project.id;
      const name = cleanName(dto.name);
      await this.repo.lockProjectStates(projectId, tx);
      await assertNameFree(this.repo.nameTaken(ctx.workspace.id, projectId, name, null, tx), 'state', name);
      await assertExternalPairFree(tx, 'states', { workspaceId: ctx.workspace.id, projectId }, dto, null);
      const isDefault = dto.is_default === true;
      if (isDefault) await this.repo.clearDefault(ctx.workspace.id, projectId, tx);
      const row = await this.repo.insert(
        ctx.workspace.id,
        projectId,
        {
          ...this.writable(dto),
          name,
          color: dto.color,
          group: dto.group ?? 'backlog',
          sequence: dto.sequence ?? (await this.repo.nextSequence(ctx.workspace.id, projectId, tx)),
          is_default: isDefault,
        },
        ctx.principal.userId,
        tx,
      );
      return mapState(row);
    });
  }

  async update(ctx: ProjectContext, id: string, dto: UpdateStateDto): Promise<StateDto> {
    return this.ds.transaction(async (tx) => {
      const projectId = ctx.project.id;
      await this.repo.lockProjectStates(projectId, tx);
      const current = await this.repo.get(ctx.workspace.id, projectId, id, tx, true);
      if (!current) throw ProblemException.notFound('State');
      await assertExternalPairFree(tx, 'states', { workspaceId: ctx.workspace.id, projectId }, dto, current);
      const v: StateWrite = { ...this.writable(dto), color: dto.color, group: dto.group, sequence: dto.sequence };
      if (dto.name !== undefined) {
        v.name = cleanName(dto.name);
        await assertNameFree(this.repo.nameTaken(ctx.workspace.id, projectId, v.name, id, tx), 'state', v.name);
      }
      if (dto.is_default === false && current.is_default) {
        throw ProblemException.validation(
          'is_default',
          'A project always has one default state; set is_default true on another state instead.',
        );
      }
      if (dto.is_default === true && !current.is_default) {
        await this.repo.clearDefault(ctx.workspace.id, projectId, tx);
        v.is_default = true;
      }
      await this.repo.update(ctx.workspace.id, id, v, tx);
      return mapState((await this.repo.get(ctx.workspace.id, projectId, id, tx))!);
    });
  }

  /** Soft delete, refused (409) for the default state and for a state that still holds work items. */
  async remove(ctx: ProjectContext, id: string): Promise<void> {
    await this.ds.transaction(async (tx) => {
      const projectId = ctx.project.id;
      await this.repo.lockProjectStates(projectId, tx);
      const current = await this.repo.get(ctx.workspace.id, projectId, id, tx, true);
      if (!current) throw ProblemException.notFound('State');
      if (current.is_default) throw ProblemException.conflict('The default state cannot be deleted.');
      if (await this.repo.hasWorkItems(ctx.workspace.id, projectId, id, tx)) {
        throw ProblemException.conflict('This state still has work items in it.');
      }
      await this.repo.softDelete(ctx.workspace.id, id, tx);
    });
  }

  private writable(dto: CreateStateDto | UpdateStateDto): StateWrite {
    return { description: dto.description, external_id: dto.external_id, external_source: dto.external_source };
  }
}
