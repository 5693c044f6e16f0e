/**
 * Roles as slugs (gap-reference section 6). Levels order them; a route names the lowest role it allows.
 */
export enum WorkspaceRole {
  Owner = 'owner',
  Admin = 'admin',
  Member = 'member',
  Guest = 'guest',
}

export enum ProjectRole {
  Admin = 'admin',
  Contributor = 'contributor',
  Commenter = 'commenter',
  Guest = 'guest',
}

export const WORKSPACE_ROLE_LEVEL: Record<string, number> = {
  [WorkspaceRole.Owner]: 20,
  [WorkspaceRole.Admin]: 15,
  [WorkspaceRole.Member]: 10,
  [WorkspaceRole.Guest]: 5,
};

export const PROJECT_ROLE_LEVEL: Record<string, number> = {
  [ProjectRole.Admin]: 20,
  [ProjectRole.Contributor]: 15,
  [ProjectRole.Commenter]: 10,
  [ProjectRole.Guest]: 5,
};

export const WORKSPACE_ROLES = Object.values(WorkspaceRole);
export const PROJECT_ROLES = Object.values(ProjectRole);

export function workspaceLevel(role: string | null | undefined): number {
  return (role && WORKSPACE_ROLE_LEVEL[role]) || 0;
}

export function projectLevel(role: string | null | undefined): number {
  return (role && PROJECT_ROLE_LEVEL[role]) || 0;
}

/**
 * The role a user effectively holds in a project: workspace owners and admins administer every
 * project of their workspace without being listed on it; everyone else holds their membership's role.
 */
export function effectiveProjectRole(workspaceRole: string | null, projectRole: string | null): ProjectRole | null {
  if (workspaceLevel(workspaceRole) >= WORKSPACE_ROLE_LEVEL[WorkspaceRole.Admin]) return ProjectRole.Admin;
  if (!projectRole || !PROJECT_ROLE_LEVEL[projectRole]) return null;
  return projectRole as ProjectRole;
}

/**
 * Whose project visibility a cross-project reference is checked against (a parent or a RELATION ISSUE value in
 * another project): workspace owners and admins see every project, other members the projects they belong to.
 */
export interface Viewer {
  userId: string;
  allProjects: boolean;
}

export function viewerOf(ctx: { principal: { userId: string }; workspaceRole: string | null }): Viewer {
  return { userId: ctx.principal.userId, allProjects: workspaceLevel(ctx.workspaceRole) >= WORKSPACE_ROLE_LEVEL[WorkspaceRole.Admin] };
}
