/** Stable machine-readable codes of every problem the service returns. Clients branch on these. */
export enum ErrorCode {
  ValidationError = 'validation_error',
  OrderingNotCursorEligible = 'ordering_not_cursor_eligible',
  Unauthorized = 'unauthorized',
  Forbidden = 'forbidden',
  WorkflowTransitionDenied = 'workflow_transition_denied',
  ResourceNotFound = 'resource_not_found',
  MethodNotAllowed = 'method_not_allowed',
  Conflict = 'conflict',
  ProjectArchived = 'project_archived',
  CycleArchived = 'cycle_archived',
  ModuleArchived = 'module_archived',
  NotArchivable = 'not_archivable',
  WorkItemTypesManagedAtWorkspace = 'work_item_types_managed_at_workspace',
  WorkItemTypesManagedAtProject = 'work_item_types_managed_at_project',
  IdempotencyKeyInUse = 'idempotency_key_in_use',
  PreconditionFailed = 'precondition_failed',
  PayloadTooLarge = 'payload_too_large',
  UnsupportedMediaType = 'unsupported_media_type',
  IdempotencyKeyMismatch = 'idempotency_key_mismatch',
  RateLimited = 'rate_limited',
  InternalError = 'internal_error',
  ServiceUnavailable = 'service_unavailable',
}

/** One row of the error-code table. */
export interface ErrorCodeInfo {
  status: number;
  title: string;
  /** When the service answers with it (the error catalogue's "when it happens"). */
  when: string;
  /** What the client or its user can do about it. */
  action: string;
  /** A typical `detail` (and `errors` for validation): the example of the OpenAPI document and the catalogue. */
  example: { detail: string; errors?: Array<{ field: string; message: string }> };
}

/**
 * The one error-code table: problem bodies (status, title), the OpenAPI document's problem examples and the
 * error catalogue served at /errors/ (the target of every problem's `type`) are all generated from it.
 * Rows are in catalogue order; the first row of a status is that status's usual code.
 */
