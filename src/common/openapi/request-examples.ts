import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * Ids of other records in request examples. A body that must point at another record (the cycle to move work
 * items to, the user to add to a project) cannot name one that exists in every database, so its example
 * carries one of these, recognisably made up; every other example runs as it is against a new project.
 * test/e2e/openapi-examples.spec.ts replaces them with the ids of records it creates.
 */
export const EXAMPLE_REFS = {
  /** A workspace member who is not on the project yet. */
  user: '00000000-0000-4000-8000-000000000001',
  /** The email of a workspace member (not its owner). */
  memberEmail: 'member@example.com',
  /** Another cycle of the project. */
  cycle: '00000000-0000-4000-8000-000000000002',
  /** A work item of the project. */
  workItem: '00000000-0000-4000-8000-000000000003',
  /** A state of the project. */
  state: '00000000-0000-4000-8000-000000000004',
  /** A state row of the workflow (.../workflows/{workflow_id}/states/), of another state than `state`. */
  workflowState: '00000000-0000-4000-8000-000000000005',
  /** A work item type of the workspace (workspace mode). */
  workItemType: '00000000-0000-4000-8000-000000000006',
  /** A work item property of the same surface. */
  property: '00000000-0000-4000-8000-000000000007',
  /** A project of the workspace. */
  project: '00000000-0000-4000-8000-000000000008',
  /** Another work item of the project (the other end of a relation or dependency). */
  otherWorkItem: '00000000-0000-4000-8000-000000000009',
  /** A relation definition of the workspace whose outward label is `blocks` (the built-in Blocks). */
  relationDefinition: '00000000-0000-4000-8000-000000000010',
} as const;

const R = EXAMPLE_REFS;

/**
 * The request example of every body schema: what Swagger UI fills in, and what "Try it out" sends unchanged.
 * Swagger UI would otherwise build one from the schema, with every optional field filled in: both the name and
 * the id form of each relation (400), made-up ids (400) and "string" everywhere. Each example sends one form of
 * a relation at most, and names only what a new project has (its seeded states) or EXAMPLE_REFS.
 */
