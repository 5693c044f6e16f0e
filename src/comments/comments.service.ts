import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { setActivityActor } from '../common/database/activity-actor';
import { ProjectContext } from '../common/auth/request-context';
import { PROJECT_ROLE_LEVEL, ProjectRole, projectLevel } from '../common/auth/roles';
import { cleanRichText } from '../common/html/rich-text';
import { ProblemException } from '../common/errors/problem.exception';
import { ListQuery } from '../common/pagination/list-query';
import { CommentDto, CreateCommentDto, UpdateCommentDto } from './comments.dto';
import { mapComment } from './comments.mapper';
import { CommentsRepository } from './comments.repository';
import { changeEvent } from '../webhooks/webhook-events';
import { WebhookOutbox } from '../webhooks/webhook-outbox';

/**
 * Work item comments (gap-reference 3.2). The author is always the caller. "Edit rights come from role/scope
 * (403), not authorship per se": the route's rule (comments:write, project commenter or above) lets PATCH edit
 * any comment of the project, and `actor_id` stays the author's. DELETE stays with the author or a project
 * admin (contributors "delete only own content", gap-reference 6; a removal cannot be corrected afterwards).
 */
@Injectable()
export class CommentsService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: CommentsRepository,
    private readonly outbox: WebhookOutbox,
  ) {}

  private async mustHaveWorkItem(ctx: ProjectContext, workItemId: string): Promise<void> {
    if (!(await this.repo.workItemExists(ctx.workspace.id, ctx.project.id, workItemId)))
      throw ProblemException.notFound('Work item');
  }

  async list(ctx: ProjectContext, workItemId: string, q: ListQuery, expand: Set<string> = new Set()) {
    await this.mustHaveWorkItem(ctx, workItemId);
    const [ws, project] = [ctx.workspace.id, ctx.project.id];
    const { rows, envelope } = await this.repo.list(ws, project, workItemId, q, expand.has('actor'));
    return envelope(rows.map((r) => mapComment(r, expand)));
  }

  async get(ctx: ProjectContext, workItemId: string, id: string, expand: Set<string> = new Set()): Promise<CommentDto> {
    await this.mustHaveWorkItem(ctx, workItemId);
    const [ws, project] = [ctx.workspace.id, ctx.project.id];
    const row = expand.has('actor')
      ? await this.repo.getWithActor(ws, project, workItemId, id)
      : await this.repo.get(ws, project, workItemId, id);
    if (!row) throw ProblemException.notFound('Comment');
    return mapComment(row, expand);
  }

  /** A live work item of the project, else 404 (the bulk routes' path check). */
  async assertWorkItem(ctx: ProjectContext, workItemId: string): Promise<void> {
    if (!(await this.repo.workItemExists(ctx.workspace.id, ctx.project.id, workItemId, this.ds)))
      throw ProblemException.notFound('Work item');
  }

  async create(ctx: ProjectContext, workItemId: string, dto: CreateCommentDto): Promise<CommentDto> {
    const clean = cleanRichText('comment_html', dto.comment_html, { required: true });
    return this.ds.transaction(async (tx) => {
      if (!(await this.repo.workItemExists(ctx.workspace.id, ctx.project.id, workItemId, tx)))
        throw ProblemException.notFound('Work item');
      const row = await this.repo.insert(
        ctx.workspace.id,
        ctx.project.id,
        workItemId,
        {
          comment_html: clean.html,
          comment_stripped: clean.stripped,
          access: dto.access ?? 'INTERNAL',
          external_id: dto.external_id,
          external_source: dto.external_source,
        },
        ctx.principal.userId,
        tx,
      );
      await this.outbox.record(tx, changeEvent(ctx, 'workitem.comment.created', mapComment(row)));
      return mapComment(row);
    });
  }

  async update(ctx: ProjectContext, workItemId: string, id: string, dto: UpdateCommentDto): Promise<CommentDto> {
    const clean =
      dto.comment_html !== undefined ? cleanRichText('comment_html', dto.comment_html, { required: true }) : null;
    return this.ds.transaction(async (tx) => {
      const before = await this.lockComment(ctx, workItemId, id, tx);
      await setActivityActor(tx, ctx.principal.userId);
      await this.repo.update(
        ctx.workspace.id,
        id,
        {
          comment_html: clean?.html,
          comment_stripped: clean?.stripped,
          access: dto.access,
          external_id: dto.external_id,
          external_source: dto.external_source,
        },
        tx,
      );
      const after = mapComment((await this.repo.get(ctx.workspace.id, ctx.project.id, workItemId, id, tx))!);
      await this.outbox.record(tx, changeEvent(ctx, 'workitem.comment.updated', after, mapComment(before)));
      return after;
    });
  }

  async remove(ctx: ProjectContext, workItemId: string, id: string): Promise<void> {
    await this.ds.transaction(async (tx) => {
      const row = await this.lockComment(ctx, workItemId, id, tx);
      if (
        projectLevel(ctx.projectRole) < PROJECT_ROLE_LEVEL[ProjectRole.Admin] &&
        row.actor_id !== ctx.principal.userId
      ) {
        throw ProblemException.forbidden("Only the comment's author or a project admin may delete it.");
      }
      await setActivityActor(tx, ctx.principal.userId);
      await this.repo.softDelete(ctx.workspace.id, id, tx);
      await this.outbox.record(tx, changeEvent(ctx, 'workitem.comment.deleted', mapComment(row)));
    });
  }

  /** The comment of a live work item of the project, locked for the write; else 404. */
  private async lockComment(
    ctx: ProjectContext,
    workItemId: string,
    id: string,
    tx: Parameters<CommentsRepository['get']>[4],
  ) {
    if (!(await this.repo.workItemExists(ctx.workspace.id, ctx.project.id, workItemId, tx)))
      throw ProblemException.notFound('Work item');
    const row = await this.repo.get(ctx.workspace.id, ctx.project.id, workItemId, id, tx, true);
    if (!row) throw ProblemException.notFound('Comment');
    return row;
  }
}
