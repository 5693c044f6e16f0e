import { AuditCategory } from './audit.service';

export interface CatalogueEntry {
  event_name: string;
  category: AuditCategory;
  outcome: 'success' | 'failure';
  target_type: string;
  /** When it is written (one sentence). */
  when: string;
  /** What old_value / new_value, reason and metadata hold. */
  values: string;
}

/**
 * Every `event_name` the service writes. The same list is the OpenAPI description of `event_name` and the two
 * catalogue tables of docs/audit.md (a test compares them). Clients must tolerate names not listed here: the
 * catalogue only grows.
 */
export const AUDIT_EVENT_CATALOGUE: CatalogueEntry[] = [
  // Authentication and security (audit module)
  {
    event_name: 'auth.failed',
    category: 'auth',
    outcome: 'failure',
    target_type: 'workspace',
    when: 'A request to a /workspaces/{slug}/ path of an existing workspace carries missing or invalid credentials (401).',
    values:
      'reason missing_credentials or invalid_credentials (also expired or revoked); anonymous actor; metadata credential (api_key, oauth, none), method, route, path, request_id, aggregation.',
  },
  {
    event_name: 'permission.denied',
    category: 'security',
    outcome: 'failure',
    target_type: 'route',
    when: 'A request is refused with 403: by the guard (scope or role) or by a service rule (role hierarchy, workflow).',
    values:
      'target_id the route (e.g. PATCH /api/v2/workspaces/{slug}/members/{pk}/); reason insufficient_scope, insufficient_role, forbidden or workflow_transition_denied; metadata required, workspace_role, project_role, scopes (OAuth) or detail, aggregation.',
  },
  {
    event_name: 'rate_limit.exceeded',
    category: 'security',
    outcome: 'failure',
    target_type: 'workspace',
    when: 'A request to a /workspaces/{slug}/ path is throttled (429).',
    values:
      "reason rate_limited; the throttled credential's user when the credential is valid, else anonymous; metadata limit, window_seconds, retry_after_seconds, credential, route, aggregation (per credential or address and window).",
  },
  // Credentials (user-level: one entry in every workspace of the user, else in the instance trail)
  {
    event_name: 'api_key.created',
    category: 'auth',
    outcome: 'success',
    target_type: 'api_key',
    when: 'An API key is issued (admin CLI, first-start bootstrap).',
    values:
      'new {id, user_id, label, key_prefix, expires_at} (never the secret); metadata user_id, user_email, user_display_name, scope user.',
  },
  {
    event_name: 'api_key.revoked',
    category: 'auth',
    outcome: 'success',
    target_type: 'api_key',
    when: 'An API key is revoked (admin CLI).',
    values: 'old {revoked_at: null}, new {revoked_at}; metadata key_prefix and the user fields as api_key.created.',
  },
  {
    event_name: 'token.issued',
    category: 'auth',
    outcome: 'success',
    target_type: 'oauth_token',
    when: "An OAuth access token is issued: by the admin CLI, or by the token endpoint to an app (authorization code or client credentials; the app's workspace only).",
    values:
      'new {id, user_id, scopes, expires_at, client_name, client_id, grant_type} (never the token); metadata the user fields as api_key.created (CLI) or app_id, client_id, grant_id, principal_kind, app_installation_id (apps; source auth, actor the user or bot).',
  },
  {
    event_name: 'token.refreshed',
    category: 'auth',
    outcome: 'success',
    target_type: 'oauth_token',
    when: 'An app exchanges a refresh token for a new access token (the refresh token rotates).',
    values: 'new and metadata as token.issued (grant_type authorization_code refresh_token).',
  },
  {
    event_name: 'token.revoked',
    category: 'auth',
    outcome: 'success',
    target_type: 'oauth_token',
    when: "An app's access token is revoked: by the app (RFC 7009), or with its grant when a code or refresh token is replayed.",
    values:
      'old {revoked_at: null}, new {revoked_at}; reason revocation_request, replay_detected or grant_revoked; metadata client_id, grant_id, principal_kind.',
  },
  {
    event_name: 'oauth.replay_detected',
    category: 'security',
    outcome: 'failure',
    target_type: 'oauth_grant',
    when: 'A used authorization code or a rotated refresh token is presented again; every token of its grant is revoked.',
    values:
      "target_id the grant; reason authorization_code_reused or refresh_token_reused; actor the grant's user when known; metadata client_id, app_id, grant_id.",
  },
  // Apps and the sign-in and consent pages (source auth, except app.created: admin)
  {
    event_name: 'app.created',
    category: 'integration',
    outcome: 'success',
    target_type: 'app',
    when: 'An app (OAuth client) is registered and installed in the workspace (admin CLI app create).',
    values:
      'new {id, name, workspace, client_id, client_type, redirect_uris, scopes, app_installation_id, bot_user_id, bot_role} (never the secret); its bot user is also member.added.',
  },
  {
    event_name: 'oauth.consent_granted',
    category: 'integration',
    outcome: 'success',
    target_type: 'app',
    when: 'A member approves an app on the consent page.',
    values: 'new {scopes} (the scopes added to the grant); metadata client_id, redirect_uri, grant_id.',
  },
  {
    event_name: 'oauth.consent_denied',
    category: 'integration',
    outcome: 'failure',
    target_type: 'app',
    when: 'A member denies an app on the consent page (nothing is issued).',
    values: 'reason access_denied; metadata client_id, redirect_uri, scopes.',
  },
  {
    event_name: 'auth.sign_in',
    category: 'auth',
    outcome: 'success',
    target_type: 'user',
    when: "A user signs in on the authorization server's sign-in page (in every workspace of the user).",
    values: 'metadata client_id, request_id and the user fields as api_key.created.',
  },
  {
    event_name: 'auth.sign_in_failed',
    category: 'auth',
    outcome: 'failure',
    target_type: 'user',
    when: 'A sign-in attempt fails (in the workspaces of the account named, or the instance trail for an unknown one).',
    values:
      'reason wrong_password, no_password_set, unknown_account or rate_limited; metadata email, client_id, request_id.',
  },
  {
    event_name: 'user.password_set',
    category: 'auth',
    outcome: 'success',
    target_type: 'user',
    when: "A user's sign-in password is set (admin CLI user set-password).",
    values: 'no values (never the password or its hash); metadata the user fields as api_key.created.',
  },
  // Instance objects (admin CLI, first-start bootstrap; source admin)
  {
    event_name: 'workspace.created',
    category: 'instance',
    outcome: 'success',
    target_type: 'workspace',
    when: 'A workspace is created (admin CLI, first-start bootstrap); the first entry of its trail.',
    values: 'new {slug, name}.',
  },
  {
    event_name: 'user.created',
    category: 'instance',
    outcome: 'success',
    target_type: 'user',
    when: 'A user is created (admin CLI, first-start bootstrap); written to the instance trail (workspace_id null).',
    values: 'new {id, email, display_name}; metadata scope instance.',
  },
  // Members
  {
    event_name: 'member.added',
    category: 'member',
    outcome: 'success',
    target_type: 'workspace_member',
    when: 'A user is added to the workspace (admin CLI, first-start bootstrap; source admin).',
    values: 'new {role}; metadata member_id.',
  },
  {
    event_name: 'member.role_updated',
    category: 'member',
    outcome: 'success',
    target_type: 'workspace_member',
    when: "A workspace member's role changes (API or admin CLI).",
    values:
      'old/new {role}; metadata member_id, project_roles_capped_in (projects whose role a demotion to guest lowered).',
  },
  {
    event_name: 'member.removed',
    category: 'member',
    outcome: 'success',
    target_type: 'workspace_member',
    when: 'A user is removed from the workspace (API members/remove/ or admin CLI member remove).',
    values:
      'old {role}; metadata member_id, project_memberships_removed_in (projects whose membership went with it, each also a project_member.removed).',
  },
  {
    event_name: 'project_member.added',
    category: 'member',
    outcome: 'success',
    target_type: 'project_member',
    when: 'A workspace member is added to a project, explicitly or implicitly (creator, lead and default assignee of a new project).',
    values: 'new {role}; metadata member_id, reason project_created when implicit; project_id set.',
  },
  {
    event_name: 'project_member.role_updated',
    category: 'member',
    outcome: 'success',
    target_type: 'project_member',
    when: "A project member's role changes, explicitly or implicitly (capped to commenter by a workspace demotion to guest).",
    values: 'old/new {role}; metadata member_id, reason workspace_demoted_to_guest when implicit; project_id set.',
  },
  {
    event_name: 'project_member.removed',
    category: 'member',
    outcome: 'success',
    target_type: 'project_member',
    when: 'A member is removed from a project, explicitly or implicitly (removed from the workspace).',
    values: 'old {role}; metadata member_id, reason workspace_member_removed when implicit; project_id set.',
  },
  // Projects
  {
    event_name: 'project.created',
    category: 'settings',
    outcome: 'success',
    target_type: 'project',
    when: 'A project is created.',
    values: 'new {name, identifier}.',
  },
  {
    event_name: 'project.updated',
    category: 'settings',
    outcome: 'success',
    target_type: 'project',
    when: 'A project update changes at least one field.',
    values: 'old/new the changed fields; metadata changed_fields.',
  },
  {
    event_name: 'project.deleted',
    category: 'settings',
    outcome: 'success',
    target_type: 'project',
    when: 'A project is deleted.',
    values: 'old {name, identifier}.',
  },
  {
    event_name: 'project.archived',
    category: 'settings',
    outcome: 'success',
    target_type: 'project',
    when: 'A project is archived.',
    values: 'old {archived: false}, new {archived: true}.',
  },
  {
    event_name: 'project.unarchived',
    category: 'settings',
    outcome: 'success',
    target_type: 'project',
    when: 'An archived project is unarchived (unarchiving an active project writes nothing).',
    values: 'old {archived: true}, new {archived: false}.',
  },
  // Cycle and module archives (issue 20)
  {
    event_name: 'cycle.archived',
    category: 'settings',
    outcome: 'success',
    target_type: 'cycle',
    when: 'A cycle is archived (only a cycle whose end_date is in the past).',
    values: 'old {archived: false}, new {archived: true}.',
  },
  {
    event_name: 'cycle.unarchived',
    category: 'settings',
    outcome: 'success',
    target_type: 'cycle',
    when: 'An archived cycle is unarchived (unarchiving a live cycle writes nothing).',
    values: 'old {archived: true}, new {archived: false}.',
  },
  {
    event_name: 'module.archived',
    category: 'settings',
    outcome: 'success',
    target_type: 'module',
    when: 'A module is archived (only a completed or cancelled module).',
    values: 'old {archived: false}, new {archived: true}.',
  },
  {
    event_name: 'module.unarchived',
    category: 'settings',
    outcome: 'success',
    target_type: 'module',
    when: 'An archived module is unarchived (unarchiving a live module writes nothing).',
    values: 'old {archived: true}, new {archived: false}.',
  },
  // Features and the work item type mode
  {
    event_name: 'workspace.features_updated',
    category: 'settings',
    outcome: 'success',
    target_type: 'workspace',
    when: 'A workspace features update changes at least one flag.',
    values: 'old/new the changed flags; metadata changed_fields.',
  },
  {
    event_name: 'workspace.work_item_type_mode_changed',
    category: 'settings',
    outcome: 'success',
    target_type: 'workspace',
    when: 'is_work_item_types_enabled changes (written beside workspace.features_updated).',
    values: 'old/new {mode: project or workspace, is_work_item_types_enabled}.',
  },
  {
    event_name: 'project.features_updated',
    category: 'settings',
    outcome: 'success',
    target_type: 'project',
    when: 'A project features update changes at least one flag.',
    values: 'old/new the changed flags; metadata changed_fields; project_id set.',
  },
  {
    event_name: 'work_item_types.surface_conflict',
    category: 'settings',
    outcome: 'failure',
    target_type: 'workspace',
    when: 'A type or property write on the surface the work item type mode disables is refused (409).',
    values:
      'reason the 409 code; project_id set on project routes; metadata surface, mode, method, route (e.g. POST /api/v2/workspaces/{slug}/projects/{project_id}/work-item-types/), path, request_id, aggregation.',
  },
  // Workflows
  {
    event_name: 'workflow.created',
    category: 'settings',
    outcome: 'success',
    target_type: 'workflow',
    when: 'A workflow is created.',
    values: 'new the workflow; metadata change workflow.created.',
  },
  {
    event_name: 'workflow.updated',
    category: 'settings',
    outcome: 'success',
    target_type: 'workflow',
    when: 'A workflow, or one of its states or transitions, is created, updated or deleted.',
    values:
      'old/new the changed row before/after (null when created or deleted); metadata change (workflow.updated, workflow_state.created/updated/deleted, workflow_transition.created/updated/deleted).',
  },
  {
    event_name: 'workflow.deleted',
    category: 'settings',
    outcome: 'success',
    target_type: 'workflow',
    when: 'A workflow is deleted.',
    values: 'old the workflow; metadata change workflow.deleted.',
  },
  // Work item relation definitions (workspace settings)
  {
    event_name: 'work_item_relation_definition.created',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_relation_definition',
    when: 'A custom work item relation definition is created.',
    values: 'new the definition.',
  },
  {
    event_name: 'work_item_relation_definition.updated',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_relation_definition',
    when: 'A custom relation definition is updated.',
    values: 'old/new the definition before and after.',
  },
  {
    event_name: 'work_item_relation_definition.deleted',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_relation_definition',
    when: 'A custom relation definition is deleted (its relations are removed with it).',
    values: 'old the definition.',
  },
  // Work item types and properties (either surface; metadata.surface project or workspace)
  {
    event_name: 'work_item_type.created',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_type',
    when: 'A work item type is created (also the defaults seeded when types are enabled).',
    values: 'new the type; metadata surface (via enable for seeded types).',
  },
  {
    event_name: 'work_item_type.updated',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_type',
    when: 'A type update changes at least one field, or a type is marked as the default.',
    values: 'old/new the changed fields; metadata surface, changed_fields (action mark_default, previous_default_id).',
  },
  {
    event_name: 'work_item_type.deleted',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_type',
    when: 'A work item type is deleted.',
    values: 'old the type; metadata surface.',
  },
  {
    event_name: 'work_item_type.imported',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_type',
    when: 'Workspace-level types are imported into a project (workspace mode).',
    values: 'target_id the project; new {work_item_types: [ids added]}; metadata surface, requested.',
  },
  {
    event_name: 'work_item_type.properties_attached',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_type',
    when: 'Properties are attached to a type.',
    values: 'new {properties: [ids]}; metadata surface.',
  },
  {
    event_name: 'work_item_type.property_detached',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_type',
    when: 'A property is detached from a type.',
    values: 'old {properties: [id]}; metadata surface, values_removed.',
  },
  {
    event_name: 'work_item_property.created',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_property',
    when: 'A custom property is created.',
    values: 'new the definition (with its option names); metadata surface.',
  },
  {
    event_name: 'work_item_property.updated',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_property',
    when: 'A property update changes at least one field or option.',
    values: 'old/new the changed fields; metadata surface, changed_fields, options_added, options_updated.',
  },
  {
    event_name: 'work_item_property.deleted',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_property',
    when: 'A custom property is deleted.',
    values: 'old the definition; metadata surface, values_removed.',
  },
  {
    event_name: 'work_item_property_option.created',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_property_option',
    when: 'An option is added to a property.',
    values: 'new the option; metadata surface, property_id.',
  },
  {
    event_name: 'work_item_property_option.updated',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_property_option',
    when: 'An option update changes at least one field.',
    values: 'old/new the changed fields; metadata surface, property_id, changed_fields.',
  },
  {
    event_name: 'work_item_property_option.deleted',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_property_option',
    when: 'An option is deleted.',
    values: 'old the option; metadata surface, property_id, values_changed, defaults_pruned.',
  },
  {
    event_name: 'work_item_property_context.created',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_property_context',
    when: 'A property context is created.',
    values: 'new the context; metadata surface, property_id.',
  },
  {
    event_name: 'work_item_property_context.updated',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_property_context',
    when: 'A context update changes at least one field.',
    values:
      'old/new the changed fields; metadata surface, property_id, changed_fields, options_deleted, values_changed.',
  },
  {
    event_name: 'work_item_property_context.deleted',
    category: 'settings',
    outcome: 'success',
    target_type: 'work_item_property_context',
    when: 'A property context is deleted.',
    values: 'old the context; metadata surface, property_id, options_deleted, values_changed.',
  },
  // Webhooks (src/webhooks, docs/webhooks.md)
  {
    event_name: 'webhook.created',
    category: 'webhook',
    outcome: 'success',
    target_type: 'webhook',
    when: 'A webhook is registered.',
    values: 'new name, url, is_active, scopes, content_type (never the secret).',
  },
  {
    event_name: 'webhook.updated',
    category: 'webhook',
    outcome: 'success',
    target_type: 'webhook',
    when: 'A webhook is changed (PATCH).',
    values: 'old and new the fields that changed (never the secret).',
  },
  {
    event_name: 'webhook.deleted',
    category: 'webhook',
    outcome: 'success',
    target_type: 'webhook',
    when: 'A webhook is deleted (its pending deliveries and logs with it).',
    values: 'old name, url, is_active, scopes, content_type.',
  },
  {
    event_name: 'webhook.secret_regenerated',
    category: 'webhook',
    outcome: 'success',
    target_type: 'webhook',
    when: "A webhook's signing secret is replaced.",
    values: 'none (the secret is never recorded).',
  },
  {
    event_name: 'webhook.disabled',
    category: 'webhook',
    outcome: 'success',
    target_type: 'webhook',
    when: 'The service disables a webhook whose deliveries have failed without a success for WEBHOOK_DISABLE_AFTER_SECONDS (24 h); source system.',
    values: 'old is_active true, new is_active false; reason since when; metadata failing_since, last_error.',
  },
];

/** The catalogue as text for the OpenAPI description of the entry's `event_name`. */
export function catalogueDescription(): string {
  const lines = AUDIT_EVENT_CATALOGUE.map(
    (e) => `- \`${e.event_name}\` (${e.category}, ${e.outcome}; target \`${e.target_type}\`): ${e.when} ${e.values}`,
  );
  return ['Dotted event name. Catalogue (the list only grows; tolerate unknown names):', '', ...lines].join('\n');
}

/** The names alone, for the description of the `event_name` list filter. */
export function catalogueNames(): string {
  return AUDIT_EVENT_CATALOGUE.map((e) => `\`${e.event_name}\``).join(', ');
}
