import { Versioned } from '../common/http/conditional';
import { Body, Controller, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, WorkspaceContext } from '../common/auth/request-context';
import { WorkspaceRole } from '../common/auth/roles';
import { Expandable, ExpandParam } from '../common/expand/expand';
import { UuidParam, ApiSlugParam } from '../common/http/params';
import { ApiProblemResponses } from '../common/openapi/problem-responses';
import { ApiListQuery, ApiListResponse } from '../common/pagination/api-list.decorator';
import { ListParams, ListQuery } from '../common/pagination/list-query';
import { MemberDto, RemoveWorkspaceMemberDto, UpdateWorkspaceMemberDto } from './members.dto';
import { MEMBER_EXPANDS } from './members.mapper';
import { MEMBER_LIST } from './members.queries';
import { MembersService } from './members.service';
import { InvalidatesAuthCache } from '../common/auth/auth-cache';

@ApiTags('members')
@ApiSlugParam()
@InvalidatesAuthCache()
@Controller('api/v2/workspaces/:slug/members')
export class WorkspaceMembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @Authenticated({ scope: 'workspaces.members:read', workspace: WorkspaceRole.Member })
  @ApiOperation({ operationId: 'workspace_members_list', summary: 'List workspace members (active roster)' })
  @Expandable(MEMBER_EXPANDS)
  @ApiListQuery(MEMBER_LIST)
  @ApiListResponse(MemberDto)
  list(@Ctx() ctx: WorkspaceContext, @ListParams(MEMBER_LIST) q: ListQuery, @ExpandParam() expand: Set<string>) {
    return this.members.listWorkspace(ctx, q, expand);
  }

  @Versioned('workspace_members')
  @Get(':pk')
  @Authenticated({ scope: 'workspaces.members:read', workspace: WorkspaceRole.Member })
  @ApiOperation({ operationId: 'workspace_members_get', summary: 'Get a workspace membership' })
  @Expandable(MEMBER_EXPANDS)
  @ApiOkResponse({ type: MemberDto })
  @ApiProblemResponses(400, 404)
  get(@Ctx() ctx: WorkspaceContext, @UuidParam('pk') pk: string, @ExpandParam() expand: Set<string>) {
    return this.members.getWorkspaceMember(ctx, pk, expand);
  }

  @Versioned('workspace_members')
  @Patch(':pk')
  @Authenticated({ scope: 'workspaces.members:write', workspace: WorkspaceRole.Admin })
  @ApiOperation({
    operationId: 'workspace_members_update',
    summary: 'Change a workspace role',
    description:
      'Owners and admins only. Admins change members and guests and cannot grant admin or owner; the last owner cannot be demoted (409).',
  })
  @Expandable(MEMBER_EXPANDS)
  @ApiOkResponse({ type: MemberDto })
  @ApiProblemResponses(400, 404, 409)
  update(
    @Ctx() ctx: WorkspaceContext,
    @UuidParam('pk') pk: string,
    @Body() body: UpdateWorkspaceMemberDto,
    @ExpandParam() expand: Set<string>,
  ) {
    return this.members.updateWorkspaceRole(ctx, pk, body.role, expand);
  }

  @Post('remove')
  @HttpCode(204)
  @Authenticated({ scope: 'workspaces.members:write', workspace: WorkspaceRole.Admin })
  @ApiOperation({
    operationId: 'workspace_members_remove',
    summary: 'Remove a member from the workspace',
    description:
      'Owners and admins only. Owners remove anyone; admins remove members and guests, not owners, admins or themselves (403). ' +
      'The last owner cannot be removed (409). An email that is not an active member of this workspace is 400 naming email. ' +
      "The user's project memberships in this workspace are removed too. remove_seat is accepted and ignored.",
  })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiProblemResponses(400, 404, 409)
  async remove(@Ctx() ctx: WorkspaceContext, @Body() body: RemoveWorkspaceMemberDto): Promise<void> {
    await this.members.removeWorkspaceMember(ctx, body.email);
  }
}
