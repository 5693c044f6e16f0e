import type request from 'supertest';
import { ERROR_CODES, ErrorCode } from '../../src/common/errors/error-codes';
import { EXAMPLE_REFS } from '../../src/common/openapi/request-examples';
import { BASE_URL, createTestApp, Tenant, TestApp } from '../helpers/test-app';

/**
 * What a user exploring the API in Swagger UI gets when pressing "Try it out" and "Execute" without changing
 * anything: every operation of the served OpenAPI document, with its request example as it is, answers its
 * documented success status. Each operation runs in a workspace of its own, with the records its path names
 * (filled in for the path parameters, as the user would) and, where an example must name another record by
 * id (EXAMPLE_REFS), that record's id in place of the made-up one.
 */

interface Operation {
  method: string;
  path: string;
  operationId: string;
  example: unknown;
  hasBody: boolean;
  success: number;
  /** Every 2xx status the operation documents (an upsert answers 200 or 201). */
  successes: number[];
}

type Surface = 'project' | 'workspace';
type Json = Record<string, any>;

/** The records an operation needs, each created on first use within one fresh workspace. */
class Fixtures {
  private readonly memo = new Map<string, Promise<any>>();
  readonly ws: string;
  constructor(
    private readonly t: TestApp,
    readonly ten: Tenant,
    /** Which work item type surface the operation writes to (and so the workspace's mode). */
    readonly surface: Surface,
  ) {
    this.ws = `/api/v2/workspaces/${ten.slug}`;
  }

  private once<T>(key: string, make: () => Promise<T>): Promise<T> {
    if (!this.memo.has(key)) this.memo.set(key, make());
    return this.memo.get(key) as Promise<T>;
  }

