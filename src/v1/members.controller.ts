import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext, RequestContext, WorkspaceContext } from '../common/auth/request-context';
import { ProjectRole, WorkspaceRole } from '../common/auth/roles';
import { ProblemException } from '../common/errors/problem.exception';
import { MemberDto } from '../members/members.dto';
import { MEMBER_LIST } from '../members/members.queries';
import { MembersService } from '../members/members.service';
import { everyRow, V1ListParams, v1List, V1Page } from './v1-list';
import { V1RecordsRepository, V1UserNames } from './v1-records.repository';
import { V1Returns } from './v1-responses';

/**
 * v1's numeric roles (Plane's: 20 admin, 15 member, 10 viewer, 5 guest) beside the role slug. A workspace owner is
 * 20 like an admin (v1 has no owner level); `role_slug` tells them apart.
 */
const WORKSPACE_ROLE_NUMBER: Record<string, number> = { owner: 20, admin: 20, member: 15, guest: 5 };
const PROJECT_ROLE_NUMBER: Record<string, number> = { admin: 20, contributor: 15, commenter: 10, guest: 5 };

const NULLABLE_TEXT = { type: ['string', 'null'] };
const V1_USER_PROPERTIES = {
  id: { type: 'string', format: 'uuid' },
  first_name: { type: 'string' },
  last_name: { type: 'string' },
  email: { type: 'string' },
  avatar: { type: 'string', description: 'avatar_url, or "" when none.' },
  avatar_url: NULLABLE_TEXT,
  display_name: { type: 'string' },
};
const V1_USER = { type: 'object', properties: V1_USER_PROPERTIES, required: Object.keys(V1_USER_PROPERTIES) };
const V1_MEMBER = {
  type: 'object',
  properties: {
    ...V1_USER_PROPERTIES,
    role: { type: ['integer', 'null'], description: "v1's number: 20 owner or admin, 15, 10, 5." },
    role_slug: { ...NULLABLE_TEXT, description: 'The v2 role.' },
  },
  required: [...Object.keys(V1_USER_PROPERTIES), 'role', 'role_slug'],
};

/** A user as v1 shows one (users/me, members): names and avatar, no principal kind or scopes. */
function v1User(u: V1UserNames) {
  return {
    id: u.id,
    first_name: u.first_name,
    last_name: u.last_name,
    email: u.email,
    avatar: u.avatar_url ?? '',
    avatar_url: u.avatar_url,
    display_name: u.display_name,
  };
}

@ApiTags('v1 users')
@Controller('api/v1/users')
export class V1UsersController {
  constructor(private readonly records: V1RecordsRepository) {}

  @Get('me')
  @Authenticated({ scope: 'any-read' })
  @V1Returns({ schema: V1_USER })
  @ApiOperation({ operationId: 'v1_users_me', summary: 'Current user (v1 shape)' })
  async me(@Ctx() ctx: RequestContext) {
    const user = (await this.records.users([ctx.principal.userId])).get(ctx.principal.userId);
    if (!user) throw ProblemException.unauthorized();
    return v1User(user);
  }
}

@ApiTags('v1 members')
@Controller('api/v1/workspaces/:slug')
export class V1MembersController {
  constructor(
    private readonly members: MembersService,
    private readonly records: V1RecordsRepository,
  ) {}

  private async asV1(rows: MemberDto[], numbers: Record<string, number>) {
    const users = await this.records.users(rows.map((m) => m.member_id));
    return rows
      .filter((m) => users.has(m.member_id))
      .map((m) => ({ ...v1User(users.get(m.member_id)!), role: numbers[m.role ?? ''] ?? null, role_slug: m.role }));
  }

  @Get('members')
  @Authenticated({ scope: 'workspaces.members:read', workspace: WorkspaceRole.Member })
  @V1Returns({ schema: V1_MEMBER, list: 'array' })
  @ApiOperation({ operationId: 'v1_workspace_members', summary: 'Workspace members (v1: the whole roster, an array)' })
  async workspaceMembers(@Ctx() ctx: WorkspaceContext) {
    const rows = await everyRow(MEMBER_LIST, (q) => this.members.listWorkspace(ctx, q, new Set()));
    return this.asV1(rows, WORKSPACE_ROLE_NUMBER);
  }

  @Get('members-lite')
  @Authenticated({ scope: 'workspaces.members:read', workspace: WorkspaceRole.Member })
  @V1Returns({ schema: V1_MEMBER, list: 'page' })
  @ApiOperation({ operationId: 'v1_workspace_members_lite', summary: 'Workspace members, a v1 page' })
  async workspaceMembersLite(@Ctx() ctx: WorkspaceContext, @V1ListParams(MEMBER_LIST) page: V1Page) {
    const env = await this.members.listWorkspace(ctx, page.query, new Set());
    return v1List({ ...env, data: await this.asV1(env.data, WORKSPACE_ROLE_NUMBER) }, page, (r) => r);
  }

  @Get('projects/:project_id/project-members-lite')
  @Authenticated({ scope: 'projects.members:read', project: ProjectRole.Guest })
  @V1Returns({ schema: V1_MEMBER, list: 'page' })
  @ApiOperation({ operationId: 'v1_project_members_lite', summary: 'Project members, a v1 page' })
  async projectMembersLite(@Ctx() ctx: ProjectContext, @V1ListParams(MEMBER_LIST) page: V1Page) {
    const env = await this.members.listProject(ctx, page.query, new Set());
    return v1List({ ...env, data: await this.asV1(env.data, PROJECT_ROLE_NUMBER) }, page, (r) => r);
  }

  @Get('projects/:project_id/project-members')
  @Authenticated({ scope: 'projects.members:read', project: ProjectRole.Guest })
  @V1Returns({ schema: V1_MEMBER, list: 'array' })
  @ApiOperation({ operationId: 'v1_project_members', summary: 'Project members (v1: the whole roster, an array)' })
  async projectMembers(@Ctx() ctx: ProjectContext) {
    const rows = await everyRow(MEMBER_LIST, (q) => this.members.listProject(ctx, q, new Set()));
    return this.asV1(rows, PROJECT_ROLE_NUMBER);
  }
}
