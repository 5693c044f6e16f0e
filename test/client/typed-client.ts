import createClient from 'openapi-fetch';
import type { components, paths } from './openapi';

/**
 * A small client typed only by what openapi-typescript generates from openapi.json with its default options
 * (openapi.d.ts, written by generate-types.mjs), as an integrator would write it. `npm test` compiles it under
 * strict TypeScript (tsconfig.json; test/e2e/generated-client.spec.ts compiles it alone with --strict too) and
 * runs it against the server.
 */
type WorkItem = components['schemas']['WorkItemDto'];
type Problem = components['schemas']['ProblemDto'];

const ITEMS = '/api/v2/workspaces/{slug}/projects/{project_id}/work-items/';
const ITEM = '/api/v2/workspaces/{slug}/projects/{project_id}/work-items/{pk}/';

export interface ClientRun {
  created: WorkItem;
  /** Names read through two cursor pages of one item each, with their expanded state group. */
  pages: Array<{ name: string | undefined; stateGroup: string | undefined; nextCursor: string | null }>;
  problem: Problem;
  problemStatus: number;
}

export async function exerciseClient(baseUrl: string, apiKey: string, slug: string, projectId: string) {
  const client = createClient<paths>({ baseUrl, headers: { 'X-Api-Key': apiKey } });
  const path = { slug, project_id: projectId };

  // Create: only name is required; fields with a server-side default stay optional in the generated type.
  const created = await client.POST(ITEMS, { params: { path }, body: { name: 'Typed client item' } });
  if (!created.data) throw new Error(`create failed: ${JSON.stringify(created.error)}`);

  // List with expand, in cursor mode, following next_cursor.
  const pages: ClientRun['pages'] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 2; i++) {
    const page = await client.GET(ITEMS, {
      params: { path, query: { expand: ['state'], paginate: 'cursor', per_page: 1, order_by: 'created_at', cursor } },
    });
    if (!page.data) throw new Error(`list failed: ${JSON.stringify(page.error)}`);
    if (page.data.pagination.style !== 'cursor' || !('next_cursor' in page.data)) throw new Error('not a cursor page');
    const next = page.data.next_cursor;
    for (const row of page.data.data) pages.push({ name: row.name, stateGroup: row.state?.group, nextCursor: next });
    cursor = next ?? undefined;
  }

  // A problem response: typed as the document's ProblemDto.
  const missing = await client.GET(ITEM, {
    params: { path: { ...path, pk: '00000000-0000-4000-8000-000000000000' } },
  });
  if (!missing.error) throw new Error('expected a problem');
  const run: ClientRun = {
    created: created.data,
    pages,
    problem: missing.error,
    problemStatus: missing.response.status,
  };
  return run;
}
