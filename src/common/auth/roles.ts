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

/**
 * The lowest project role that sees a project's work items and their comments. Product roles (gap-reference 6):
 * "Commenter = view work items, comment, …; Guest = intake only", and this service has no intake, so a project
 * guest sees the project and its catalogue (states, labels, cycles, …) but none of its work items.
 */
export const WORK_ITEM_READER = ProjectRole.Commenter;
/** The project roles at or above WORK_ITEM_READER, for SQL over project_members.role. */
export const WORK_ITEM_READER_ROLES = PROJECT_ROLES.filter(
  (r) => PROJECT_ROLE_LEVEL[r] >= PROJECT_ROLE_LEVEL[WORK_ITEM_READER],
);

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
 * Whose work item visibility a cross-project reference is checked against (a parent or a RELATION ISSUE value in
 * another project): workspace owners and admins see every project's items, other members those of the projects
 * where they hold WORK_ITEM_READER or above.
 */
export interface Viewer {
  userId: string;
  allProjects: boolean;
}

export function viewerOf(ctx: { principal: { userId: string }; workspaceRole: string | null }): Viewer {
  return {
    userId: ctx.principal.userId,
    allProjects: workspaceLevel(ctx.workspaceRole) >= WORKSPACE_ROLE_LEVEL[WorkspaceRole.Admin],
  };
}
