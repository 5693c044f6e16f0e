import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole, WORK_ITEM_READER } from '../common/auth/roles';
import { UuidParam, WorkItemIdParam } from '../common/http/params';
import { CreateCommentDto, UpdateCommentDto } from '../comments/comments.dto';
import { COMMENT_LIST } from '../comments/comments.queries';
import { CommentsService } from '../comments/comments.service';
import { V1ListParams, v1List, V1Page } from './v1-list';
import { asV2Body } from './v1-shape';
import { V1Shaper } from './v1-shaper';
import { V1_RECORDS, V1Returns } from './v1-responses';

const READ = { scope: 'projects.work_items.comments:read', project: WORK_ITEM_READER } as const;
const WRITE = { scope: 'projects.work_items.comments:write', project: ProjectRole.Commenter } as const;

/** Comments through v1: the same fields (comment_html, access, external ids), `issue`, `actor` and stamps added. */
@ApiTags('v1 comments')
@Controller('api/v1/workspaces/:slug/projects/:project_id/work-items/:work_item_id/comments')
export class V1CommentsController {
  constructor(
    private readonly comments: CommentsService,
    private readonly shape: V1Shaper,
  ) {}

  @Get()
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.comment, list: 'page' })
  @ApiOperation({ operationId: 'v1_comments_list' })
  async list(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @V1ListParams(COMMENT_LIST) page: V1Page,
  ) {
    const env = await this.comments.list(ctx, item, page.query);
    return v1List({ ...env, data: await this.shape.many('work_item_comments', ctx, env.data) }, page, (r) => r);
  }

  @Post()
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.comment })
  @ApiOperation({ operationId: 'v1_comments_create' })
  async create(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') item: string, @Body() body: unknown) {
    const dto = await asV2Body(CreateCommentDto, body);
    return this.shape.one('work_item_comments', ctx, await this.comments.create(ctx, item, dto));
  }

  @Get(':pk')
  @Authenticated(READ)
  @V1Returns({ record: V1_RECORDS.comment })
  @ApiOperation({ operationId: 'v1_comments_get' })
  async get(@Ctx() ctx: ProjectContext, @WorkItemIdParam('work_item_id') item: string, @UuidParam('pk') pk: string) {
    return this.shape.one('work_item_comments', ctx, await this.comments.get(ctx, item, pk));
  }

  @Patch(':pk')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.comment })
  @ApiOperation({ operationId: 'v1_comments_update' })
  async update(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @UuidParam('pk') pk: string,
    @Body() body: unknown,
  ) {
    const dto = await asV2Body(UpdateCommentDto, body);
    return this.shape.one('work_item_comments', ctx, await this.comments.update(ctx, item, pk, dto));
  }

  @Put(':pk')
  @Authenticated(WRITE)
  @V1Returns({ record: V1_RECORDS.comment })
  @ApiOperation({ operationId: 'v1_comments_replace' })
  replace(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @UuidParam('pk') pk: string,
    @Body() body: unknown,
  ) {
    return this.update(ctx, item, pk, body);
  }

  @Delete(':pk')
  @HttpCode(204)
  @Authenticated(WRITE)
  @V1Returns({})
  @ApiOperation({ operationId: 'v1_comments_delete' })
  async remove(
    @Ctx() ctx: ProjectContext,
    @WorkItemIdParam('work_item_id') item: string,
    @UuidParam('pk') pk: string,
  ): Promise<void> {
    await this.comments.remove(ctx, item, pk);
  }
}
