import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { Expandable, ExpandParam } from '../common/expand/expand';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole, WORK_ITEM_READER } from '../common/auth/roles';
import { UuidParam, WorkItemIdParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { CommentDto, CreateCommentDto, UpdateCommentDto } from './comments.dto';
import { COMMENT_EXPANDS } from './comments.mapper';
import { COMMENT_LIST } from './comments.repository';
import { CommentsService } from './comments.service';
import { Versioned } from '../common/http/conditional';

@ApiTags('work-item-comments')
@ApiParam({ name: 'slug', description: 'Workspace slug' })
@ApiParam({ name: 'project_id', format: 'uuid' })
@ApiParam({ name: 'work_item_id', format: 'uuid' })
@Controller('api/v2/workspaces/:slug/projects/:project_id/work-items/:work_item_id/comments')
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  @Get()
  @Authenticated({ scope: 'projects.work_items.comments:read', project: WORK_ITEM_READER })
  @ApiOperation({ operationId: 'work_item_comments_list', summary: 'List the comments of a work item' })
  @ApiListQuery(COMMENT_LIST)
  @Expandable(COMMENT_EXPANDS)
  @ApiListResponse(CommentDto)
  list(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @ListParams(COMMENT_LIST) q: ListQuery,
    @ExpandParam() expand: Set<string>,
  ) {
    return this.comments.list(ctx, workItemId, q, expand);
  }

  @Post()
  @Authenticated({ scope: 'projects.work_items.comments:write', project: ProjectRole.Commenter })
  @ApiOperation({
    operationId: 'work_item_comments_create',
    summary: 'Comment on a work item',
    description: 'The author (actor_id) is the caller. No deduplication.',
  })
  @ApiCreatedResponse({ type: CommentDto })
  @ApiProblemResponses(400, 404)
  create(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @Body() body: CreateCommentDto,
  ) {
    return this.comments.create(ctx, workItemId, body);
  }

  @Versioned('work_item_comments')
  @Get(':pk')
  @Authenticated({ scope: 'projects.work_items.comments:read', project: WORK_ITEM_READER })
  @ApiOperation({
    operationId: 'work_item_comments_get',
    summary: 'Get a comment',
    description: 'A comment of another work item is 404.',
  })
  @ApiParam({ name: 'pk', format: 'uuid' })
  @Expandable(COMMENT_EXPANDS)
  @ApiOkResponse({ type: CommentDto })
  @ApiProblemResponses(400, 404)
  get(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @UuidParam('pk') pk: string,
    @ExpandParam() expand: Set<string>,
  ) {
    return this.comments.get(ctx, workItemId, pk, expand);
  }

  @Versioned('work_item_comments')
  @Patch(':pk')
  @Authenticated({ scope: 'projects.work_items.comments:write', project: ProjectRole.Commenter })
  @ApiOperation({
    operationId: 'work_item_comments_update',
    summary: 'Edit a comment (partial)',
    description:
      'Project contributors and admins may edit any comment; a commenter only their own (else 403). edited_at is stamped.',
  })
  @ApiParam({ name: 'pk', format: 'uuid' })
  @ApiOkResponse({ type: CommentDto })
  @ApiProblemResponses(400, 404)
  update(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @UuidParam('pk') pk: string,
    @Body() body: UpdateCommentDto,
  ) {
    return this.comments.update(ctx, workItemId, pk, body);
  }

  @Versioned('work_item_comments')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated({ scope: 'projects.work_items.comments:write', project: ProjectRole.Commenter })
  @ApiOperation({
    operationId: 'work_item_comments_delete',
    summary: 'Delete a comment (soft)',
    description: 'The author or a project admin; repeating is 404.',
  })
  @ApiParam({ name: 'pk', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses(400, 404)
  async remove(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') workItemId: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.comments.remove(ctx, workItemId, pk);
  }
}
