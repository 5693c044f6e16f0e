/**
 * OAuth scope catalogue: `<area>.<resource>:<read|write>`, plus the global `read` and `write`.
 * Each route names one scope with @Authenticated; the guard and the OpenAPI document both read it.
 */
export const SCOPES = {
  read: 'Read everything the user can read',
  write: 'Write everything the user can write',
  'projects:read': 'Read projects',
  'projects:write': 'Create, update and delete projects',
  'projects.features:read': 'Read project features',
  'projects.features:write': 'Update project features',
  'projects.members:read': 'Read project members',
  'projects.members:write': 'Manage project members',
  'projects.work_items:read': 'Read work items',
  'projects.work_items:write': 'Write work items',
  'projects.work_items.comments:read': 'Read work item comments',
  'projects.work_items.comments:write': 'Write work item comments',
  'projects.work_items.links:read': 'Read work item links',
  'projects.work_items.links:write': 'Write work item links',
  'projects.work_items.relations:read': 'Read work item relations and dependencies',
  'projects.work_items.relations:write': 'Write work item relations and dependencies',
  'projects.work_items.activities:read': 'Read work item history',
  'projects.states:read': 'Read states',
  'projects.states:write': 'Write states',
  'projects.labels:read': 'Read labels',
  'projects.labels:write': 'Write labels',
  'projects.cycles:read': 'Read cycles',
  'projects.cycles:write': 'Write cycles',
  'projects.modules:read': 'Read modules',
  'projects.modules:write': 'Write modules',
  'projects.estimates:read': 'Read estimates',
  'projects.estimates:write': 'Write estimates',
  'projects.workflows:read': 'Read workflows',
  'projects.workflows:write': 'Write workflows',
  'projects.work_item_types:read': 'Read project work item types',
  'projects.work_item_types:write': 'Write project work item types',
  'projects.work_item_properties:read': 'Read project work item properties',
  'projects.work_item_properties:write': 'Write project work item properties',
  'workspaces.members:read': 'Read workspace members (also grants project member rosters)',
  'workspaces.members:write': 'Manage workspace members',
  'workspaces.labels:read': 'Read workspace labels',
  'workspaces.labels:write': 'Write workspace labels',
  'workspaces.features:read': 'Read workspace features',
  'workspaces.features:write': 'Update workspace features',
  'workspaces.work_item_types:read': 'Read workspace work item types',
  'workspaces.work_item_types:write': 'Write workspace work item types',
  'workspaces.work_item_properties:read': 'Read workspace work item properties',
  'workspaces.work_item_properties:write': 'Write workspace work item properties',
  'workspaces.audit_logs:read': 'Read the workspace audit trail',
  'webhooks:read': 'Read webhooks and their delivery logs',
  'webhooks:write': 'Register, change and delete webhooks',
  'workspaces.work_item_relation_definitions:read': 'Read work item relation definitions',
  'workspaces.work_item_relation_definitions:write': 'Write work item relation definitions',
} as const;

export type Scope = keyof typeof SCOPES;

/** Scopes that also grant another: a broader grant implies the narrower one. */
const IMPLIED_BY: Partial<Record<Scope, Scope[]>> = {
  'projects.members:read': ['workspaces.members:read'],
};

/**
 * Every scope that satisfies `required`: itself, the global tier of its kind (`read` for *:read, `write`
 * otherwise) and the scopes that imply it. The guard and the OpenAPI security alternatives both use it.
 */
export function scopesSatisfying(required: Scope): Scope[] {
  if (required === 'read' || required === 'write') return [required];
  return [required, required.endsWith(':read') ? 'read' : 'write', ...(IMPLIED_BY[required] ?? [])];
}

/** Does an OAuth grant satisfy `required`? */
export function grantSatisfies(granted: readonly string[], required: Scope): boolean {
  return scopesSatisfying(required).some((s) => granted.includes(s));
}

export function isKnownScope(s: string): s is Scope {
  return Object.prototype.hasOwnProperty.call(SCOPES, s);
}
