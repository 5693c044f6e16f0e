import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ProjectContext } from '../common/auth/request-context';
import { ProblemException } from '../common/errors/problem.exception';
import { ListQuery } from '../common/pagination/list-query';
import { Queryable } from '../common/pagination/sql-params';
import { CreateWorkItemLinkDto, UpdateWorkItemLinkDto, WorkItemLinkDto } from './work-item-links.dto';
import { mapLink } from './work-item-links.mapper';
import { WorkItemLinksRepository } from './work-item-links.repository';
import { changeEvent } from '../webhooks/webhook-events';
import { WebhookOutbox } from '../webhooks/webhook-outbox';

const DUPLICATE = 'This work item already has a link to this url.';

/**
 * URLs attached to a work item (Plane v2 links). One live link per URL and work item: a second is 409, by the
 * unique index, so two concurrent creates make one link. History entries are written by the database triggers.
 */
@Injectable()
export class WorkItemLinksService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: WorkItemLinksRepository,
    private readonly outbox: WebhookOutbox,
  ) {}

  private async mustHaveWorkItem(ctx: ProjectContext, workItemId: string, db?: Queryable): Promise<void> {
    if (!(await this.repo.workItemExists(ctx.workspace.id, ctx.project.id, workItemId, db, !!db)))
      throw ProblemException.notFound('Work item');
  }

  async list(ctx: ProjectContext, workItemId: string, q: ListQuery) {
    await this.mustHaveWorkItem(ctx, workItemId);
    const { rows, envelope } = await this.repo.list(ctx.workspace.id, ctx.project.id, workItemId, q);
    return envelope(rows.map(mapLink));
  }

  async get(ctx: ProjectContext, workItemId: string, id: string): Promise<WorkItemLinkDto> {
    await this.mustHaveWorkItem(ctx, workItemId);
    const row = await this.repo.get(ctx.workspace.id, ctx.project.id, workItemId, id);
    if (!row) throw ProblemException.notFound('Link');
    return mapLink(row);
  }

  async create(ctx: ProjectContext, workItemId: string, dto: CreateWorkItemLinkDto): Promise<WorkItemLinkDto> {
    return this.ds.transaction(async (tx) => {
      await this.mustHaveWorkItem(ctx, workItemId, tx);
      const row = await this.repo.insert(
        ctx.workspace.id,
        ctx.project.id,
        workItemId,
        { url: dto.url, title: dto.title, metadata: dto.metadata },
        ctx.principal.userId,
        tx,
      );
      if (!row) throw ProblemException.conflict(DUPLICATE);
      const out = mapLink(row);
      await this.outbox.record(tx, changeEvent(ctx, 'workitem.link.created', out));
      return out;
    });
  }

  async update(
    ctx: ProjectContext,
    workItemId: string,
    id: string,
    dto: UpdateWorkItemLinkDto,
  ): Promise<WorkItemLinkDto> {
    try {
      return await this.ds.transaction(async (tx) => {
        const before = await this.lockLink(ctx, workItemId, id, tx);
        const v = { url: dto.url, title: dto.title, metadata: dto.metadata };
        await this.repo.update(ctx.workspace.id, id, v, ctx.principal.userId, tx);
        const out = mapLink((await this.repo.get(ctx.workspace.id, ctx.project.id, workItemId, id, tx))!);
        await this.outbox.record(tx, changeEvent(ctx, 'workitem.link.updated', out, mapLink(before)));
        return out;
      });
    } catch (e) {
      const err = e as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
      const pg = err.driverError ?? err;
      if (pg.code === '23505' && pg.constraint === 'uq_work_item_links_url') throw ProblemException.conflict(DUPLICATE);
      throw e;
    }
  }

  async remove(ctx: ProjectContext, workItemId: string, id: string): Promise<void> {
    await this.ds.transaction(async (tx) => {
      const row = await this.lockLink(ctx, workItemId, id, tx);
      await this.repo.softDelete(ctx.workspace.id, id, ctx.principal.userId, tx);
      await this.outbox.record(tx, changeEvent(ctx, 'workitem.link.deleted', mapLink(row)));
    });
  }

  private async lockLink(ctx: ProjectContext, workItemId: string, id: string, tx: Queryable) {
    await this.mustHaveWorkItem(ctx, workItemId, tx);
    const row = await this.repo.get(ctx.workspace.id, ctx.project.id, workItemId, id, tx, true);
    if (!row) throw ProblemException.notFound('Link');
    return row;
  }
}
