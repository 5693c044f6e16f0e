import { AuditCategory } from './audit.service';

export interface CatalogueEntry {
  event_name: string;
  category: AuditCategory;
  outcome: 'success' | 'failure';
  target_type: string;
  /** When it is written and what old_value / new_value hold. */
  description: string;
}

/**
 * Every `event_name` the service writes (docs/audit.md has the long form). Clients must tolerate names
 * not listed here: the catalogue only grows.
 */
export const AUDIT_EVENT_CATALOGUE: CatalogueEntry[] = [
  // Authentication and security (audit module)
  { event_name: 'auth.failed', category: 'auth', outcome: 'failure', target_type: 'workspace', description: 'Missing or invalid credentials on a /workspaces/{slug}/ path (reason missing_credentials | invalid_credentials); anonymous actor; aggregated.' },
  { event_name: 'permission.denied', category: 'security', outcome: 'failure', target_type: 'route', description: 'A 403: insufficient_scope or insufficient_role (guard), forbidden (role rules) or workflow_transition_denied; metadata.required; aggregated.' },
  { event_name: 'rate_limit.exceeded', category: 'security', outcome: 'failure', target_type: 'workspace', description: 'A 429 on a /workspaces/{slug}/ path; metadata limit, window_seconds; aggregated per credential (or address) and window.' },
  // Credentials (user-level: one entry in every workspace of the user)
  { event_name: 'api_key.created', category: 'auth', outcome: 'success', target_type: 'api_key', description: 'new: {id, user_id, label, key_prefix, expires_at} (never the secret).' },
  { event_name: 'api_key.revoked', category: 'auth', outcome: 'success', target_type: 'api_key', description: 'old: {revoked_at: null}, new: {revoked_at}.' },
  { event_name: 'token.issued', category: 'auth', outcome: 'success', target_type: 'oauth_token', description: 'new: {id, user_id, scopes, expires_at, client_name} (never the token).' },
  // Members
  { event_name: 'member.added', category: 'member', outcome: 'success', target_type: 'workspace_member', description: 'new: {role}; metadata.member_id.' },
  { event_name: 'member.role_updated', category: 'member', outcome: 'success', target_type: 'workspace_member', description: 'old/new: {role}; metadata.member_id, project_roles_capped_in (projects whose role a demotion to guest lowered).' },
  { event_name: 'project_member.added', category: 'member', outcome: 'success', target_type: 'project_member', description: 'new: {role}; metadata.member_id; project_id set.' },
  { event_name: 'project_member.role_updated', category: 'member', outcome: 'success', target_type: 'project_member', description: 'old/new: {role}.' },
  { event_name: 'project_member.removed', category: 'member', outcome: 'success', target_type: 'project_member', description: 'old: {role}.' },
  // Projects
  { event_name: 'project.created', category: 'settings', outcome: 'success', target_type: 'project', description: 'new: {name, identifier}.' },
  { event_name: 'project.updated', category: 'settings', outcome: 'success', target_type: 'project', description: 'old/new: the changed fields; metadata.changed_fields.' },
  { event_name: 'project.deleted', category: 'settings', outcome: 'success', target_type: 'project', description: 'old: {name, identifier}.' },
  // Features and the work item type mode
  { event_name: 'workspace.features_updated', category: 'settings', outcome: 'success', target_type: 'workspace', description: 'old/new: the changed flags; metadata.changed_fields.' },
  { event_name: 'workspace.work_item_type_mode_changed', category: 'settings', outcome: 'success', target_type: 'workspace', description: 'old/new: {mode: project | workspace, is_work_item_types_enabled}.' },
  { event_name: 'project.features_updated', category: 'settings', outcome: 'success', target_type: 'project', description: 'old/new: the changed flags; metadata.changed_fields.' },
  { event_name: 'work_item_types.surface_conflict', category: 'settings', outcome: 'failure', target_type: 'workspace', description: 'A type/property write refused by the mode gate; reason: the 409 code; metadata surface, mode; aggregated.' },
  // Workflows
  { event_name: 'workflow.created', category: 'settings', outcome: 'success', target_type: 'workflow', description: 'new: the workflow.' },
  { event_name: 'workflow.updated', category: 'settings', outcome: 'success', target_type: 'workflow', description: 'The workflow, or one of its states or transitions, changed; old/new: the row before/after; metadata.change.' },
  { event_name: 'workflow.deleted', category: 'settings', outcome: 'success', target_type: 'workflow', description: 'old: the workflow.' },
  // Work item types and properties (either surface; metadata.surface project | workspace)
  { event_name: 'work_item_type.created', category: 'settings', outcome: 'success', target_type: 'work_item_type', description: 'new: the type.' },
  { event_name: 'work_item_type.updated', category: 'settings', outcome: 'success', target_type: 'work_item_type', description: 'old/new: the changed fields (also mark-default).' },
  { event_name: 'work_item_type.deleted', category: 'settings', outcome: 'success', target_type: 'work_item_type', description: 'old: the type.' },
  { event_name: 'work_item_type.imported', category: 'settings', outcome: 'success', target_type: 'work_item_type', description: 'new: {work_item_types: [ids]} imported into a project.' },
  { event_name: 'work_item_type.properties_attached', category: 'settings', outcome: 'success', target_type: 'work_item_type', description: 'new: {properties: [ids]}.' },
  { event_name: 'work_item_type.property_detached', category: 'settings', outcome: 'success', target_type: 'work_item_type', description: 'old: {properties: [id]}.' },
  { event_name: 'work_item_property.created', category: 'settings', outcome: 'success', target_type: 'work_item_property', description: 'new: the definition.' },
  { event_name: 'work_item_property.updated', category: 'settings', outcome: 'success', target_type: 'work_item_property', description: 'old/new: the changed fields.' },
  { event_name: 'work_item_property.deleted', category: 'settings', outcome: 'success', target_type: 'work_item_property', description: 'old: the definition.' },
  { event_name: 'work_item_property_option.created', category: 'settings', outcome: 'success', target_type: 'work_item_property_option', description: 'new: the option.' },
  { event_name: 'work_item_property_option.updated', category: 'settings', outcome: 'success', target_type: 'work_item_property_option', description: 'old/new: the changed fields.' },
  { event_name: 'work_item_property_option.deleted', category: 'settings', outcome: 'success', target_type: 'work_item_property_option', description: 'old: the option.' },
  { event_name: 'work_item_property_context.created', category: 'settings', outcome: 'success', target_type: 'work_item_property_context', description: 'new: the context.' },
  { event_name: 'work_item_property_context.updated', category: 'settings', outcome: 'success', target_type: 'work_item_property_context', description: 'old/new: the changed fields.' },
  { event_name: 'work_item_property_context.deleted', category: 'settings', outcome: 'success', target_type: 'work_item_property_context', description: 'old: the context.' },
];

/** The catalogue as text for the OpenAPI description of `event_name`. */
export function catalogueDescription(): string {
  const lines = AUDIT_EVENT_CATALOGUE.map(
    (e) => `- \`${e.event_name}\` (${e.category}, ${e.outcome}; target \`${e.target_type}\`): ${e.description}`,
  );
  return [
    'Dotted event name. Catalogue (the list only grows; tolerate unknown names):',
    '',
    ...lines,
  ].join('\n');
}
