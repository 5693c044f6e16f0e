import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { WorkspaceContext } from '../common/auth/request-context';
import { ProblemException } from '../common/errors/problem.exception';
import { ListQuery } from '../common/pagination/list-query';
import { Queryable } from '../common/pagination/sql-params';
import {
  CreateRelationDefinitionDto,
  RelationDefinitionDto,
  UpdateRelationDefinitionDto,
} from './relation-definitions.dto';
import { mapDefinition } from './relation-definitions.mapper';
import { DefinitionRow, DefinitionWrite, RelationDefinitionsRepository } from './relation-definitions.repository';

const BUILT_IN = 'Built-in relation definitions cannot be changed or deleted.';

/**
 * Workspace relation definitions (Plane v2 work-item-relation-definitions). The relation list of a work item is
 * keyed by label, so a label names one definition: every outward and inward label is unique among the
 * workspace's live definitions (case-insensitive), as is every name. Writes are serialized per workspace so the
 * checks hold under concurrency. Definition changes are workspace settings: audited like them.
 */
@Injectable()
export class RelationDefinitionsService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: RelationDefinitionsRepository,
    private readonly audit: AuditService,
  ) {}

  async list(ctx: WorkspaceContext, q: ListQuery) {
    const { rows, envelope } = await this.repo.list(ctx.workspace.id, q);
    return envelope(rows.map(mapDefinition));
  }

  async get(ctx: WorkspaceContext, id: string): Promise<RelationDefinitionDto> {
    const row = await this.repo.get(ctx.workspace.id, id);
    if (!row) throw ProblemException.notFound('Relation definition');
    return mapDefinition(row);
  }

  /** The live definitions of the workspace (the relation service's keys). */
  all(workspaceId: string, db?: Queryable): Promise<DefinitionRow[]> {
    return this.repo.all(workspaceId, db);
  }

  async create(ctx: WorkspaceContext, dto: CreateRelationDefinitionDto): Promise<RelationDefinitionDto> {
    return this.ds.transaction(async (tx) => {
      const ws = ctx.workspace.id;
      await this.repo.lockWorkspace(ws, tx);
      await this.checkUnique(ws, dto.name, [dto.outward, dto.inward], null, tx);
      const row = await this.repo.insert(
        ws,
        { ...dto, logo_props: dto.logo_props ?? undefined },
        ctx.principal.userId,
        tx,
      );
      await this.record(tx, ctx, 'created', row, null, mapDefinition(row));
      return mapDefinition(row);
    });
  }

  async update(ctx: WorkspaceContext, id: string, dto: UpdateRelationDefinitionDto): Promise<RelationDefinitionDto> {
    return this.ds.transaction(async (tx) => {
      const ws = ctx.workspace.id;
      await this.repo.lockWorkspace(ws, tx);
      const old = await this.mustGetEditable(ws, id, tx);
      const v: DefinitionWrite = { ...dto, logo_props: dto.logo_props === null ? {} : dto.logo_props };
      const outward = v.outward ?? old.outward;
      const inward = v.inward ?? old.inward;
      await this.checkUnique(ws, v.name ?? old.name, [outward, inward], id, tx);
      await this.repo.update(ws, id, v, tx);
      const row = (await this.repo.get(ws, id, tx))!;
      await this.record(tx, ctx, 'updated', row, mapDefinition(old), mapDefinition(row));
      return mapDefinition(row);
    });
  }

  async remove(ctx: WorkspaceContext, id: string): Promise<void> {
    await this.ds.transaction(async (tx) => {
      const ws = ctx.workspace.id;
      await this.repo.lockWorkspace(ws, tx);
      const old = await this.mustGetEditable(ws, id, tx);
      await this.repo.softDelete(ws, id, tx);
      await this.record(tx, ctx, 'deleted', old, mapDefinition(old), null);
    });
  }

  private async mustGetEditable(ws: string, id: string, tx: Queryable): Promise<DefinitionRow> {
    const row = await this.repo.get(ws, id, tx, true);
    if (!row) throw ProblemException.notFound('Relation definition');
    if (row.is_default) throw ProblemException.conflict(BUILT_IN);
    return row;
  }

  private async checkUnique(ws: string, name: string, labels: string[], exceptId: string | null, tx: Queryable) {
    const c = await this.repo.clash(ws, name, labels, exceptId, tx);
    if (c.name_taken) throw ProblemException.conflict('A relation definition with this name already exists.');
    if (c.label)
      throw ProblemException.conflict(`The label "${c.label}" is already used by another relation definition.`);
  }

  private record(
    tx: Queryable,
    ctx: WorkspaceContext,
    change: 'created' | 'updated' | 'deleted',
    row: DefinitionRow,
    oldValue: unknown,
    newValue: unknown,
  ): Promise<void> {
    return this.audit.record(tx, ctx, {
      event_name: `work_item_relation_definition.${change}`,
      category: 'settings',
      workspace_id: ctx.workspace.id,
      target_type: 'work_item_relation_definition',
      target_id: row.id,
      target_display_name: row.name,
      old_value: oldValue,
      new_value: newValue,
    });
  }
}