  async call(method: string, url: string, body?: unknown, status = method === 'POST' ? 201 : 200): Promise<Json> {
    let req = this.t.http[method.toLowerCase() as 'get'](url).set('X-Api-Key', this.ten.owner.key);
    if (body !== undefined) req = req.send(body as object);
    const res = await req;
    if (res.status !== status) throw new Error(`fixture ${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  project = () => this.once('project', () => this.t.project(this.ten.slug, this.ten.owner.key, { identifier: 'FIX' }));
  pr = async () => `${this.ws}/projects/${(await this.project()).id}`;
  /** The project's seeded states by name. */
  states = () =>
    this.once('states', async () => {
      const list = await this.call('GET', `${await this.pr()}/states/`);
      const byName: Record<string, string> = Object.fromEntries(list.data.map((s: Json) => [s.name, s.id]));
      return byName;
    });
  newState = () =>
    this.once(
      'newState',
      async () =>
        (await this.call('POST', `${await this.pr()}/states/`, { name: 'Fixture', color: '#123456', group: 'started' }))
          .id,
    );
  workItem = (state?: string) =>
    this.once(`workItem:${state}`, async () =>
      this.call('POST', `${await this.pr()}/work-items/`, { name: 'Fixture item', state }),
    );
  archivedItem = () =>
    this.once('archived', async () => {
      const item = await this.workItem('Done');
      await this.call('POST', `${await this.pr()}/work-items/${item.id}/archive/`, undefined, 200);
      return item;
    });
  comment = async () =>
    (
      await this.call('POST', `${await this.pr()}/work-items/${(await this.workItem()).id}/comments/`, {
        comment_html: '<p>x</p>',
      })
    ).id;
  label = async (workspace: boolean) =>
    (await this.call('POST', `${workspace ? this.ws : await this.pr()}/labels/`, { name: 'Fixture label' })).id;
  /** A workspace member (role member) who is on no project. */
  member = () => this.once('member', () => this.t.member(this.ten.slug, 'member'));
  workspaceMembership = async () => {
    const user = await this.member();
    const list = await this.call('GET', `${this.ws}/members/?per_page=200`);
    return list.data.find((m: Json) => m.member_id === user.id).id;
  };
  projectMembership = async () =>
    (
      await this.call('POST', `${await this.pr()}/members/`, {
        member_id: (await this.member()).id,
        role: 'contributor',
      })
    ).id;
  cycle = (name = 'Fixture cycle', body: Json = {}) =>
    this.once(
      `cycle:${name}`,
      async () => (await this.call('POST', `${await this.pr()}/cycles/`, { name, ...body })).id,
    );
  module = async (status?: string) =>
    (await this.call('POST', `${await this.pr()}/modules/`, { name: 'Fixture module', status })).id;
  estimate = () =>
    this.once(
      'estimate',
      async () =>
        (await this.call('POST', `${await this.pr()}/estimates/`, { name: 'Fixture estimate', type: 'categories' })).id,
    );
  point = async () =>
    (await this.call('POST', `${await this.pr()}/estimates/${await this.estimate()}/points/`, { value: 'S' })).id;
  workflow = () =>
    this.once(
      'workflow',
      async () => (await this.call('POST', `${await this.pr()}/workflows/`, { name: 'Fixture flow' })).id,
    );
  /** The workflow's row of the Backlog state (EXAMPLE_REFS.state is Todo, so a transition can go there). */
  workflowState = () =>
    this.once('workflowState', async () => {
      const url = `${await this.pr()}/workflows/${await this.workflow()}/states/`;
      return (await this.call('POST', url, { state_id: (await this.states()).Backlog })).id;
    });
  transition = async () => {
    const url = `${await this.pr()}/workflows/${await this.workflow()}/state-transitions/`;
    const body = {
      workflow_state_id: await this.workflowState(),
      transition_state_id: (await this.states())['In Progress'],
    };
    return (await this.call('POST', url, body)).id;
  };
  /**
   * The surface's base URL for types and properties, with the workspace in the matching mode. In workspace mode the
   * first type becomes the default (which cannot be deleted): one is made here, so the fixture type is another.
   */
  typeBase = () =>
    this.once('typeBase', async () => {
      await this.call('PATCH', `${this.ws}/features/`, { is_work_item_types_enabled: this.surface === 'workspace' });
      if (this.surface === 'project') return this.pr();
      await this.call('POST', `${this.ws}/work-item-types/`, { name: 'Default fixture type' });
      return this.ws;
    });
  type = () =>
    this.once(
      'type',
      async () => (await this.call('POST', `${await this.typeBase()}/work-item-types/`, { name: 'Fixture type' })).id,
    );
  property = () =>
    this.once('property', async () => {
      const body = { display_name: 'Fixture property', property_type: 'OPTION', options: [{ name: 'One' }] };
      return (await this.call('POST', `${await this.typeBase()}/work-item-properties/`, body)).id;
    });
  option = async () =>
    (
      await this.call('POST', `${await this.typeBase()}/work-item-properties/${await this.property()}/options/`, {
        name: 'Two',
      })
    ).id;
  typeProperty = async () => {
    const url = `${await this.typeBase()}/work-item-types/${await this.type()}/properties/`;
    await this.call('POST', url, { properties: [await this.property()] });
    return this.property();
  };
  context = async () => {
    const url = `${this.ws}/work-item-properties/${await this.property()}/contexts/`;
    const body = {
      name: 'Fixture context',
      project_ids: [(await this.project()).id],
      applies_to_all_work_item_types: true,
    };
    return (await this.call('POST', url, body)).id;
  };
  otherWorkItem = () =>
    this.once('otherWorkItem', async () => this.call('POST', `${await this.pr()}/work-items/`, { name: 'Other item' }));
  blocksDefinition = () =>
    this.once('blocks', async () => {
      const list = await this.call('GET', `${this.ws}/work-item-relation-definitions/`);
      return list.data.find((d: Json) => d.outward === 'blocks').id as string;
    });
  link = async () =>
    (
      await this.call('POST', `${await this.pr()}/work-items/${(await this.workItem()).id}/links/`, {
        url: `https://example.com/${Math.random()}`,
      })
    ).id;
  definition = async () =>
    (
      await this.call('POST', `${this.ws}/work-item-relation-definitions/`, {
        name: 'Fixture relation',
        outward: 'fixes',
        inward: 'is fixed by',
      })
    ).id;
  /** The other end of a relation (`dependencies`: of a dependency) of the fixture work item. */
  related = async (dependency: boolean) => {
    const other = (await this.otherWorkItem()).id;
    const base = `${await this.pr()}/work-items/${(await this.workItem()).id}`;
    if (dependency)
      await this.call('POST', `${base}/dependencies/`, { relation_type: 'blocking', work_item_ids: [other] });
    else
      await this.call('POST', `${base}/relations/`, {
        relation_definition_id: await this.blocksDefinition(),
        direction: 'blocks',
        work_item_ids: [other],
      });
    return other;
  };
  activity = async () =>
    (await this.call('GET', `${await this.pr()}/work-items/${(await this.workItem()).id}/activities/`)).data[0].id;
  /** A webhook to a local address: no allow-list here, so each delivery is refused (a log row, no traffic). */
  newWebhook = async () =>
    (await this.call('POST', `${this.ws}/webhooks/`, { url: 'http://localhost:9/fixture', scopes: ['project.*'] })).id;
  webhook = () => this.once('webhook', this.newWebhook);
  /** A delivery attempt of `webhook()`: a project created makes one, refused at connect time. */
  webhookLog = () =>
    this.once('webhookLog', async () => {
      const id = await this.webhook();
      await this.call('POST', `${this.ws}/projects/`, { name: 'Delivered project', identifier: 'DLV' });
      for (let i = 0; i < 500; i++) {
        const list = await this.call('GET', `${this.ws}/webhook-logs/${id}/`);
        if (list.data.length) return list.data[0].id as string;
        await new Promise((r) => setTimeout(r, 40));
      }
      throw new Error('no webhook log row within 20 s');
    });
  auditEntry = async () => {
    await this.project();
    return (await this.call('GET', `${this.ws}/audit-logs/?per_page=1`)).data[0].id;
  };
}

