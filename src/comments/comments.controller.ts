import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Expandable, ExpandParam } from '../common/expand/expand';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole, WORK_ITEM_READER } from '../common/auth/roles';
import { UuidParam, WorkItemIdParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { CommentDto, CreateCommentDto, UpdateCommentDto } from './comments.dto';
import { COMMENT_EXPANDS } from './comments.mapper';
import { COMMENT_LIST } from './comments.queries';
import { CommentsService } from './comments.service';
import { Versioned } from '../common/http/conditional';

@ApiTags('work-item-comments')
@ApiSlugParam()
@ApiUuidParam('project_id')
@ApiUuidParam('work_item_id')
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
  @ApiUuidParam('pk')
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
  @ApiUuidParam('pk')
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
  @ApiUuidParam('pk')
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