export const REQUEST_EXAMPLES: Record<string, Record<string, unknown>> = {
  UpdateWorkspaceFeaturesDto: { is_wiki_enabled: true },
  CreateLabelDto: { name: 'Bug', color: '#E5484D', description: 'Something does not work as described' },
  UpdateLabelDto: { color: '#F76808' },
  RemoveWorkspaceMemberDto: { email: R.memberEmail },
  UpdateWorkspaceMemberDto: { role: 'admin' },
  CreateProjectDto: { name: 'Mobile app', identifier: 'MOB', description: 'iOS and Android clients' },
  UpdateProjectDto: { description: 'iOS and Android clients, release 2' },
  UpdateProjectFeaturesDto: { is_cycles_enabled: true, is_modules_enabled: true },
  CreateProjectMemberDto: { member_id: R.user, role: 'contributor' },
  UpdateProjectMemberDto: { role: 'commenter' },
  CreateStateDto: { name: 'In review', color: '#F5A623', group: 'started' },
  UpdateStateDto: { color: '#8E44AD' },
  CreateEstimateDto: { name: 'T-shirt sizes', type: 'categories' },
  UpdateEstimateDto: { description: 'Rough size of the work' },
  CreateEstimatePointDto: { value: 'XL', description: 'More than a week' },
  UpdateEstimatePointDto: { description: 'About a week of work' },
  CreateCycleDto: {
    name: 'Sprint 1',
    start_date: '2026-03-02T00:00:00Z',
    end_date: '2026-03-15T23:59:59Z',
    timezone: 'Europe/Berlin',
  },
  UpdateCycleDto: { description: 'Stabilise the release' },
  TransferCycleDto: { new_cycle_id: R.cycle },
  WorkItemsMembershipDto: { add: [R.workItem] },
  CreateModuleDto: { name: 'Authentication', status: 'planned', start_date: '2026-03-02', target_date: '2026-04-30' },
  UpdateModuleDto: { status: 'in-progress' },
  CreateWorkItemDto: {
    name: 'Login fails after the session expires',
    description_html: '<p>Sign in, wait an hour, reload: the page shows an error.</p>',
    priority: 'high',
    state: 'Todo',
    start_date: '2026-03-02',
    target_date: '2026-03-06',
  },
  UpdateWorkItemDto: { priority: 'urgent', state: 'Todo' },
  // The bulk envelope (work-items/bulk-create/ and bulk-update/; a bulk-update row without its id fails, answered 200).
  BulkWriteBodyDto: { items: [{ name: 'Imported item', priority: 'high' }, { name: 'Second imported item' }] },
  BulkDeleteBodyDto: { ids: [R.workItem] },
  CreateCommentDto: { comment_html: '<p>I can reproduce this on Android too.</p>' },
  UpdateCommentDto: { comment_html: '<p>I can reproduce this on Android 14 too.</p>' },
  CreateWorkflowDto: { name: 'Review flow', description: 'Every change is reviewed before it is done' },
  UpdateWorkflowDto: { description: 'Changes are reviewed before they are done' },
  CreateWorkflowStateDto: { state_id: R.state, allow_issue_creation: true },
  UpdateWorkflowStateDto: { allow_issue_creation: false },
  CreateWorkflowTransitionDto: { workflow_state_id: R.workflowState, transition_state_id: R.state },
  UpdateWorkflowTransitionDto: { member_ids: [] },
  CreateWorkItemTypeDto: { name: 'Bug', description: 'Something that does not work as described' },
  UpdateWorkItemTypeDto: { description: 'A defect found in a release' },
  ImportWorkItemTypesDto: { work_item_types: [R.workItemType] },
  AttachPropertiesDto: { properties: [R.property] },
  CreateWorkItemPropertyDto: {
    display_name: 'Severity',
    property_type: 'OPTION',
    options: [{ name: 'Critical' }, { name: 'Minor', is_default: true }],
  },
  UpdateWorkItemPropertyDto: { description: 'How badly users are affected' },
  CreatePropertyOptionDto: { name: 'Blocker', description: 'Stops a release' },
  UpdatePropertyOptionDto: { description: 'Stops the next release' },
  CreatePropertyContextDto: {
    name: 'Mobile app',
    applies_to_all_projects: false,
    project_ids: [R.project],
    applies_to_all_work_item_types: true,
    is_required: true,
  },
  UpdatePropertyContextDto: { is_required: false },
  CreateWorkItemLinkDto: { url: 'https://github.com/acme/mobile/issues/42', title: 'Upstream issue' },
  UpdateWorkItemLinkDto: { title: 'Upstream issue (fixed in 2.1)' },
  CreateRelationDefinitionDto: { name: 'Implements', outward: 'implements', inward: 'is implemented by' },
  UpdateRelationDefinitionDto: { description: 'One work item delivers what the other specifies' },
  CreateWorkItemRelationDto: {
    relation_definition_id: R.relationDefinition,
    direction: 'blocks',
    work_item_ids: [R.otherWorkItem],
  },
  CreateWorkItemDependencyDto: { relation_type: 'blocking', work_item_ids: [R.otherWorkItem] },
  // A local receiver: reachable once WEBHOOK_ALLOWED_HOSTS lists localhost (docs/webhooks.md), refused otherwise.
  CreateWebhookDto: { name: 'CI bridge', url: 'http://localhost:8080/hooks/work-tracking', scopes: ['workitem.*'] },
  UpdateWebhookDto: { scopes: ['workitem.*', 'workitem.comment.*'] },
};

type Body = { content?: Record<string, { schema?: { $ref?: string }; example?: unknown }> };

/** Sets the example of every JSON request body whose schema REQUEST_EXAMPLES lists. */
export function addRequestExamples(doc: OpenAPIObject): void {
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as Array<{ requestBody?: Body }>) {
      const media = op?.requestBody?.content?.['application/json'];
      const name = media?.schema?.$ref?.split('/').pop();
      if (media && name && REQUEST_EXAMPLES[name]) media.example = REQUEST_EXAMPLES[name];
    }
  }
}
