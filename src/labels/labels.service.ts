import { Injectable } from '@nestjs/common';
import { assertNameFree, cleanName } from '../common/names/names';
import { DataSource, EntityManager } from 'typeorm';
import { ProblemException } from '../common/errors/problem.exception';
import { ListQuery } from '../common/pagination/list-query';
import { CreateLabelDto, LabelDto, UpdateLabelDto } from './labels.dto';
import { mapLabel } from './labels.mapper';
import { LabelScope, LabelsRepository, LabelWrite } from './labels.repository';
import { assertExternalPairFree } from '../common/database/external-pair';

/**
 * Labels of a project (gap-reference 3.4) and workspace-level labels: one set of rules, two scopes.
 * Names are unique within the scope; a parent must be a live label of the same scope; deleting a
 * label strips it from work items and lifts its children to the top level.
 */
@Injectable()
export class LabelsService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: LabelsRepository,
  ) {}

  async list(s: LabelScope, q: ListQuery) {
    const { rows, envelope } = await this.repo.list(s, q);
    return envelope(rows.map(mapLabel));
  }

  async get(s: LabelScope, id: string): Promise<LabelDto> {
    const row = await this.repo.get(s, id);
    if (!row) throw ProblemException.notFound('Label');
    return mapLabel(row);
  }

  async create(s: LabelScope, userId: string, dto: CreateLabelDto): Promise<LabelDto> {
    return this.ds.transaction(async (tx) => {
      const name = cleanName(dto.name);
      await this.assertNameFree(s, name, null, tx);
      await assertExternalPairFree(tx, 'labels', s, dto, null);
      const parentId = dto.parent_id ? await this.checkParent(s, dto.parent_id.toLowerCase(), null, tx) : null;
      const row = await this.repo.insert(
        s,
        {
          ...this.writable(dto),
          name,
          parent_id: parentId,
          sort_order: dto.sort_order ?? (await this.repo.nextSortOrder(s, tx)),
        },
        userId,
        tx,
      );
      return mapLabel(row);
    });
  }

  async update(s: LabelScope, id: string, dto: UpdateLabelDto): Promise<LabelDto> {
    return this.ds.transaction(async (tx) => {
      const current = await this.repo.get(s, id, tx, true);
      if (!current) throw ProblemException.notFound('Label');
      await assertExternalPairFree(tx, 'labels', s, dto, current);
      const v: LabelWrite = { ...this.writable(dto), sort_order: dto.sort_order };
      if (dto.name !== undefined) {
        v.name = cleanName(dto.name);
        await this.assertNameFree(s, v.name, id, tx);
      }
      if (dto.parent_id !== undefined)
        v.parent_id = dto.parent_id === null ? null : await this.checkParent(s, dto.parent_id.toLowerCase(), id, tx);
      await this.repo.update(s.workspaceId, id, v, tx);
      return mapLabel((await this.repo.get(s, id, tx))!);
    });
  }

  /** Soft delete; in-use labels delete fine: the label is stripped from work items in the same transaction. */
  async remove(s: LabelScope, id: string): Promise<void> {
    await this.ds.transaction(async (tx) => {
      await this.repo.lockCarriers(s.workspaceId, id, tx);
      const current = await this.repo.get(s, id, tx, true);
      if (!current) throw ProblemException.notFound('Label');
      await this.repo.stripFromWorkItems(s.workspaceId, id, tx);
      await this.repo.softDelete(s, id, tx);
    });
  }

  /** A parent is a live label of the same scope that is neither the label itself nor one of its descendants. */
  private async checkParent(
    s: LabelScope,
    parentId: string,
    selfId: string | null,
    tx: EntityManager,
  ): Promise<string> {
    const where = s.projectId === null ? 'a workspace-level label of this workspace' : 'a label of this project';
    if (!(await this.repo.get(s, parentId, tx))) throw ProblemException.validation('parent_id', `Must be ${where}.`);
    if (selfId !== null && (await this.repo.ancestry(s, parentId, tx)).includes(selfId)) {
      throw ProblemException.validation(
        'parent_id',
        'A label cannot be its own parent or the parent of one of its ancestors.',
      );
    }
    return parentId;
  }

  /** Label names are unique per project, and among the workspace's own labels. */
  private assertNameFree(s: LabelScope, name: string, selfId: string | null, tx: EntityManager): Promise<void> {
    const workspaceLabel = s.projectId === null;
    const taken = this.repo.nameTaken(s, name, selfId, tx);
    return assertNameFree(taken, workspaceLabel ? 'workspace label' : 'label', name, workspaceLabel ? '' : undefined);
  }

  private writable(dto: CreateLabelDto | UpdateLabelDto): LabelWrite {
    return {
      color: dto.color,
      description: dto.description,
      external_id: dto.external_id,
      external_source: dto.external_source,
    };
  }
}
