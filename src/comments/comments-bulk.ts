import { Injectable } from '@nestjs/common';
import { ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { BulkRoutes, BulkTargets } from '../common/bulk/bulk-routes';
import { BulkTarget } from '../common/bulk/bulk-writes';
import { workItemIdOf } from '../common/http/params';
import { CommentDto, CreateCommentDto, UpdateCommentDto } from './comments.dto';
import { CommentsService } from './comments.service';

/** A work item's comments as bulk targets; an unknown or foreign work item (or `PROJ-12`) is the request's 404. */
@Injectable()
export class CommentsBulkTargets implements BulkTargets {
  constructor(private readonly comments: CommentsService) {}

  async target(
    ctx: ProjectContext,
    params: Record<string, string>,
  ): Promise<BulkTarget<CreateCommentDto, UpdateCommentDto>> {
    const workItemId = workItemIdOf(params.work_item_id, 'work_item_id');
    await this.comments.assertWorkItem(ctx, workItemId);
    return {
      createDto: CreateCommentDto,
      updateDto: UpdateCommentDto,
      create: (dto) => this.comments.create(ctx, workItemId, dto),
      update: (id, dto) => this.comments.update(ctx, workItemId, id, dto),
      remove: (id) => this.comments.remove(ctx, workItemId, id),
      pair: { table: 'work_item_comments', workspaceId: ctx.workspace.id, scopeId: workItemId },
    };
  }
}

export const CommentsBulkController = BulkRoutes(
  {
    path: 'api/v2/workspaces/:slug/projects/:project_id/work-items/:work_item_id/comments',
    tag: 'work-item-comments',
    operation: 'work_item_comments',
    noun: 'comments',
    auth: { scope: 'projects.work_items.comments:write', project: ProjectRole.Commenter },
    createDto: CreateCommentDto,
    readDto: CommentDto,
    pairScope: 'this work item',
  },
  CommentsBulkTargets,
);