export const ERROR_CODES: Record<ErrorCode, ErrorCodeInfo> = {
  [ErrorCode.ValidationError]: {
    status: 400,
    title: 'Validation error',
    when:
      'A parameter or body field is missing, malformed or not allowed: a wrong type or format, a value out of ' +
      'range, an unknown filter, a name that matches no record, an id of another project, both the name and the ' +
      'id form of one relation, invalid JSON. `errors` names every offending field.',
    action:
      'Correct the fields named in `errors` (each with a message) and send the request again; the OpenAPI ' +
      'document gives every field its type and limits.',
    example: {
      detail: 'name: name should not be empty',
      errors: [{ field: 'name', message: 'name should not be empty' }],
    },
  },
  [ErrorCode.OrderingNotCursorEligible]: {
    status: 400,
    title: 'Ordering not cursor eligible',
    when: 'A list was asked for cursor pagination (`paginate=cursor`) with an `order_by` that cannot anchor a cursor.',
    action: 'Use one of the orderings the detail lists, or offset pagination for this ordering.',
    example: {
      detail:
        'Ordering "priority" cannot anchor a cursor. Use order_by with one of: created_at, updated_at (or their "-" forms).',
    },
  },
  [ErrorCode.Unauthorized]: {
    status: 401,
    title: 'Unauthorized',
    when:
      'No credentials, or credentials the service does not accept: an unknown or revoked API key in ' +
      '`X-Api-Key`, an expired or revoked OAuth access token in `Authorization: Bearer`.',
    action:
      'Send a valid API key in `X-Api-Key` (an operator issues one with the admin CLI, `api-key create`) or a ' +
      'valid access token.',
    example: { detail: 'Authentication credentials were missing or invalid.' },
  },
  [ErrorCode.Forbidden]: {
    status: 403,
    title: 'Forbidden',
    when:
      "The caller is known but may not do this: their workspace or project role is too low (the operation's " +
      '`x-required-role`), or an OAuth token lacks the scope (`x-required-scope`).',
    action: 'Ask a workspace or project admin for a higher role, or issue a token with the scope the operation names.',
    example: { detail: 'This action needs the project role contributor or higher.' },
  },
  [ErrorCode.WorkflowTransitionDenied]: {
    status: 403,
    title: 'Workflow transition denied',
    when:
      "The project's active workflow forbids the change: creating a work item in a state that does not allow " +
      'it, or moving a work item to a state without a transition the caller may use.',
    action:
      "Choose a state the workflow allows (the project's workflow states and transitions), or ask a project " +
      'admin to change the workflow.',
    example: {
      detail: "The project's workflow does not allow moving a work item from its current state to this state.",
    },
  },
  [ErrorCode.ResourceNotFound]: {
    status: 404,
    title: 'Resource not found',
    when:
      'No such path, or no such record in a tenant the caller can see: a workspace they are not a member of, a ' +
      'project or record of another tenant, a deleted record. (A path without its trailing `/` is a 404 too.)',
    action: 'Check the ids and slugs in the path, that the path ends with `/`, and that the caller is a member.',
    example: { detail: 'Workspace not found.' },
  },
  [ErrorCode.MethodNotAllowed]: {
    status: 405,
    title: 'Method not allowed',
    when: 'The path exists but not with this method (there is no PUT: updates are PATCH).',
    action: 'Use one of the methods in the `Allow` header.',
    example: { detail: 'Method PUT is not allowed on this path.' },
  },
  [ErrorCode.Conflict]: {
    status: 409,
    title: 'Conflict',
    when:
      'The request contradicts the current data: a name or external_source/external_id pair already in use, a ' +
      'record that cannot be deleted as it stands (a default state, a state with work items, the last owner).',
    action: 'Read the detail, change the conflicting value or the record it names, and retry.',
    example: { detail: 'A record with this name or external_source/external_id pair already exists.' },
  },
  [ErrorCode.ProjectArchived]: {
    status: 409,
    title: 'Project archived',
    when:
      'A write (POST, PATCH, PUT, DELETE) under an archived project: its work items, states, labels, cycles, modules and ' +
      'settings can be read but not changed until the project is unarchived.',
    action: 'Unarchive the project (POST .../projects/{project_id}/unarchive/, project admins) and retry.',
    example: {
      detail:
        'The project ENG is archived: its data can be read, not changed. Unarchive it first (POST .../projects/{project_id}/unarchive/).',
    },
  },
  [ErrorCode.CycleArchived]: {
    status: 409,
    title: 'Cycle archived',
    when:
      'A write to an archived cycle: update, delete, adding or removing work items, a transfer from it, archiving it ' +
      'again. An archived cycle is out of the cycle list and the detail read; GET .../archived-cycles/ lists it.',
    action: 'Unarchive the cycle (POST .../cycles/{pk}/unarchive/) and retry.',
    example: { detail: 'The cycle "Sprint 4" is archived: unarchive it first (POST .../cycles/{pk}/unarchive/).' },
  },
  [ErrorCode.ModuleArchived]: {
    status: 409,
    title: 'Module archived',
    when:
      'A write to an archived module: update, delete, adding or removing work items, archiving it again. An ' +
      'archived module is out of the module list and the detail read; GET .../archived-modules/ lists it.',
    action: 'Unarchive the module (POST .../modules/{pk}/unarchive/) and retry.',
    example: { detail: 'The module "Billing" is archived: unarchive it first (POST .../modules/{pk}/unarchive/).' },
  },
  [ErrorCode.NotArchivable]: {
    status: 409,
    title: 'Not archivable',
    when:
      'An archive of a cycle that has not ended (end_date absent or not in the past), or of a module whose status ' +
      'is neither completed nor cancelled (as in Plane).',
    action: "Finish it first (a cycle's end_date in the past, a module's status completed or cancelled), then archive.",
    example: { detail: 'Only a completed cycle can be archived: its end_date must be in the past.' },
  },
  [ErrorCode.WorkItemTypesManagedAtWorkspace]: {
    status: 409,
    title: 'Work item types are managed at the workspace level',
    when:
      'A write to the project surface of work item types or properties while the workspace manages them ' +
      '(workspace feature `is_work_item_types_enabled` true).',
    action: 'Send the same request to the workspace surface (`/workspaces/{slug}/work-item-types/`, ...).',
    example: {
      detail:
        'This workspace manages work item types and properties at the workspace level; use the ' +
        '/api/v2/workspaces/{slug}/work-item-types/ and /work-item-properties/ endpoints (or switch ' +
        'is_work_item_types_enabled off).',
    },
  },
  [ErrorCode.WorkItemTypesManagedAtProject]: {
    status: 409,
    title: 'Work item types are managed at the project level',
    when:
      'A write to the workspace surface of work item types, properties or contexts while projects manage them ' +
      '(workspace feature `is_work_item_types_enabled` false).',
    action: 'Send the request to the project surface, or have a workspace admin turn on `is_work_item_types_enabled`.',
    example: {
      detail:
        'This workspace manages work item types and properties per project; use the ' +
        '/projects/{project_id}/work-item-types/ and /work-item-properties/ endpoints (or switch ' +
        'is_work_item_types_enabled on).',
    },
  },
  [ErrorCode.IdempotencyKeyInUse]: {
    status: 409,
    title: 'Idempotency key in use',
    when:
      'A POST with an `Idempotency-Key` that an earlier request with the same credential and key is still ' +
      'running: the first one has not answered yet.',
    action:
      'Wait the seconds in `Retry-After`, then send the same request again: it replays the first response once ' +
      'that one has finished (or runs, if the first one failed).',
    example: { detail: 'A request with this Idempotency-Key is still being processed; retry after it has finished.' },
  },
  [ErrorCode.PreconditionFailed]: {
    status: 412,
    title: 'Precondition failed',
    when:
      'A PATCH or DELETE whose `If-Match` names none of the current ETags of the record: it changed since the ' +
      'client read it (or the tag is weak, or malformed). Nothing was written.',
    action:
      'GET the record again (its `ETag` header is the current tag), apply the change to what it holds now and ' +
      'send it with the new tag in `If-Match`.',
    example: { detail: 'The work item has changed since the ETag in If-Match was issued; nothing was written.' },
  },
  [ErrorCode.PayloadTooLarge]: {
    status: 413,
    title: 'Payload too large',
    when: 'The request body is larger than the configured limit (`BODY_LIMIT_BYTES`, 1 MiB by default).',
    action: 'Send a smaller body (split a large import into several requests).',
    example: { detail: 'Request body is too large.' },
  },
  [ErrorCode.UnsupportedMediaType]: {
    status: 415,
    title: 'Unsupported media type',
    when: 'A request body that is not JSON (its Content-Type is not `application/json` or `+json`).',
    action: 'Send the body as JSON with `Content-Type: application/json`.',
    example: { detail: 'Send JSON with Content-Type: application/json.' },
  },
  [ErrorCode.IdempotencyKeyMismatch]: {
    status: 422,
    title: 'Idempotency key reused with another request',
    when:
      'A POST with an `Idempotency-Key` that the same credential used in the last 24 hours for a request with ' +
      'another method, path or body.',
    action:
      'Use a new key for a new request; send the exact same request (path, query and body) to retry the first one.',
    example: {
      detail: 'This Idempotency-Key was used for a different request (method, path or body) in the last 24 hours.',
    },
  },
  [ErrorCode.RateLimited]: {
    status: 429,
    title: 'Too many requests',
    when:
      "The caller's request budget (per credential, or per client address without one) is used up for this " +
      'window (`RATE_LIMIT_MAX` requests per `RATE_LIMIT_WINDOW_SECONDS`).',
    action: 'Wait the seconds in `Retry-After` before the next request; `X-RateLimit-*` headers show the budget.',
    example: { detail: 'Rate limit of 600 requests per 60 s exceeded. Retry after 12 s.' },
  },
  [ErrorCode.InternalError]: {
    status: 500,
    title: 'Internal server error',
    when: 'An unexpected failure of the service (a defect). Nothing was changed: the request ran in a transaction.',
    action: 'Retry later; if it persists, report it to the operator with the `X-Request-Id` of the response.',
    example: { detail: 'An unexpected error occurred.' },
  },
  [ErrorCode.ServiceUnavailable]: {
    status: 503,
    title: 'Service unavailable',
    when:
      'The database cannot be reached, or canceled the statement (a statement or lock timeout); the ' +
      'transaction was rolled back, so nothing was changed.',
    action: 'Retry after the seconds in `Retry-After`.',
    example: { detail: 'The database is unavailable; retry shortly.' },
  },
};

const column = <K extends keyof ErrorCodeInfo>(key: K) =>
  Object.fromEntries(Object.entries(ERROR_CODES).map(([code, info]) => [code, info[key]])) as Record<
    ErrorCode,
    ErrorCodeInfo[K]
  >;

export const ERROR_STATUS: Record<ErrorCode, number> = column('status');

export const ERROR_TITLES: Record<ErrorCode, string> = column('title');

/** Whether `code` is one of the table's codes. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}