/** The record a `{pk}` names: the collection segment before it decides. */
async function primaryKey(path: string, op: Operation, fx: Fixtures): Promise<string> {
  const segment = path.split('/{pk}/')[0].split('/').pop() ?? '';
  const inProject = path.includes('/projects/{project_id}/');
  const workItemAction = /\/work-items\/\{pk\}\/(archive|unarchive)\/$/.exec(path)?.[1];
  switch (segment) {
    case 'audit-logs':
      return fx.auditEntry();
    case 'webhooks':
      return fx.newWebhook();
    case '{webhook_id}': // webhook-logs/{webhook_id}/{pk}/
      return fx.webhookLog();
    case 'labels':
      return fx.label(!inProject);
    case 'members':
      return inProject ? fx.projectMembership() : fx.workspaceMembership();
    case 'cycles':
      // A transfer moves the work items of a cycle to another one (EXAMPLE_REFS.cycle).
      // Only a cycle that has ended can be archived (issue 20).
      if (op.operationId === 'cycles_archive')
        return fx.cycle('Ended cycle', { start_date: '2024-01-01T00:00:00Z', end_date: '2024-01-14T00:00:00Z' });
      return fx.cycle(op.operationId.includes('transfer') ? 'Source cycle' : undefined);
    case 'estimates':
      return fx.estimate();
    case 'points':
      return fx.point();
    case 'modules':
      // Only a completed or cancelled module can be archived (issue 20).
      return fx.module(op.operationId === 'modules_archive' ? 'completed' : undefined);
    case 'states':
      return path.includes('/workflows/') ? fx.workflowState() : fx.newState();
    case 'state-transitions':
      return fx.transition();
    case 'workflows':
      return fx.workflow();
    case 'work-items':
      if (workItemAction === 'unarchive') return (await fx.archivedItem()).id;
      return (await fx.workItem(workItemAction === 'archive' ? 'Done' : undefined)).id;
    case 'comments':
      return fx.comment();
    case 'work-item-types':
      return fx.type();
    case 'work-item-properties':
      return fx.property();
    case 'options':
      return fx.option();
    case 'properties':
      return fx.typeProperty();
    case 'contexts':
      return fx.context();
    case 'links':
      return fx.link();
    case 'activities':
      return fx.activity();
    case 'work-item-relation-definitions':
      return fx.definition();
    case 'relations':
      return fx.related(false);
    case 'dependencies':
      return fx.related(true);
  }
  throw new Error(`no fixture for {pk} after "${segment}" in ${path}`);
}

