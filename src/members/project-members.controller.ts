import { Versioned } from '../common/http/conditional';
import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { Expandable, ExpandParam } from '../common/expand/expand';
import { UuidParam, ApiSlugParam, ApiUuidParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { CreateProjectMemberDto, MemberDto, UpdateProjectMemberDto } from './members.dto';
import { MEMBER_EXPANDS } from './members.mapper';
import { MEMBER_LIST } from './members.queries';
import { MembersService } from './members.service';
import { InvalidatesAuthCache } from '../common/auth/auth-cache';

const HIERARCHY =
  'Workspace owners manage every membership, workspace admins all but those of workspace owners; a project admin who is neither ' +
  'manages only members below their own role and grants only roles below it (403). Workspace guests can only be guests or ' +
  'commenters, workspace owners and admins only admins (400 naming role).';

@ApiTags('members')
@ApiSlugParam()
@ApiUuidParam('project_id')
@InvalidatesAuthCache()
@Controller('api/v2/workspaces/:slug/projects/:project_id/members')
export class ProjectMembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @Authenticated({ scope: 'projects.members:read', project: ProjectRole.Guest })
  @ApiOperation({
    operationId: 'project_members_list',
    summary: 'List project members',
    description: 'Scope projects.members:read, also granted by workspaces.members:read.',
  })
  @Expandable(MEMBER_EXPANDS)
  @ApiListQuery(MEMBER_LIST)
  @ApiListResponse(MemberDto)
  list(@Ctx() ctx: ProjectContext, @ListParams(MEMBER_LIST) q: ListQuery, @ExpandParam() expand: Set<string>) {
    return this.members.listProject(ctx, q, expand);
  }

  @Post()
  @Authenticated({ scope: 'projects.members:write', project: ProjectRole.Admin })
  @ApiOperation({
    operationId: 'project_members_create',
    summary: 'Add a workspace member to the project',
    description: HIERARCHY,
  })
  @Expandable(MEMBER_EXPANDS)
  @ApiCreatedResponse({ type: MemberDto })
  @ApiProblemResponses(400, 404, 409)
  create(@Ctx() ctx: ProjectContext, @Body() body: CreateProjectMemberDto, @ExpandParam() expand: Set<string>) {
    return this.members.addProjectMember(ctx, body.member_id, body.role, expand);
  }

  @Versioned('project_members')
  @Get(':pk')
  @Authenticated({ scope: 'projects.members:read', project: ProjectRole.Guest })
  @ApiOperation({ operationId: 'project_members_get', summary: 'Get a project membership' })
  @Expandable(MEMBER_EXPANDS)
  @ApiOkResponse({ type: MemberDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string, @ExpandParam() expand: Set<string>) {
    return this.members.getProjectMember(ctx, pk, expand);
  }

  @Versioned('project_members')
  @Patch(':pk')
  @Authenticated({ scope: 'projects.members:write', project: ProjectRole.Admin })
  @ApiOperation({
    operationId: 'project_members_update',
    summary: 'Change a project role',
    description: `${HIERARCHY} The last listed project admin cannot be demoted (409).`,
  })
  @Expandable(MEMBER_EXPANDS)
  @ApiOkResponse({ type: MemberDto })
  @ApiProblemResponses(400, 404, 409)
  update(
    @Ctx() ctx: ProjectContext,
    @UuidParam('pk') pk: string,
    @Body() body: UpdateProjectMemberDto,
    @ExpandParam() expand: Set<string>,
  ) {
    return this.members.updateProjectRole(ctx, pk, body.role, expand);
  }

  @Versioned('project_members')
  @Delete(':pk')
  @HttpCode(204)
  @Authenticated({ scope: 'projects.members:write', project: ProjectRole.Admin })
  @ApiOperation({
    operationId: 'project_members_delete',
    summary: 'Remove a member from the project',
    description: `${HIERARCHY} The last listed project admin cannot be removed (409).`,
  })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiProblemResponses(400, 404, 409)
  async remove(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string): Promise<void> {
    await this.members.removeProjectMember(ctx, pk);
  }
}
