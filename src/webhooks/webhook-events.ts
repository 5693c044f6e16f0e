/**
 * The events a webhook can choose (gap-reference 7, Plane's v2 names) and the entity types they carry: those of the
 * resources this service has. Plane's milestone, page, vote, attachment and page-link events have no resource here.
 * A relation made through a workspace relation definition is `workitem.relation.*`, a dependency (blocking,
 * start/finish before) `workitem.dependency.*`, as Plane splits them.
 */
export const WEBHOOK_EVENTS = [
  'project.created',
  'project.updated',
  'project.archived',
  'project.deleted',
  'cycle.created',
  'cycle.updated',
  'cycle.archived',
  'cycle.deleted',
  'module.created',
  'module.updated',
  'module.archived',
  'module.deleted',
  'workitem.created',
  'workitem.updated',
  'workitem.archived',
  'workitem.deleted',
  'workitem.comment.created',
  'workitem.comment.updated',
  'workitem.comment.deleted',
  'workitem.link.created',
  'workitem.link.updated',
  'workitem.link.deleted',
  'workitem.relation.created',
  'workitem.relation.deleted',
  'workitem.dependency.created',
  'workitem.dependency.deleted',
] as const;

export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/** Plane's `entity_type` of each family (a work item is an `issue` there; relations and dependencies are both its `issue_relation`). */
export type WebhookEntityType =
  'project' | 'cycle' | 'module' | 'issue' | 'issue_comment' | 'issue_link' | 'issue_relation';

/** `<family>.*` for every family: `workitem.*` is the four work item events, not the comment events. */
export const WEBHOOK_EVENT_PATTERNS = [...new Set(WEBHOOK_EVENTS.map(familyPattern))];

/** `workitem.comment.created` -> `workitem.comment.*`. */
export function familyPattern(event: string): string {
  return `${event.slice(0, event.lastIndexOf('.'))}.*`;
}

/** What `scopes` may hold: `*` (every event), a family pattern or one event name. */
export const WEBHOOK_SCOPE_VALUES: readonly string[] = ['*', ...WEBHOOK_EVENT_PATTERNS, ...WEBHOOK_EVENTS];

export function scopeMatches(scopes: readonly string[], event: string): boolean {
  return scopes.includes('*') || scopes.includes(event) || scopes.includes(familyPattern(event));
}

/** One change to report, as a feature's service hands it to the outbox inside its transaction. */
export interface WebhookEventInput {
  workspaceId: string;
  projectId?: string | null;
  event: WebhookEventName;
  entityType: WebhookEntityType;
  entityId: string;
  /** The entity as the API shows it after the change (before it, for a delete). */
  data: object;
  /** For an update: the entity before it; the payload's `previous_attributes` holds the fields that changed. */
  before?: object;
  actorId?: string | null;
}

/** The fields of `before` whose value differs in `after`, with their old values. */
export function changedAttributes(before: object, after: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const a = after as Record<string, unknown>;
  for (const [k, v] of Object.entries(before)) {
    if (JSON.stringify(v) !== JSON.stringify(a[k])) out[k] = v;
  }
  return out;
}

const ENTITY_OF_FAMILY: Record<string, WebhookEntityType> = {
  project: 'project',
  cycle: 'cycle',
  module: 'module',
  workitem: 'issue',
  'workitem.comment': 'issue_comment',
  'workitem.link': 'issue_link',
  'workitem.relation': 'issue_relation',
  'workitem.dependency': 'issue_relation',
};

/** The request context fields an event needs (a WorkspaceContext or ProjectContext has them). */
interface ChangeContext {
  workspace: { id: string };
  principal: { userId: string };
  project?: { id: string } | null;
}

/**
 * The event of a change made in a request: `data` is the entity as the API shows it (with its `id`), `before`
 * (updates) the entity before the change. The hook of a feature's service is one line inside its transaction:
 * `await this.outbox.record(tx, changeEvent(ctx, 'workitem.updated', dto, beforeDto))`.
 */
export function changeEvent<T extends { id: string }>(
  ctx: ChangeContext,
  event: WebhookEventName,
  data: T,
  before?: T,
): WebhookEventInput {
  const entityType = ENTITY_OF_FAMILY[event.slice(0, event.lastIndexOf('.'))];
  return {
    workspaceId: ctx.workspace.id,
    projectId: ctx.project?.id ?? (entityType === 'project' ? data.id : null),
    event,
    entityType,
    entityId: data.id,
    data,
    before,
    actorId: ctx.principal.userId,
  };
}