async function pathParam(name: string, op: Operation, fx: Fixtures): Promise<string> {
  switch (name) {
    case 'slug':
      return fx.ten.slug;
    case 'project_id':
      return (await fx.project()).id;
    case 'work_item_id':
      return (await fx.workItem()).id;
    case 'estimate_id':
      return fx.estimate();
    case 'workflow_id':
      return fx.workflow();
    case 'property_id':
      return fx.property();
    case 'type_id':
      return fx.type();
    case 'webhook_id':
      return fx.webhook();
    case 'identifier': {
      const item = await fx.workItem();
      return `${(await fx.project()).identifier}-${item.sequence_id}`;
    }
    case 'pk':
      return primaryKey(op.path, op, fx);
  }
  throw new Error(`no fixture for path parameter {${name}} in ${op.path}`);
}

/** The example with each made-up id (EXAMPLE_REFS) replaced by the id of a record of this workspace. */
async function withFixtureRefs(example: unknown, fx: Fixtures): Promise<unknown> {
  const refs: Record<string, () => Promise<string>> = {
    [EXAMPLE_REFS.user]: async () => (await fx.member()).id,
    [EXAMPLE_REFS.memberEmail]: async () => (await fx.member()).email,
    [EXAMPLE_REFS.cycle]: () => fx.cycle(),
    [EXAMPLE_REFS.workItem]: async () => (await fx.workItem()).id,
    [EXAMPLE_REFS.state]: async () => (await fx.states()).Todo,
    [EXAMPLE_REFS.workflowState]: () => fx.workflowState(),
    [EXAMPLE_REFS.workItemType]: () => fx.type(),
    [EXAMPLE_REFS.property]: () => fx.property(),
    [EXAMPLE_REFS.project]: async () => (await fx.project()).id,
    [EXAMPLE_REFS.otherWorkItem]: async () => (await fx.otherWorkItem()).id,
    [EXAMPLE_REFS.relationDefinition]: () => fx.blocksDefinition(),
  };
  const walk = async (v: unknown): Promise<unknown> => {
    if (typeof v === 'string') return refs[v] ? refs[v]() : v;
    if (Array.isArray(v)) return Promise.all(v.map(walk));
    if (v && typeof v === 'object')
      return Object.fromEntries(await Promise.all(Object.entries(v).map(async ([k, x]) => [k, await walk(x)])));
    return v;
  };
  return walk(example);
}

function operations(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const body = op.requestBody?.content?.['application/json'];
      const success = Object.keys(op.responses).find((s) => s.startsWith('2'));
      out.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        example: body?.example,
        hasBody: !!body,
        success: Number(success),
        successes: Object.keys(op.responses)
          .filter((s) => s.startsWith('2'))
          .map(Number),
      });
    }
  }
  return out;
}

async function run(t: TestApp, op: Operation): Promise<string | null> {
  const surface: Surface =
    /^\/api\/v2\/workspaces\/\{slug\}\/work-item-(types|properties)\//.test(op.path) || op.path.endsWith('/import/')
      ? 'workspace'
      : 'project';
  const fx = new Fixtures(t, await t.tenant(), surface);
  if (surface === 'workspace') await fx.typeBase();
  let url = op.path;
  for (const [, name] of op.path.matchAll(/\{(\w+)\}/g)) url = url.replace(`{${name}}`, await pathParam(name, op, fx));
  let req = t.http[op.method.toLowerCase() as 'get'](url).set('X-Api-Key', fx.ten.owner.key);
  if (op.hasBody) req = req.send((await withFixtureRefs(op.example, fx)) as object);
  const res = await req;
  return op.successes.includes(res.status)
    ? null
    : `${op.method} ${op.path} (${op.operationId}): ${res.status}, documented ${op.success}: ${JSON.stringify(res.body)}`;
}

/** Every problem example of the document: operation, status, and the example body. */
function problemExamples(doc: Json): Array<{ op: string; status: number; body: Json }> {
  const out: Array<{ op: string; status: number; body: Json }> = [];
  for (const item of Object.values<Json>(doc.paths)) {
    for (const op of Object.values<Json>(item)) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const media = response.content?.['application/problem+json'];
        if (!media) continue;
        const bodies = media.example ? [media.example] : Object.values<Json>(media.examples ?? {}).map((e) => e.value);
        if (!bodies.length) out.push({ op: op.operationId, status: Number(status), body: {} });
        for (const body of bodies) out.push({ op: op.operationId, status: Number(status), body });
      }
    }
  }
  return out;
}

