import { ProjectContext } from '../../src/common/auth/request-context';
import { ProjectRole, WorkspaceRole } from '../../src/common/auth/roles';
import { ProblemException } from '../../src/common/errors/problem.exception';
import { WorkflowsService } from '../../src/workflows/workflows.service';
import { auditEntries } from '../helpers/audit';
import { createTestApp, expectProblem, Tenant, TestApp } from '../helpers/test-app';

describe('workflows', () => {
  let t: TestApp;
  let ten: Tenant;
  let projectId: string;
  let base: string;
  let states: Record<string, string>;
  const key = () => ({ 'X-Api-Key': ten.owner.key });

  const stateIds = async (slug: string, pid: string, k: string) => {
    const res = await t.http.get(`/api/v2/workspaces/${slug}/projects/${pid}/states/`).set({ 'X-Api-Key': k });
    return Object.fromEntries(res.body.data.map((s: any) => [s.name, s.id])) as Record<string, string>;
  };

  beforeAll(async () => {
    t = await createTestApp();
    ten = await t.tenant();
    projectId = (await t.project(ten.slug, ten.owner.key)).id;
    base = `/api/v2/workspaces/${ten.slug}/projects/${projectId}/workflows/`;
    states = await stateIds(ten.slug, projectId, ten.owner.key);
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>, url = base) => t.http.post(url).set(key()).send(body);
  const wsUrl = (wf: string, url = base) => `${url}${wf}/states/`;
  const trUrl = (wf: string, url = base) => `${url}${wf}/state-transitions/`;

  describe('configuration endpoints', () => {
    it('workflow CRUD: shape, one active and one default per project, duplicate name 409', async () => {
      const task = (
        await t.http.post(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/work-item-types/enable/`).set(key())
      ).body;
      const a = await create({
        name: 'Main',
        description: 'd',
        is_active: true,
        is_default: true,
        work_item_type_ids: [task.id.toUpperCase(), task.id],
      });
      expect(a.status).toBe(201);
      expect(a.body).toEqual({
        id: expect.any(String),
        name: 'Main',
        description: 'd',
        is_active: true,
        is_default: true,
        work_item_type_ids: [task.id],
        created_at: expect.any(String),
        created_by_id: ten.owner.id,
      });
      // Types must be on the project's roster: unknown ids and another workspace's types are 400 naming the field.
      const otherTen = await t.tenant();
      const otherProject = await t.project(otherTen.slug, otherTen.owner.key);
      const foreignType = (
        await t.http
          .post(`/api/v2/workspaces/${otherTen.slug}/projects/${otherProject.id}/work-item-types/enable/`)
          .set({ 'X-Api-Key': otherTen.owner.key })
      ).body;
      for (const ids of [['00000000-0000-4000-8000-0000000000aa'], [foreignType.id], [task.id, foreignType.id]]) {
        const bad = expectProblem(await create({ name: 'Typed', work_item_type_ids: ids }), 400, 'validation_error');
        expect(bad.errors.map((e: { field: string }) => e.field)).toEqual(['work_item_type_ids']);
      }
      expectProblem(
        await t.http
          .patch(`${base}${a.body.id}/`)
          .set(key())
          .send({ work_item_type_ids: [foreignType.id] }),
        400,
        'validation_error',
      );
      const b = await create({ name: 'Second' });
      expect(b.body).toMatchObject({ is_active: false, is_default: false, work_item_type_ids: [], description: '' });
      expectProblem(await create({ name: 'Main' }), 409, 'conflict');
      expectProblem(await t.http.patch(`${base}${b.body.id}/`).set(key()).send({ name: 'Main' }), 409, 'conflict');
      expect(expectProblem(await create({}), 400, 'validation_error').errors[0].field).toBe('name');
      expect(
        expectProblem(await create({ name: 'x', work_item_type_ids: ['nope'] }), 400, 'validation_error').errors[0]
          .field,
      ).toBe('work_item_type_ids');
      const act = await t.http.patch(`${base}${b.body.id}/`).set(key()).send({ is_active: true, is_default: true });
      expect(act.body).toMatchObject({ is_active: true, is_default: true, name: 'Second' });
      expect((await t.http.get(`${base}${a.body.id}/`).set(key())).body).toMatchObject({
        is_active: false,
        is_default: false,
      });
      expect((await t.http.get(`${base}?is_active=true`).set(key())).body.data.map((w: any) => w.id)).toEqual([
        b.body.id,
      ]);
      expect((await t.http.get(`${base}?search=main`).set(key())).body.data.map((w: any) => w.id)).toEqual([a.body.id]);
      const p = await t.http
        .patch(`${base}${a.body.id}/`)
        .set(key())
        .send({ description: null, work_item_type_ids: [] });
      expect(p.body).toMatchObject({ description: '', work_item_type_ids: [] });
      // clean up: deleting removes it (and its rows)
      expect((await t.http.delete(`${base}${a.body.id}/`).set(key())).status).toBe(204);
      expectProblem(await t.http.get(`${base}${a.body.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.delete(`${base}${a.body.id}/`).set(key()), 404, 'resource_not_found');
      await t.http.delete(`${base}${b.body.id}/`).set(key());
    });

    it('attach form {state_ids}: answers the array of rows in the order sent, idempotent, all-or-nothing on a foreign id', async () => {
      const wf = await create({ name: 'Attach wf' });
      const url = wsUrl(wf.body.id);
      const first = await t.http.post(url).set(key()).send({ state_id: states.Todo, allow_issue_creation: false });
      expect(first.status).toBe(201);
      const before = await auditEntries(t, ten, { target_id: wf.body.id });
      const r = await t.http
        .post(url)
        .set(key())
        .send({ state_ids: [states.Done, states.Todo, states.Done.toUpperCase()] });
      expect(r.status).toBe(201);
      expect(r.body).toEqual([
        {
          id: expect.any(String),
          workflow_id: wf.body.id,
          state_id: states.Done,
          allow_issue_creation: true,
          is_default: false,
        },
        // already attached: kept as it was (allow_issue_creation false), not a 409
        { ...first.body },
      ]);
      const after = await auditEntries(t, ten, { target_id: wf.body.id });
      expect(after.length - before.length).toBe(1);
      const again = await t.http
        .post(url)
        .set(key())
        .send({ state_ids: [states.Done] });
      expect(again.body).toEqual([r.body[0]]);
      expect((await t.http.get(url).set(key())).body.data).toHaveLength(2);
      // a state of another project: 400 naming state_ids, and the valid ids beside it are not attached either
      const p2 = await t.project(ten.slug, ten.owner.key);
      const s2 = await stateIds(ten.slug, p2.id, ten.owner.key);
      const bad = expectProblem(
        await t.http
          .post(url)
          .set(key())
          .send({ state_ids: [states.Backlog, s2.Todo] }),
        400,
        'validation_error',
      );
      expect(bad.errors[0].field).toBe('state_ids');
      expect((await t.http.get(url).set(key())).body.data).toHaveLength(2);
      // malformed: empty, not uuids, both forms, is_default with the array; unknown workflow 404
      for (const body of [
        { state_ids: [] },
        { state_ids: ['x'] },
        { state_ids: [states.Backlog], state_id: states.Backlog },
        { state_ids: [states.Backlog], is_default: true },
      ]) {
        expectProblem(await t.http.post(url).set(key()).send(body), 400, 'validation_error');
      }
      expectProblem(
        await t.http
          .post(wsUrl('00000000-0000-4000-8000-000000000000'))
          .set(key())
          .send({ state_ids: [states.Backlog] }),
        404,
        'resource_not_found',
      );
    });

    it('workflow states: shape, state must be a project state (400 naming state_id), one row per state (409), default per workflow', async () => {
      const wf = await create({ name: 'States wf' });
      const url = wsUrl(wf.body.id);
      const r = await t.http.post(url).set(key()).send({ state_id: states.Todo });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.any(String),
        workflow_id: wf.body.id,
        state_id: states.Todo,
        allow_issue_creation: true,
        is_default: false,
      });
      expectProblem(await t.http.post(url).set(key()).send({ state_id: states.Todo }), 409, 'conflict');
      // another project's state, another workspace's state, nonsense
      const p2 = await t.project(ten.slug, ten.owner.key);
      const s2 = await stateIds(ten.slug, p2.id, ten.owner.key);
      expect(
        expectProblem(await t.http.post(url).set(key()).send({ state_id: s2.Todo }), 400, 'validation_error').errors[0]
          .field,
      ).toBe('state_id');
      const other = await t.tenant();
      const op = await t.project(other.slug, other.owner.key);
      const os = await stateIds(other.slug, op.id, other.owner.key);
      expect(
        expectProblem(await t.http.post(url).set(key()).send({ state_id: os.Todo }), 400, 'validation_error').errors[0]
          .field,
      ).toBe('state_id');
      expectProblem(await t.http.post(url).set(key()).send({}), 400, 'validation_error');
      const d1 = await t.http
        .post(url)
        .set(key())
        .send({ state_id: states.Backlog, is_default: true, allow_issue_creation: false });
      expect(d1.body).toMatchObject({ is_default: true, allow_issue_creation: false });
      const d2 = await t.http.patch(`${url}${r.body.id}/`).set(key()).send({ is_default: true });
      expect(d2.body.is_default).toBe(true);
      expect((await t.http.get(`${url}${d1.body.id}/`).set(key())).body.is_default).toBe(false);
      expect(
        (await t.http.get(`${url}?state_id=${states.Backlog}`).set(key())).body.data.map((x: any) => x.id),
      ).toEqual([d1.body.id]);
      expect(
        (await t.http.get(`${url}?allow_issue_creation=false`).set(key())).body.data.map((x: any) => x.id),
      ).toEqual([d1.body.id]);
      expectProblem(
        await t.http.patch(`${url}${r.body.id}/`).set(key()).send({ state_id: states.Backlog }),
        409,
        'conflict',
      );
      expectProblem(
        await t.http.patch(`${url}${r.body.id}/`).set(key()).send({ state_id: s2.Done }),
        400,
        'validation_error',
      );
      expect(
        (await t.http.patch(`${url}${r.body.id}/`).set(key()).send({ state_id: states['In Progress'] })).body.state_id,
      ).toBe(states['In Progress']);
      expect((await t.http.delete(`${url}${r.body.id}/`).set(key())).status).toBe(204);
      expectProblem(await t.http.get(`${url}${r.body.id}/`).set(key()), 404, 'resource_not_found');
      // a workflow state of another workflow is 404 under this one
      const wf2 = await create({ name: 'Other wf' });
      expectProblem(await t.http.get(`${wsUrl(wf2.body.id)}${d1.body.id}/`).set(key()), 404, 'resource_not_found');
    });

    it('transitions: shape, validation of every state field and members, no self-transition, no duplicates', async () => {
      const wf = await create({ name: 'Transitions wf' });
      const fromTodo = (await t.http.post(wsUrl(wf.body.id)).set(key()).send({ state_id: states.Todo })).body;
      const url = trUrl(wf.body.id);
      const contributor = await t.member(ten.slug, 'member');
      await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/members/`)
        .set(key())
        .send({ member_id: contributor.id, role: 'contributor' });
      const outsider = await t.member(ten.slug, 'member');
      const r = await t.http
        .post(url)
        .set(key())
        .send({
          workflow_state_id: fromTodo.id,
          transition_state_id: states['In Progress'],
          rejection_state_id: states.Backlog,
          required_approvals: 1,
          member_ids: [contributor.id, contributor.id, ten.owner.id],
        });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        id: expect.any(String),
        workflow_state_id: fromTodo.id,
        transition_state_id: states['In Progress'],
        rejection_state_id: states.Backlog,
        required_approvals: 1,
        member_ids: [contributor.id, ten.owner.id],
      });
      expectProblem(
        await t.http
          .post(url)
          .set(key())
          .send({ workflow_state_id: fromTodo.id, transition_state_id: states['In Progress'] }),
        409,
        'conflict',
      );
      const field = async (body: Record<string, unknown>) =>
        expectProblem(await t.http.post(url).set(key()).send(body), 400, 'validation_error').errors[0].field;
      const p2 = await t.project(ten.slug, ten.owner.key);
      const s2 = await stateIds(ten.slug, p2.id, ten.owner.key);
      expect(await field({ workflow_state_id: fromTodo.id, transition_state_id: s2.Done })).toBe('transition_state_id');
      expect(
        await field({
          workflow_state_id: fromTodo.id,
          transition_state_id: states.Done,
          rejection_state_id: s2.Backlog,
        }),
      ).toBe('rejection_state_id');
      expect(await field({ workflow_state_id: fromTodo.id, transition_state_id: states.Todo })).toBe(
        'transition_state_id',
      );
      expect(await field({ workflow_state_id: states.Todo, transition_state_id: states.Done })).toBe(
        'workflow_state_id',
      );
      expect(
        await field({ workflow_state_id: fromTodo.id, transition_state_id: states.Done, member_ids: [outsider.id] }),
      ).toBe('member_ids');
      expect(
        await field({ workflow_state_id: fromTodo.id, transition_state_id: states.Done, required_approvals: -1 }),
      ).toBe('required_approvals');
      expect(
        await field({ workflow_state_id: fromTodo.id, transition_state_id: states.Done, required_approvals: 1e10 }),
      ).toBe('required_approvals');
      // a workflow state of another workflow
      const wf2 = await create({ name: 'Transitions wf 2' });
      const foreignWs = (await t.http.post(wsUrl(wf2.body.id)).set(key()).send({ state_id: states.Todo })).body;
      expect(await field({ workflow_state_id: foreignWs.id, transition_state_id: states.Done })).toBe(
        'workflow_state_id',
      );
      // PATCH, list, filters, delete
      const p = await t.http
        .patch(`${url}${r.body.id}/`)
        .set(key())
        .send({ rejection_state_id: null, member_ids: [], transition_state_id: states.Done });
      expect(p.body).toMatchObject({
        rejection_state_id: null,
        member_ids: [],
        transition_state_id: states.Done,
        required_approvals: 1,
      });
      expect(
        expectProblem(
          await t.http.patch(`${url}${r.body.id}/`).set(key()).send({ transition_state_id: states.Todo }),
          400,
          'validation_error',
        ).errors[0].field,
      ).toBe('transition_state_id');
      expect((await t.http.get(`${url}?transition_state_id=${states.Done}`).set(key())).body.data).toHaveLength(1);
      expect((await t.http.get(`${url}?workflow_state_id=${fromTodo.id}`).set(key())).body.data).toHaveLength(1);
      expect((await t.http.get(`${url}${r.body.id}/`).set(key())).body.id).toBe(r.body.id);
      expectProblem(await t.http.get(`${trUrl(wf2.body.id)}${r.body.id}/`).set(key()), 404, 'resource_not_found');
      // deleting the workflow state removes its transitions
      expect((await t.http.delete(`${wsUrl(wf.body.id)}${fromTodo.id}/`).set(key())).status).toBe(204);
      expectProblem(await t.http.get(`${url}${r.body.id}/`).set(key()), 404, 'resource_not_found');
    });

    it('deleting a project state removes the workflow rows that name it', async () => {
      const st = await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/states/`)
        .set(key())
        .send({ name: 'Temp', color: '#fff' });
      const wf = await create({ name: 'Cascade wf' });
      const fromTemp = (await t.http.post(wsUrl(wf.body.id)).set(key()).send({ state_id: st.body.id })).body;
      const fromTodo = (await t.http.post(wsUrl(wf.body.id)).set(key()).send({ state_id: states.Todo })).body;
      const out = (
        await t.http
          .post(trUrl(wf.body.id))
          .set(key())
          .send({ workflow_state_id: fromTemp.id, transition_state_id: states.Done })
      ).body;
      const into = (
        await t.http
          .post(trUrl(wf.body.id))
          .set(key())
          .send({ workflow_state_id: fromTodo.id, transition_state_id: st.body.id })
      ).body;
      expect(
        (await t.http.delete(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/states/${st.body.id}/`).set(key()))
          .status,
      ).toBe(204);
      expectProblem(await t.http.get(`${wsUrl(wf.body.id)}${fromTemp.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.get(`${trUrl(wf.body.id)}${out.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.get(`${trUrl(wf.body.id)}${into.id}/`).set(key()), 404, 'resource_not_found');
      expect((await t.http.get(`${wsUrl(wf.body.id)}${fromTodo.id}/`).set(key())).status).toBe(200);
    });

    it('records workflow.created / workflow.updated / workflow.deleted in the audit trail (settings, old and new values)', async () => {
      const wf = await create({ name: 'Audited' });
      await t.http.patch(`${base}${wf.body.id}/`).set(key()).send({ name: 'Audited 2' });
      const row = (
        await t.http.post(wsUrl(wf.body.id)).set(key()).send({ state_id: states.Done, allow_issue_creation: false })
      ).body;
      await t.http.delete(`${base}${wf.body.id}/`).set(key());
      const logs = await auditEntries(t, ten, { target_type: 'workflow', target_id: wf.body.id });
      expect(logs.map((l) => [l.event_name, l.metadata.change])).toEqual([
        ['workflow.created', 'workflow.created'],
        ['workflow.updated', 'workflow.updated'],
        ['workflow.updated', 'workflow_state.created'],
        ['workflow.deleted', 'workflow.deleted'],
      ]);
      for (const l of logs) {
        expect(l).toMatchObject({
          category: 'settings',
          outcome: 'success',
          source: 'api',
          actor_type: 'api_token',
          actor_id: ten.owner.id,
          actor_email: ten.owner.email,
          target_type: 'workflow',
          workspace_id: ten.workspaceId,
          project_id: projectId,
        });
      }
      expect(logs[0].old_value).toBeNull();
      expect(logs[0].new_value).toMatchObject({ id: wf.body.id, name: 'Audited' });
      expect(logs[1].old_value.name).toBe('Audited');
      expect(logs[1].new_value.name).toBe('Audited 2');
      expect(logs[2].old_value).toBeNull();
      expect(logs[2].new_value).toMatchObject({ id: row.id, allow_issue_creation: false });
      expect(logs[3].old_value).toMatchObject({ id: wf.body.id, name: 'Audited 2' });
      expect(logs[3].new_value).toBeNull();
    });

    it("tenant wall: another project's or workspace's workflow is 404 on every nested path", async () => {
      const other = await t.tenant();
      const op = await t.project(other.slug, other.owner.key);
      const oBase = `/api/v2/workspaces/${other.slug}/projects/${op.id}/workflows/`;
      const owf = await t.http.post(oBase).set({ 'X-Api-Key': other.owner.key }).send({ name: 'Theirs' });
      expectProblem(await t.http.get(`${base}${owf.body.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(
        await t.http.patch(`${base}${owf.body.id}/`).set(key()).send({ name: 'x' }),
        404,
        'resource_not_found',
      );
      expectProblem(await t.http.delete(`${base}${owf.body.id}/`).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.get(wsUrl(owf.body.id)).set(key()), 404, 'resource_not_found');
      expectProblem(
        await t.http.post(wsUrl(owf.body.id)).set(key()).send({ state_id: states.Todo }),
        404,
        'resource_not_found',
      );
      expectProblem(await t.http.get(trUrl(owf.body.id)).set(key()), 404, 'resource_not_found');
      expectProblem(await t.http.get(oBase).set(key()), 404, 'resource_not_found');
      expect(
        expectProblem(await t.http.get(`${base}nope/states/`).set(key()), 400, 'validation_error').errors[0].field,
      ).toBe('workflow_id');
    });

    it('roles and scopes: guest reads; contributor 403 on writes; projects.workflows scopes', async () => {
      const wf = await create({ name: 'Roles wf' });
      const guest = await t.member(ten.slug, 'guest');
      const contrib = await t.member(ten.slug, 'member');
      await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/members/`)
        .set(key())
        .send({ member_id: guest.id, role: 'guest' });
      await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${projectId}/members/`)
        .set(key())
        .send({ member_id: contrib.id, role: 'contributor' });
      for (const u of [base, `${base}${wf.body.id}/`, wsUrl(wf.body.id), trUrl(wf.body.id)]) {
        expect((await t.http.get(u).set({ 'X-Api-Key': guest.key })).status).toBe(200);
      }
      const c = { 'X-Api-Key': contrib.key };
      expectProblem(await t.http.post(base).set(c).send({ name: 'c' }), 403, 'forbidden');
      expectProblem(await t.http.patch(`${base}${wf.body.id}/`).set(c).send({ name: 'c' }), 403, 'forbidden');
      expectProblem(await t.http.delete(`${base}${wf.body.id}/`).set(c), 403, 'forbidden');
      expectProblem(await t.http.post(wsUrl(wf.body.id)).set(c).send({ state_id: states.Todo }), 403, 'forbidden');
      expectProblem(await t.http.post(trUrl(wf.body.id)).set(c).send({}), 403, 'forbidden');
      const ro = { Authorization: `Bearer ${await t.token(ten.owner.email, ['projects.workflows:read'])}` };
      expect((await t.http.get(base).set(ro)).status).toBe(200);
      expectProblem(await t.http.post(base).set(ro).send({ name: 'x' }), 403, 'forbidden');
      const rw = { Authorization: `Bearer ${await t.token(ten.owner.email, ['projects.workflows:write'])}` };
      expect((await t.http.post(base).set(rw).send({ name: 'By token' })).status).toBe(201);
      const states2 = { Authorization: `Bearer ${await t.token(ten.owner.email, ['projects.states:read'])}` };
      expectProblem(await t.http.get(base).set(states2), 403, 'forbidden');
    });
  });

  describe('enforcement: WorkflowsService.assertCreateAllowed / assertTransitionAllowed', () => {
    let svc: WorkflowsService;
    let pid: string;
    let s: Record<string, string>;
    let url: string;
    let wfId: string;
    let ctx: ProjectContext;
    let member: { id: string };

    const denied = async (p: Promise<void>) => {
      const err = await p.then(
        () => null,
        (e) => e,
      );
      expect(err).toBeInstanceOf(ProblemException);
      expect(err.status).toBe(403);
      expect(err.code).toBe('workflow_transition_denied');
    };
    const allowed = async (p: Promise<void>) =>
      expect(
        await p.then(
          () => 'ok',
          (e) => e,
        ),
      ).toBe('ok');
    const setFlag = (v: boolean) =>
      t.http
        .patch(`/api/v2/workspaces/${ten.slug}/projects/${pid}/features/`)
        .set(key())
        .send({ is_workflow_enabled: v });
    const ctxFor = (userId: string): ProjectContext => ({
      ...ctx,
      principal: { ...ctx.principal, userId },
    });

    beforeAll(async () => {
      svc = t.app.get(WorkflowsService);
      const p = await t.project(ten.slug, ten.owner.key);
      pid = p.id;
      s = await stateIds(ten.slug, pid, ten.owner.key);
      url = `/api/v2/workspaces/${ten.slug}/projects/${pid}/workflows/`;
      ctx = {
        principal: {
          userId: ten.owner.id,
          email: ten.owner.email,
          displayName: 'Owner',
          kind: 'api_key',
          scopes: [],
          credentialId: 'x',
        },
        workspace: { id: ten.workspaceId, slug: ten.slug, name: ten.slug },
        workspaceRole: WorkspaceRole.Owner,
        project: {
          id: pid,
          workspaceId: ten.workspaceId,
          identifier: p.identifier,
          name: 'p',
          defaultAssigneeId: null,
        },
        projectRole: ProjectRole.Admin,
        ip: null,
        userAgent: null,
        requestId: 'test',
      };
      member = await t.member(ten.slug, 'member');
      await t.http
        .post(`/api/v2/workspaces/${ten.slug}/projects/${pid}/members/`)
        .set(key())
        .send({ member_id: member.id, role: 'contributor' });
      // Workflow: Backlog accepts no new items; Todo -> In Progress only; In Progress -> Done (owner only) or Todo; Done: row, no transitions.
      wfId = (await create({ name: 'Rules', is_active: true }, url)).body.id;
      const row = async (state: string, allow = true) =>
        (await t.http.post(wsUrl(wfId, url)).set(key()).send({ state_id: s[state], allow_issue_creation: allow })).body
          .id;
      const backlog = await row('Backlog', false);
      const todo = await row('Todo');
      const inProgress = await row('In Progress');
      await row('Done');
      const tr = (from: string, to: string, members: string[] = []) =>
        t.http
          .post(trUrl(wfId, url))
          .set(key())
          .send({ workflow_state_id: from, transition_state_id: s[to], member_ids: members });
      expect((await tr(todo, 'In Progress')).status).toBe(201);
      expect((await tr(inProgress, 'Done', [ten.owner.id])).status).toBe(201);
      expect((await tr(inProgress, 'Todo')).status).toBe(201);
      expect(backlog).toBeDefined();
    });

    it('nothing is enforced while is_workflow_enabled is off', async () => {
      await setFlag(false);
      await allowed(svc.assertCreateAllowed(t.ds, ctx, s.Backlog));
      await allowed(svc.assertTransitionAllowed(t.ds, ctx, s.Todo, s.Done));
    });

    it('with the feature on and an active workflow: creation follows allow_issue_creation; states without a row are unrestricted', async () => {
      expect((await setFlag(true)).status).toBe(200);
      await denied(svc.assertCreateAllowed(t.ds, ctx, s.Backlog));
      await denied(svc.assertCreateAllowed(t.ds, ctx, s.Backlog.toUpperCase()));
      await allowed(svc.assertCreateAllowed(t.ds, ctx, s.Todo));
      await allowed(svc.assertCreateAllowed(t.ds, ctx, s.Cancelled));
    });

    it('transitions: a state with rules allows only its targets; no rules or no row = unrestricted; same state never a transition', async () => {
      await allowed(svc.assertTransitionAllowed(t.ds, ctx, s.Todo, s['In Progress']));
      await denied(svc.assertTransitionAllowed(t.ds, ctx, s.Todo, s.Done));
      await denied(svc.assertTransitionAllowed(t.ds, ctx, s.Todo, s.Backlog));
      await allowed(svc.assertTransitionAllowed(t.ds, ctx, s['In Progress'], s.Todo));
      await allowed(svc.assertTransitionAllowed(t.ds, ctx, s.Done, s.Backlog)); // row without transitions
      await allowed(svc.assertTransitionAllowed(t.ds, ctx, s.Backlog, s.Done)); // Backlog row has no transitions either
      await allowed(svc.assertTransitionAllowed(t.ds, ctx, s.Cancelled, s.Todo)); // no row at all
      await allowed(svc.assertTransitionAllowed(t.ds, ctx, s.Todo, s.Todo)); // same state
    });

    it('member_ids restrict who may make a move', async () => {
      await allowed(svc.assertTransitionAllowed(t.ds, ctx, s['In Progress'], s.Done));
      await denied(svc.assertTransitionAllowed(t.ds, ctxFor(member.id), s['In Progress'], s.Done));
      await allowed(svc.assertTransitionAllowed(t.ds, ctxFor(member.id), s['In Progress'], s.Todo));
    });

    it('rules follow configuration changes: deactivating or deleting the workflow lifts them; rows deleted lift theirs', async () => {
      await t.http.patch(`${url}${wfId}/`).set(key()).send({ is_active: false });
      await allowed(svc.assertCreateAllowed(t.ds, ctx, s.Backlog));
      await allowed(svc.assertTransitionAllowed(t.ds, ctx, s.Todo, s.Done));
      await t.http.patch(`${url}${wfId}/`).set(key()).send({ is_active: true });
      await denied(svc.assertTransitionAllowed(t.ds, ctx, s.Todo, s.Done));
      // another workflow becoming active replaces this one's rules
      const other = await create({ name: 'Lenient', is_active: true }, url);
      await allowed(svc.assertTransitionAllowed(t.ds, ctx, s.Todo, s.Done));
      await allowed(svc.assertCreateAllowed(t.ds, ctx, s.Backlog));
      await t.http.patch(`${url}${wfId}/`).set(key()).send({ is_active: true });
      await denied(svc.assertCreateAllowed(t.ds, ctx, s.Backlog));
      // allow creation through PATCH of the workflow state
      const rows = (await t.http.get(`${wsUrl(wfId, url)}?state_id=${s.Backlog}`).set(key())).body.data;
      await t.http
        .patch(`${wsUrl(wfId, url)}${rows[0].id}/`)
        .set(key())
        .send({ allow_issue_creation: true });
      await allowed(svc.assertCreateAllowed(t.ds, ctx, s.Backlog));
      await t.http.delete(`${url}${wfId}/`).set(key());
      await allowed(svc.assertTransitionAllowed(t.ds, ctx, s.Todo, s.Done));
      expect(other.status).toBe(201);
    });

    it('rules of another project never apply', async () => {
      await allowed(
        svc.assertTransitionAllowed(t.ds, { ...ctx, project: { ...ctx.project, id: projectId } }, s.Todo, s.Done),
      );
    });
  });
});