describe('OpenAPI examples', () => {
  let t: TestApp;
  let doc: Json;
  let ops: Operation[];
  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.http.get('/api/v2/schema/');
    expect(res.status).toBe(200);
    doc = res.body;
    ops = operations(doc);
  });
  afterAll(() => t?.close());

  it('every problem response shows an example of its own status, code and title from the error-code table', () => {
    const examples = problemExamples(doc);
    expect(examples.length).toBeGreaterThan(1000);
    const wrong = examples.filter(({ status, body }) => {
      const row = ERROR_CODES[body.code as ErrorCode];
      return (
        !row ||
        row.status !== status ||
        body.status !== status ||
        body.title !== row.title ||
        body.type !== `${BASE_URL}/errors/${body.code}` ||
        typeof body.detail !== 'string'
      );
    });
    expect(wrong).toEqual([]);
    // The cursor refusal only where a list can answer it.
    const bad = (path: string, method: string) =>
      doc.paths[path][method].responses['400'].content['application/problem+json'];
    expect(bad('/api/v2/workspaces/{slug}/projects/{project_id}/work-items/', 'post').example.code).toBe(
      'validation_error',
    );
    expect(Object.keys(bad('/api/v2/workspaces/{slug}/projects/', 'get').examples)).toEqual([
      'validation_error',
      'ordering_not_cursor_eligible',
    ]);
    // The mode-gated writes document both their 409s.
    const create = doc.paths['/api/v2/workspaces/{slug}/work-item-types/'].post.responses['409'];
    expect(Object.keys(create.content['application/problem+json'].examples).sort()).toEqual([
      'conflict',
      'idempotency_key_in_use',
      'work_item_types_managed_at_project',
    ]);
  });

  it("a real refusal carries the code, title and type of the operation's documented example", async () => {
    const ten = await t.tenant();
    const project = await t.project(ten.slug, ten.owner.key);
    const guest = await t.member(ten.slug, 'guest');
    const path = '/api/v2/workspaces/{slug}/projects/{project_id}/work-items/';
    const url = `/api/v2/workspaces/${ten.slug}/projects/${project.id}/work-items/`;
    const documented = (status: number) => {
      const media = doc.paths[path].post.responses[String(status)].content['application/problem+json'];
      return media.example ?? Object.values<Json>(media.examples)[0].value;
    };
    const answers: Array<[number, request.Response]> = [
      [401, await t.http.post(url).send({ name: 'x' })],
      [403, await t.http.post(url).set('X-Api-Key', guest.key).send({ name: 'x' })],
      [404, await t.http.post(url.replace(ten.slug, 'no-such-workspace')).set('X-Api-Key', ten.owner.key).send({})],
      [400, await t.http.post(url).set('X-Api-Key', ten.owner.key).set('Content-Type', 'application/json').send('{')],
      [415, await t.http.post(url).set('X-Api-Key', ten.owner.key).set('Content-Type', 'text/plain').send('x')],
    ];
    for (const [status, res] of answers) {
      const { detail: _d, errors: _e, ...shape } = documented(status);
      expect({ status: res.status, ...res.body }).toEqual(expect.objectContaining({ ...shape, status }));
    }
    // The 400 example of an operation with a body is the malformed-JSON one, word for word.
    expect(answers[3][1].body).toEqual(documented(400));
  });

  it('every operation with a JSON body has a request example, sending one form of each relation', () => {
    const missing = ops.filter((o) => o.hasBody && o.example === undefined).map((o) => o.operationId);
    expect(missing).toEqual([]);
    const pairs: Array<[string, string]> = [
      ['state_id', 'state'],
      ['type_id', 'type'],
      ['parent_id', 'parent'],
      ['label_ids', 'labels'],
      ['assignee_ids', 'assignees'],
      ['estimate_point_id', 'estimate'],
    ];
    const both = ops.filter((o) => {
      const ex = (o.example ?? {}) as Json;
      return pairs.some(([id, name]) => id in ex && name in ex);
    });
    expect(both.map((o) => o.operationId)).toEqual([]);
  });

  it('every operation answers its documented success status to its example, sent as it is', async () => {
    expect(ops.length).toBeGreaterThan(100);
    const failures: string[] = [];
    for (let i = 0; i < ops.length; i += 4) {
      const results = await Promise.all(ops.slice(i, i + 4).map((op) => run(t, op).catch((e: Error) => e.message)));
      failures.push(...results.filter((r): r is string => r !== null));
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
