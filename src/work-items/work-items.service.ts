import { Injectable } from '@nestjs/common';
import { MembershipObserver } from '../common/membership/membership';
import { wants } from '../common/fields/fields';
import { DataSource } from 'typeorm';
import { ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import {
  PROJECT_ROLE_LEVEL,
  ProjectRole,
  projectLevel,
  Viewer,
  viewerOf,
  WORK_ITEM_READER,
} from '../common/auth/roles';
import { cleanRichText } from '../common/html/rich-text';
import { FieldError, ProblemException } from '../common/errors/problem.exception';
import { ListQuery } from '../common/pagination/list-query';
import { Queryable } from '../common/pagination/sql-params';
import { assertOneForm, NameOrIdRelation, resolveMany, resolveOne } from '../common/resolve/name-or-id';
import { WORK_ITEM_PAIRS } from './relation-fields';
import { CustomFieldsService } from '../custom-fields/custom-fields.service';
import { EstimatesService } from '../estimates/estimates.service';
import { WorkflowsService } from '../workflows/workflows.service';
import { placesItem, WorkItemMembership } from './work-item-membership';
import { cyclesOfWorkItems, modulesOfWorkItems } from '../cycles/work-item-expand';
import {
  CreateWorkItemDto,
  UpdateWorkItemDto,
  WorkItemDto,
  WorkItemLabelRefDto,
  WorkItemParentRefDto,
  WorkItemStateRefDto,
  WorkItemTypeRefDto,
  WorkItemUserRefDto,
} from './work-items.dto';
import { mapWorkItem, webhookView } from './work-items.mapper';
import {
  CheckedInsert,
  ExpandedObjects,
  ExpandedRelation,
  ListArrays,
  WorkItemDetailRow,
  WorkItemRow,
  WorkItemsRepository,
  WorkItemWrite,
} from './work-items.repository';
import { withRowVersion } from '../common/http/conditional';
import { inScope } from '../common/database/transaction-scope';
import { changeEvent } from '../webhooks/webhook-events';
import { WebhookOutbox } from '../webhooks/webhook-outbox';

// Canonical numbers only: `PROJ-012` is not the identifier of PROJ-12 (surrounding space is trimmed, case folded).
const IDENTIFIER_RE = /^([A-Za-z][A-Za-z0-9]*)-([1-9]\d{0,8})$/;

/** `PROJ-12` (any case) → parts, or null when malformed. */
export function parseIdentifier(raw: string): { identifier: string; sequence: number } | null {
  const m = IDENTIFIER_RE.exec(raw.trim());
  return m ? { identifier: m[1].toUpperCase(), sequence: Number(m[2]) } : null;
}

/** The state and type a create writes: those named, else the project's defaults (a project without a default state: 400). */
export function withDefaults(
  refs: { stateId?: string; typeId?: string | null },
  defaults: { default_state_id: string | null; default_type_id: string | null },
): { stateId: string; typeId: string | null } {
  const stateId = refs.stateId ?? defaults.default_state_id;
  if (!stateId)
    throw ProblemException.validation('state_id', 'The project has no default state; send state_id or state.');
  return { stateId, typeId: refs.typeId !== undefined ? refs.typeId : defaults.default_type_id };
}

/** Relations expanded from the objects' own tables (cycle and modules have their own helpers). */
const OBJECT_RELATIONS: readonly ExpandedRelation[] = ['state', 'type', 'parent', 'assignees', 'labels'];
/** The relations of `?expand=` whose objects a read statement can carry (OBJECT_RELATIONS asked for). */
const objectRelations = (expand: Set<string>) => OBJECT_RELATIONS.filter((rel) => expand.has(rel));

/**
 * Which per-row id arrays a list page computes (those the `?fields=` projection or an expansion needs) and which
 * relations' objects its statement reads.
 */
const listArrays = (expand: Set<string>, fields: ReadonlySet<string> | null): ListArrays => ({
  assignees: wants(fields, 'assignee_ids') || expand.has('assignees'),
  labels: wants(fields, 'label_ids') || expand.has('labels'),
  modules: wants(fields, 'module_ids'),
  expanded: objectRelations(expand),
});

/** The project written in, and whose visibility a cross-project parent or related item is checked against. */
type Tenant = { workspaceId: string; projectId: string; viewer: Viewer };
/** A project named with its workspace (statements pin the workspace: docs/scaling.md). */
type ProjectScope = Pick<Tenant, 'workspaceId' | 'projectId'>;

const tenantOf = (ctx: ProjectContext): Tenant => ({
  workspaceId: ctx.workspace.id,
  projectId: ctx.project.id,
  viewer: viewerOf(ctx),
});

/**
 * Work items (gap-reference 3.1). Reads: one statement per page, its expanded objects included (+ COUNT in
 * parallel; cycle and modules expanded by one statement each). Writes resolve every name-or-id pair with the shared
 * resolver, check dates, external ids and workflow rules, and write in one transaction.
 */
@Injectable()
export class WorkItemsService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: WorkItemsRepository,
    private readonly customFields: CustomFieldsService,
    private readonly estimates: EstimatesService,
    private readonly workflows: WorkflowsService,
    private readonly outbox: WebhookOutbox,
    private readonly membership: WorkItemMembership,
  ) {}

  // ---- reads ----

  /** `fields` (a `?fields=` projection, or null) lets the page skip the id arrays nobody asked for. */
  async list(ctx: ProjectContext, q: ListQuery, expand: Set<string>, fields: ReadonlySet<string> | null = null) {
    const page = await this.repo.list(ctx.workspace.id, ctx.project.id, q, listArrays(expand, fields));
    const data = page.rows.map((r) => mapWorkItem(r, ctx.project.identifier, null));
    await this.expand(ctx.workspace.id, page.rows, data, expand, page.once as ExpandedObjects | undefined);
    return page.envelope(data);
  }

  /**
   * The workspace-wide list: the items of every live, unarchived project the caller can read (a `project_id`
   * filter narrows that set, so the counters still answer the total), with the project list's rules.
   */
  async listWorkspace(
    ctx: WorkspaceContext,
    q: ListQuery,
    expand: Set<string>,
    fields: ReadonlySet<string> | null = null,
  ) {
    const byProject = q.filters.find((f) => f.def.name === 'project_id');
    const only = byProject ? ([] as string[]).concat(byProject.value as string | string[]) : null;
    const projects = await this.repo.readableProjects(ctx.workspace.id, viewerOf(ctx), only);
    const identifiers = new Map(projects.map((p) => [p.id, p.identifier]));
    const rest: ListQuery = { ...q, filters: q.filters.filter((f) => f !== byProject) };
    const page = await this.repo.listWorkspace(
      ctx.workspace.id,
      [...identifiers.keys()],
      rest,
      listArrays(expand, fields),
      projects.length < (projects[0]?.live_projects ?? 0),
    );
    const data = page.rows.map((r) => mapWorkItem(r, identifiers.get(r.project_id) ?? '', null));
    await this.expand(ctx.workspace.id, page.rows, data, expand, page.once as ExpandedObjects | undefined);
    return page.envelope(data);
  }

  /** One item; the objects of `?expand=` (but cycle and modules) come with its row, in the same statement. */
  async get(ctx: ProjectContext, id: string, expand: Set<string>): Promise<WorkItemDto> {
    const found = await this.repo.getExpanded(ctx.workspace.id, ctx.project.id, id, objectRelations(expand));
    if (!found) throw ProblemException.notFound('Work item');
    const { expanded, ...row } = found;
    return withRowVersion(await this.present(ctx.workspace.id, row, expand, true, undefined, expanded), row.version);
  }

  /** Workspace-scoped read by `PROJ-12`; malformed, invisible, archived and unknown keys are one 404. */
  async getByIdentifier(ctx: WorkspaceContext, identifier: string, expand: Set<string>): Promise<WorkItemDto> {
    // A path segment is the identifier exactly: `%20PROJ-12` is malformed (name forms in bodies are trimmed).
    const parts = identifier === identifier.trim() ? parseIdentifier(identifier) : null;
    if (!parts) throw ProblemException.notFound('Work item');
    const viewer = viewerOf(ctx);
    const found = await this.repo.getByIdentifier(
      ctx.workspace.id,
      parts.identifier,
      parts.sequence,
      viewer,
      objectRelations(expand),
    );
    if (!found) throw ProblemException.notFound('Work item');
    // On the project, below the reading role (a project guest): roles never cause 404 (gap-reference 6).
    if (!viewer.allProjects && projectLevel(found.viewer_role) < PROJECT_ROLE_LEVEL[WORK_ITEM_READER]) {
      throw ProblemException.forbidden(`Reading work items needs the project role ${WORK_ITEM_READER} or higher.`);
    }
    const { viewer_role: _role, expanded, ...row } = found;
    return withRowVersion(await this.present(ctx.workspace.id, row, expand, true, undefined, expanded), row.version);
  }

  private async present(
    workspaceId: string,
    row: WorkItemDetailRow,
    expand: Set<string>,
    withCustomFields: boolean,
    db?: Queryable,
    found?: ExpandedObjects,
  ): Promise<WorkItemDto> {
    const custom = withCustomFields ? await this.customFields.renderOne(workspaceId, row, db) : null;
    const dto = mapWorkItem(row, row.project_identifier, custom);
    await this.expand(workspaceId, [row], [dto], expand, found);
    return dto;
  }

  /**
   * Adds expanded objects beside their ids: the state, type, parent, assignees and labels of the whole page from
   * `found` (read by a list page's own statement) or else in one statement, beside one each for cycle and modules,
   * in parallel.
   */
  private async expand(
    workspaceId: string,
    rows: WorkItemRow[],
    out: WorkItemDto[],
    expand: Set<string>,
    found?: ExpandedObjects,
  ): Promise<void> {
    if (!expand.size || !rows.length) return;
    const relations = objectRelations(expand);
    const jobs: Array<Promise<void>> = [];
    if (relations.length) {
      const objects = found ? Promise.resolve(found) : this.repo.expandedObjects(workspaceId, idsOf(rows, relations));
      jobs.push(objects.then((f) => attachExpanded(out, relations, f)));
    }
    if (expand.has('cycle')) {
      jobs.push(
        cyclesOfWorkItems(
          this.ds,
          workspaceId,
          rows.map((r) => r.id),
        ).then((m) => out.forEach((d) => (d.cycle = m.get(d.id) ?? null))),
      );
    }
    if (expand.has('modules')) {
      jobs.push(
        modulesOfWorkItems(
          this.ds,
          workspaceId,
          rows.map((r) => r.id),
        ).then((m) => out.forEach((d) => (d.modules = m.get(d.id) ?? []))),
      );
    }
    await Promise.all(jobs);
  }

  // ---- name-or-id relations ----

  private relations(
    t: Tenant,
    db: Queryable,
  ): Record<'state' | 'type' | 'parent' | 'assignees' | 'labels', NameOrIdRelation> {
    return {
      state: {
        ...WORK_ITEM_PAIRS.state,
        noun: 'a state of this project',
        lookupIds: (ids) => this.repo.stateIds(t.workspaceId, t.projectId, ids, db),
        lookupNames: (keys) => this.repo.stateNames(t.workspaceId, t.projectId, keys, db),
      },
      type: {
        ...WORK_ITEM_PAIRS.type,
        noun: 'an active work item type of this project',
        lookupIds: (ids) => this.repo.typeIds(t.workspaceId, t.projectId, ids, db),
        lookupNames: (keys) => this.repo.typeNames(t.workspaceId, t.projectId, keys, db),
      },
      parent: {
        ...WORK_ITEM_PAIRS.parent,
        noun: 'a work item of this workspace in a project you can read',
        lookupIds: (ids) => this.repo.workItemIds(t.workspaceId, ids, t.viewer, db),
        lookupNames: async (keys) => {
          const refs = keys.map(parseIdentifier).filter((x): x is NonNullable<typeof x> => !!x);
          return refs.length ? this.repo.workItemIdentifiers(t.workspaceId, refs, t.viewer, db) : [];
        },
        normalize: (s) => {
          const p = parseIdentifier(s);
          return p ? `${p.identifier}-${p.sequence}` : s.trim();
        },
      },
      assignees: {
        ...WORK_ITEM_PAIRS.assignees,
        noun: 'an active, assignable member of this project',
        lookupIds: (ids) => this.repo.assigneeIds(t.workspaceId, t.projectId, ids, db),
        lookupNames: (keys) => this.repo.assigneeEmails(t.workspaceId, t.projectId, keys, db),
      },
      labels: {
        ...WORK_ITEM_PAIRS.labels,
        noun: 'a label of this project or of the workspace',
        lookupIds: (ids) => this.repo.labelIds(t.workspaceId, t.projectId, ids, db),
        lookupNames: (keys) => this.repo.labelNames(t.workspaceId, t.projectId, keys, db),
      },
    };
  }

  /** Resolves every relation sent (undefined = not sent); the lookups run in parallel. */
  private async resolveRefs(t: Tenant, dto: UpdateWorkItemDto, db: Queryable) {
    const rel = this.relations(t, db);
    assertOneForm(WORK_ITEM_PAIRS.estimate, dto.estimate_point_id, dto.estimate);
    if (dto.type_id !== undefined || dto.type !== undefined) {
      assertOneForm(rel.type, dto.type_id, dto.type);
      if (dto.type_id !== null && !(await this.repo.hasTypes(t.workspaceId, t.projectId, db))) {
        throw ProblemException.validation(
          dto.type_id !== undefined ? 'type_id' : 'type',
          'Work item types are not enabled for this project.',
        );
      }
    }
    const [stateId, typeId, parentId, assigneeIds, labelIds, estimatePointId] = await Promise.all([
      resolveOne(rel.state, dto.state_id, dto.state),
      resolveOne(rel.type, dto.type_id, dto.type),
      resolveOne(rel.parent, dto.parent_id, dto.parent),
      resolveMany(rel.assignees, dto.assignee_ids, dto.assignees),
      resolveMany(rel.labels, dto.label_ids, dto.labels),
      dto.estimate_point_id === null
        ? Promise.resolve(null)
        : dto.estimate_point_id !== undefined || dto.estimate !== undefined
          ? this.estimates.resolvePoint(db, t, {
              id: dto.estimate_point_id ?? undefined,
              value: dto.estimate,
            })
          : Promise.resolve(undefined),
    ]);
    if (stateId === null) throw ProblemException.validation('state_id', 'state_id may not be null.');
    return { stateId, typeId, parentId, assigneeIds, labelIds, estimatePointId };
  }

  /**
   * The relations resolved outside the write (or without a lock) must still be live at commit: inside the
   * write, the labels, the estimate point and the parent are re-read FOR KEY SHARE (the state too). A
   * delete that committed in between is a 400 naming the field, nothing written; one still running waits
   * for our commit and then strips / clears the link like any other. Assignees are not re-locked: removing
   * a project member takes no row lock an assignment could share (see docs/work-items.md). Creates do
   * this inside their insert statement (insertChecked); updates with one statement per relation sent.
   */
  private async lockRefs(
    t: Tenant,
    dto: UpdateWorkItemDto,
    refs: { labelIds?: string[]; estimatePointId?: string | null; parentId?: string | null },
    tx: Queryable,
  ): Promise<void> {
    const live = {
      labelIds: refs.labelIds?.length
        ? await this.repo.lockLabels(t.workspaceId, t.projectId, refs.labelIds, tx)
        : new Set<string>(),
      estimatePoint:
        !refs.estimatePointId ||
        (await this.repo.lockEstimatePoint(t.workspaceId, t.projectId, refs.estimatePointId, tx)),
      parent: !refs.parentId || (await this.repo.lockWorkItem(t.workspaceId, refs.parentId, tx)),
    };
    this.assertRefsLive(dto, refs, live);
  }

  /** 400 naming each relation that was deleted between its resolution and the write. */
  private assertRefsLive(
    dto: UpdateWorkItemDto,
    refs: { labelIds?: string[]; estimatePointId?: string | null; parentId?: string | null },
    live: { labelIds: Set<string>; estimatePoint: boolean; parent: boolean },
  ): void {
    const errors: FieldError[] = [];
    const gone = (refs.labelIds ?? []).filter((id) => !live.labelIds.has(id));
    if (gone.length) {
      errors.push({
        field: dto.label_ids !== undefined ? 'label_ids' : 'labels',
        message: `No longer a label of this project or of the workspace (deleted meanwhile): ${gone.join(', ')}.`,
      });
    }
    if (refs.estimatePointId && !live.estimatePoint) {
      errors.push({
        field: dto.estimate_point_id !== undefined ? 'estimate_point_id' : 'estimate',
        message: `"${refs.estimatePointId}" is no longer a point of the project's active estimate (deleted meanwhile).`,
      });
    }
    if (refs.parentId && !live.parent) {
      errors.push({
        field: dto.parent_id !== undefined ? 'parent_id' : 'parent',
        message: `"${refs.parentId}" is no longer a work item of this workspace (deleted meanwhile).`,
      });
    }
    if (errors.length) throw ProblemException.validationMany(errors);
  }

  private checkDates(start: string | null | undefined, target: string | null | undefined): void {
    if (start && target && start > target) {
      throw ProblemException.validation(
        'start_date',
        `start_date (${start}) must not be after target_date (${target}).`,
      );
    }
  }

  private async checkExternal(
    scope: ProjectScope,
    source: string | null | undefined,
    externalId: string | null | undefined,
    exceptId: string | null,
    db: Queryable,
  ): Promise<void> {
    if (!source || !externalId) return;
    const existing = await this.repo.findByExternal(scope, source, externalId, exceptId, db);
    if (existing) throw this.externalHeld(source, externalId, existing);
  }

  /** A unique violation on the external pair raced past checkExternal: answer with the same 409. */
  private async externalRace<T>(
    scope: ProjectScope,
    source: string | null | undefined,
    externalId: string | null | undefined,
    fn: () => Promise<T>,
  ): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      // TypeORM wraps the driver's error; statements sent straight to the pool throw it as is.
      const err = e as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
      const pgErr = err.driverError ?? err;
      if (pgErr.code === '23505' && pgErr.constraint === 'uq_work_items_external' && source && externalId) {
        await this.checkExternal(scope, source, externalId, null, this.ds);
      }
      throw e;
    }
  }

  private description(
    html: string | null | undefined,
  ): Pick<WorkItemWrite, 'description_html' | 'description_stripped'> {
    if (html === undefined) return {};
    if (html === null) return { description_html: '', description_stripped: '' };
    const clean = cleanRichText('description_html', html);
    return { description_html: clean.html, description_stripped: clean.stripped };
  }

  // ---- writes ----

  async create(ctx: ProjectContext, dto: CreateWorkItemDto, expand: Set<string>): Promise<WorkItemDto> {
    const t = tenantOf(ctx);
    const { name, desc } = this.createBasics(dto);
    // In the common case three steps: the reads that validate together with the defaults and the sequence
    // number (in parallel, on the pool), the custom-properties read, and one transaction whose statement
    // re-checks, locks and writes (the webhook event beside it). A create that fails validation leaves a gap in the sequence numbers.
    // A default (state or type) the request did not name can be deleted between its reading and the insert:
    // the create then runs again with the new default (a gap in the sequence numbers, like any failed create).
    for (let attempt = 1; ; attempt++) {
      const [refs, defaults] = await Promise.all([
        this.resolveRefs(t, dto, this.ds),
        this.repo.createPrelude(t.workspaceId, t.projectId),
        this.checkExternal(t, dto.external_source, dto.external_id, null, this.ds),
        this.checkMembership(ctx, dto, this.ds),
      ]);
      const { stateId, typeId } = withDefaults(refs, defaults);
      const assigneeIds = await this.assigneesOrDefault(ctx, refs.assigneeIds, this.ds);
      const labelIds = refs.labelIds ?? [];

      const plan = { name, desc, stateId, typeId, assigneeIds, labelIds, sequenceId: defaults.sequence_id };
      const result = await this.insertCreate(ctx, dto, refs, plan);
      if (!result.row) {
        const defaultGone =
          (!result.state_live && refs.stateId === undefined) || (!result.type_live && refs.typeId === undefined);
        if (defaultGone && attempt < 3) continue;
        this.explainRefusal(dto, stateId, typeId, refs, result);
      }
      return this.present(t.workspaceId, result.row, expand, true);
    }
  }

  /**
   * The checked insert of a create, in a transaction with its webhook event (inside a request's transaction scope,
   * e.g. an idempotent POST's, a savepoint of it), so the event commits with the item. With labels, a point, a
   * parent or a type, the state is locked first in a statement of its own, so a delete of what we link that
   * commits while we wait for that lock is seen by the insert's later snapshot (see insertChecked); with a type,
   * the custom values are validated in the same transaction, under the values lock a catalogue change waits for.
   * Cycle and module membership (cycle_id, module_ids) are written after the row, before the event.
   */
  private insertCreate(
    ctx: ProjectContext,
    dto: CreateWorkItemDto,
    refs: { parentId?: string | null; estimatePointId?: string | null },
    plan: CreatePlan,
  ): Promise<CheckedInsert> {
    const t = tenantOf(ctx);
    const { stateId, typeId } = plan;
    // Custom values are validated on the connection of the write, inside its transaction.
    const write = async (db: Queryable, unlessHooked = false) => {
      const customValues = await this.customFields.forCreate(
        db,
        t.workspaceId,
        t.projectId,
        typeId,
        dto.custom_fields,
        t.viewer,
      );
      const values = {
        name: plan.name,
        ...plan.desc,
        priority: dto.priority,
        state_id: stateId,
        type_id: typeId,
        parent_id: refs.parentId ?? null,
        estimate_point_id: refs.estimatePointId ?? null,
        start_date: dto.start_date,
        target_date: dto.target_date,
        external_id: dto.external_id,
        external_source: dto.external_source,
        custom_values: customValues,
      };
      return this.repo.insertChecked(
        t.workspaceId,
        t.projectId,
        ctx.project.identifier,
        plan.sequenceId,
        values,
        plan.assigneeIds,
        plan.labelIds,
        ctx.principal.userId,
        db,
        unlessHooked,
      );
    };
    const links = plan.labelIds.length > 0 || !!refs.estimatePointId || !!refs.parentId || !!typeId;
    return this.externalRace(t, dto.external_source, dto.external_id, async () => {
      // Nothing to lock first, no membership to write, no request transaction to join: the insert statement
      // alone, written only when no webhook chooses the event (else below, in a transaction with its event).
      if (!links && !placesItem(dto) && !inScope()) {
        const alone = await write(this.ds, true);
        if (!alone.hooked) return alone;
      }
      return this.ds.transaction(async (tx) => {
        if (links) await this.repo.stateIds(t.workspaceId, t.projectId, [stateId], tx);
        const written = await write(tx);
        if (written.row && placesItem(dto)) written.row = await this.placeIn(ctx, written.row, dto, tx);
        if (written.row && written.hooked)
          await this.outbox.record(tx, changeEvent(ctx, 'workitem.created', webhookView(written.row)));
        return written;
      });
    });
  }

  /** A checked insert that wrote nothing: the problem, in the order of the checks (state, type, links, workflow). */
  explainRefusal(
    dto: UpdateWorkItemDto,
    stateId: string,
    typeId: string | null,
    refs: { labelIds?: string[]; estimatePointId?: string | null; parentId?: string | null },
    result: Omit<CheckedInsert, 'row'>,
  ): never {
    if (!result.state_live)
      throw ProblemException.validation(
        dto.state_id !== undefined ? 'state_id' : 'state',
        `"${stateId}" is not a state of this project.`,
      );
    if (!result.type_live)
      throw ProblemException.validation(
        dto.type_id !== undefined ? 'type_id' : 'type',
        `"${typeId}" is no longer an active type of this project (deleted or deactivated meanwhile).`,
      );
    this.assertRefsLive(dto, refs, {
      labelIds: new Set(result.live_label_ids),
      estimatePoint: result.estimate_point_live,
      parent: result.parent_live,
    });
    this.workflows.assertCreationRule(result.creation_allowed);
    throw new Error('work item insert wrote nothing although every check passed');
  }

  /** The checks of a create body that need no database: name, description, dates. */
  createBasics(dto: CreateWorkItemDto) {
    const name = dto.name.trim();
    if (!name) throw ProblemException.validation('name', 'name must not be blank.');
    const desc = this.description(dto.description_html);
    this.checkDates(dto.start_date, dto.target_date);
    return { name, desc };
  }

  /** The assignees a create names, else the project's default assignee while assignable, else none. */
  async assigneesOrDefault(ctx: ProjectContext, sent: string[] | undefined, db: Queryable): Promise<string[]> {
    if (sent !== undefined) return sent;
    const dflt = ctx.project.defaultAssigneeId;
    return dflt && (await this.repo.assigneeIds(ctx.workspace.id, ctx.project.id, [dflt], db)).has(dflt) ? [dflt] : [];
  }

  /** Resolves a create's relations (name or id forms) for a bulk row: resolveRefs on `db`. */
  resolveCreateRefs(ctx: ProjectContext, dto: CreateWorkItemDto, db: Queryable) {
    return this.resolveRefs(tenantOf(ctx), dto, db);
  }

  /** The 409 of an external pair already held in the project (the message checkExternal answers). */
  externalHeld(source: string, externalId: string, existing: string): ProblemException {
    return ProblemException.conflict(
      `A work item with external_source "${source}" and external_id "${externalId}" already exists in this project: ${existing}.`,
    );
  }

  async update(ctx: ProjectContext, id: string, dto: UpdateWorkItemDto, expand: Set<string>): Promise<WorkItemDto> {
    const plain = await this.updatePlain(ctx, id, dto);
    if (plain) return this.present(ctx.workspace.id, plain, expand, true);
    // The response row is the write's own (or read inside the transaction): read after commit, a delete or
    // archive committing in between would leave nothing to render (the write itself succeeded).
    const row = await this.externalRace(tenantOf(ctx), dto.external_source, dto.external_id, () =>
      this.ds.transaction((tx) => this.updateIn(ctx, id, dto, tx)),
    );
    return this.present(ctx.workspace.id, row, expand, true);
  }

  /**
   * A PATCH of fields whose rules need neither the item as it is nor other rows (name, description, priority),
   * outside a request's transaction scope (no If-Match, no idempotency record to commit with it): one statement,
   * no transaction (the UPDATE locks and re-checks the row itself; history comes from its triggers). It writes
   * only when no webhook chooses `workitem.updated`; when one does, or the body is not plain, answers null and
   * the PATCH runs in a transaction with its event (updateIn). An unknown, archived or deleted item is 404.
   */
  private async updatePlain(
    ctx: ProjectContext,
    id: string,
    dto: UpdateWorkItemDto,
  ): Promise<WorkItemDetailRow | null> {
    const sent = Object.entries(dto).filter(([, v]) => v !== undefined);
    if (inScope() || !sent.length || !sent.every(([k]) => PLAIN_PATCH_FIELDS.has(k))) return null;
    const name = dto.name === undefined ? undefined : dto.name.trim();
    if (name === '') throw ProblemException.validation('name', 'name must not be blank.');
    const write: WorkItemWrite = { name, ...this.description(dto.description_html), priority: dto.priority };
    const w = ctx.workspace.id;
    const out = await this.repo.updateMany(w, ctx.project.id, [{ id, write }], ctx.principal.userId, this.ds, true);
    if (out.rows.length) return out.rows[0];
    if (out.hooked) return null;
    throw ProblemException.notFound('Work item');
  }

  /** The update's rules and write, in the caller's transaction (a PATCH or an upsert); the row after. */
  async updateIn(ctx: ProjectContext, id: string, dto: UpdateWorkItemDto, tx: Queryable): Promise<WorkItemDetailRow> {
    const cur = await this.repo.get(ctx.workspace.id, ctx.project.id, id, 'live', tx, true);
    if (!cur) throw ProblemException.notFound('Work item');
    const prepared = await this.prepareUpdate(ctx, cur, dto, tx);
    const written = await this.repo.updateMany(ctx.workspace.id, ctx.project.id, [prepared], ctx.principal.userId, tx);
    let after = written.rows[0];
    if (placesItem(dto)) {
      await this.placeIn(ctx, cur, dto, tx);
      after = (await this.repo.get(ctx.workspace.id, ctx.project.id, id, 'live', tx))!;
    }
    // No webhook chooses the event: the outbox would write nothing (one round trip saved).
    if (written.hooked)
      await this.outbox.record(tx, changeEvent(ctx, 'workitem.updated', webhookView(after), webhookView(cur)));
    return after;
  }

  /**
   * Every rule of a PATCH of `cur` (locked by the caller), checked without writing: name, description, the relations
   * (resolved, re-read FOR KEY SHARE), dates, parent loops, workflow transitions, the external pair, custom values,
   * cycle and modules. The write it answers is made by writeUpdates, alone (PATCH) or with a batch (bulk-update).
   */
  async prepareUpdate(
    ctx: ProjectContext,
    cur: WorkItemDetailRow,
    dto: UpdateWorkItemDto,
    tx: Queryable,
  ): Promise<PreparedUpdate> {
    const t = tenantOf(ctx);
    const id = cur.id;
    const name = dto.name === undefined ? undefined : dto.name.trim();
    if (name === '') throw ProblemException.validation('name', 'name must not be blank.');
    const desc = this.description(dto.description_html);
    const refs = await this.resolveRefs(t, keptRefsUnsent(dto, cur), tx);
    await this.lockRefs(t, dto, refs, tx);
    const external = await this.checkUpdate(ctx, id, dto, cur, refs, tx);
    let customValues: Record<string, unknown> | undefined;
    if (dto.custom_fields !== undefined || (refs.typeId !== undefined && refs.typeId !== cur.type_id)) {
      customValues = await this.customFields.forUpdate(
        tx,
        t.workspaceId,
        t.projectId,
        cur,
        refs.typeId,
        dto.custom_fields,
        t.viewer,
      );
    }
    await this.checkMembership(ctx, dto, tx);
    return {
      id,
      dto,
      external,
      assigneeIds: refs.assigneeIds,
      labelIds: refs.labelIds,
      write: {
        name,
        ...desc,
        priority: dto.priority,
        state_id: refs.stateId,
        type_id: refs.typeId,
        parent_id: refs.parentId,
        estimate_point_id: refs.estimatePointId,
        start_date: dto.start_date,
        target_date: dto.target_date,
        external_id: dto.external_id,
        external_source: dto.external_source,
        custom_values: customValues,
      },
    };
  }

  /**
   * Writes prepared PATCHes in one statement (repo.updateMany). When more than one row set a parent, the batch may
   * have closed a loop between its own rows (each passed alone): the write is then undone (a savepoint), the latest
   * row of the loop refused as a PATCH applied after the others would be, and the rest written again. Answers the
   * rows refused that way.
   */
  async writeUpdates(
    ctx: ProjectContext,
    rows: PreparedUpdate[],
    tx: Queryable,
  ): Promise<Array<{ row: PreparedUpdate; problem: ProblemException }>> {
    const refused: Array<{ row: PreparedUpdate; problem: ProblemException }> = [];
    let left = rows;
    const write = (batch: PreparedUpdate[]) =>
      this.repo.updateMany(ctx.workspace.id, ctx.project.id, batch, ctx.principal.userId, tx);
    if (left.filter((r) => r.write.parent_id).length < 2) {
      await write(left);
      return refused;
    }
    for (;;) {
      await tx.query('SAVEPOINT bulk_parents');
      await write(left);
      const looped = new Set(
        await this.repo.ownAncestors(
          ctx.workspace.id,
          left.map((r) => r.id),
          tx,
        ),
      );
      if (!looped.size) {
        await tx.query('RELEASE SAVEPOINT bulk_parents');
        return refused;
      }
      await tx.query('ROLLBACK TO SAVEPOINT bulk_parents');
      const last = [...left].reverse().find((r) => looped.has(r.id) && r.write.parent_id)!;
      refused.push({ row: last, problem: parentLoop(last.dto) });
      left = left.filter((r) => r !== last);
    }
  }

  /** The cycle and module rules for what the body names (cycle_id, module_ids), without writing. */
  checkMembership(ctx: ProjectContext, dto: UpdateWorkItemDto, db: Queryable): Promise<void> {
    return this.membership.check(ctx, dto, db);
  }

  /** Writes the membership bodies set for items already written (WorkItemMembership.placeMany), in `tx`. */
  placeMany<R extends { id: string; cycle_id: string | null; module_ids: string[] }>(
    ctx: ProjectContext,
    rows: Array<{ row: R; dto: UpdateWorkItemDto }>,
    tx: Queryable,
  ): Promise<R[]> {
    return this.membership.placeMany(ctx, rows, tx);
  }

  private async placeIn<R extends { id: string; cycle_id: string | null; module_ids: string[] }>(
    ctx: ProjectContext,
    row: R,
    dto: UpdateWorkItemDto,
    tx: Queryable,
  ): Promise<R> {
    return (await this.membership.placeMany(ctx, [{ row, dto }], tx))[0];
  }

  /**
   * The rules of an update on the item as it is: dates, no parent cycle, the workflow's transition, external ids;
   * answers the external pair the item will hold (null when incomplete).
   */
  private async checkUpdate(
    ctx: ProjectContext,
    id: string,
    dto: UpdateWorkItemDto,
    cur: WorkItemDetailRow,
    refs: { parentId?: string | null; stateId?: string },
    tx: Queryable,
  ): Promise<[string, string] | null> {
    const start = dto.start_date !== undefined ? dto.start_date : cur.start_date;
    const target = dto.target_date !== undefined ? dto.target_date : cur.target_date;
    this.checkDates(start, target);
    if (refs.parentId && (await this.repo.wouldCycle(ctx.workspace.id, id, refs.parentId, tx))) throw parentLoop(dto);
    if (refs.stateId !== undefined && refs.stateId !== cur.state_id) {
      await this.workflows.assertTransitionAllowed(tx, ctx, cur.state_id, refs.stateId);
    }
    const source = dto.external_source !== undefined ? dto.external_source : cur.external_source;
    const extId = dto.external_id !== undefined ? dto.external_id : cur.external_id;
    if (dto.external_source !== undefined || dto.external_id !== undefined)
      await this.checkExternal(tenantOf(ctx), source, extId, id, tx);
    return source && extId ? [source, extId] : null;
  }

  /**
   * For a change another feature makes to work items' read shape (cycle or module membership): the webhook view
   * of the live items among `ids`, read in the caller's transaction before the change, for `reportUpdated`.
   */
  async webhookSnapshot(ctx: ProjectContext, ids: string[], tx: Queryable): Promise<Map<string, WorkItemDto>> {
    const rows = await this.repo.getMany(ctx.workspace.id, ctx.project.id, ids, tx);
    return new Map(rows.map((r) => [r.id, webhookView(r)]));
  }

  /** A cycle's or module's membership change seen as the workitem.updated events of the items it moved. */
  membershipObserver(ctx: ProjectContext, tx: Queryable): MembershipObserver {
    return async (ids) => {
      const before = await this.webhookSnapshot(ctx, ids, tx);
      return () => this.reportUpdated(ctx, before, tx);
    };
  }

  /** `workitem.updated` for each item of `before` whose webhook view differs now (one event per changed item). */
  async reportUpdated(ctx: ProjectContext, before: Map<string, WorkItemDto>, tx: Queryable): Promise<void> {
    if (!before.size) return;
    const after = await this.webhookSnapshot(ctx, [...before.keys()], tx);
    const changed = [...after.values()]
      .filter((a) => JSON.stringify(a) !== JSON.stringify(before.get(a.id)))
      .sort((a, b) => a.sequence_id - b.sequence_id);
    await this.outbox.recordMany(
      tx,
      changed.map((a) => changeEvent(ctx, 'workitem.updated', a, before.get(a.id))),
    );
  }

  /**
   * Soft delete: project admins, or the item's creator (a contributor); anyone else 403. Children become top-level.
   * An archived item is 404 here as on every route but unarchive (spec: "Unarchive is the one route that still
   * resolves them"): unarchive it first.
   */
  async remove(ctx: ProjectContext, id: string): Promise<void> {
    await this.ds.transaction(async (tx) => {
      const cur = await this.repo.get(ctx.workspace.id, ctx.project.id, id, 'live', tx, true);
      if (!cur) throw ProblemException.notFound('Work item');
      assertMayDelete(ctx, cur.created_by_id);
      await this.repo.softDelete(ctx.workspace.id, [id], ctx.principal.userId, tx);
      await this.outbox.record(tx, changeEvent(ctx, 'workitem.deleted', webhookView(cur)));
    });
  }

  /** Archive of a live item; an archived (or unknown) one is 404. */
  async archive(ctx: ProjectContext, id: string): Promise<WorkItemDto> {
    return this.setArchived(ctx, id, true);
  }

  /** Unarchive looks past the archive filter and is idempotent. */
  async unarchive(ctx: ProjectContext, id: string): Promise<WorkItemDto> {
    return this.setArchived(ctx, id, false);
  }

  private async setArchived(ctx: ProjectContext, id: string, archived: boolean): Promise<WorkItemDto> {
    const w = ctx.workspace.id;
    const p = ctx.project.id;
    // Read back inside the transaction (see update).
    const row = await this.ds.transaction(async (tx) => {
      const cur = await this.repo.get(w, p, id, archived ? 'live' : 'any', tx, true);
      if (!cur) throw ProblemException.notFound('Work item');
      if (!archived && !cur.archived_at) return cur;
      await this.repo.setArchived(w, id, archived, ctx.principal.userId, tx);
      const after = (await this.repo.get(w, p, id, 'any', tx))!;
      // Plane names no unarchive event: an unarchive is an update of archived_at.
      const event = archived ? 'workitem.archived' : 'workitem.updated';
      await this.outbox.record(tx, changeEvent(ctx, event, webhookView(after), webhookView(cur)));
      return after;
    });
    return this.present(w, row, new Set(), false);
  }
}

/**
 * A PATCH that sends the item's current `type_id`, `estimate_point_id` or `parent_id` again (alone, without
 * its name form) changes nothing, so it is not checked as a new choice: an item keeps an inactive type (spec,
 * type availability), a point of an estimate no longer active, or a parent in a project the editor cannot
 * read, and a body read and sent back unchanged must not be a 400 for it.
 */
function keptRefsUnsent(
  dto: UpdateWorkItemDto,
  cur: { type_id: string | null; estimate_point_id: string | null; parent_id: string | null },
): UpdateWorkItemDto {
  const same = (sent: string | null | undefined, current: string | null) =>
    typeof sent === 'string' && current !== null && sent.toLowerCase() === current;
  // Only the id form alone: with its name form too, the both-forms 400 must still answer.
  const kept = {
    ...(same(dto.type_id, cur.type_id) && dto.type === undefined ? { type_id: undefined } : {}),
    ...(same(dto.estimate_point_id, cur.estimate_point_id) && dto.estimate === undefined
      ? { estimate_point_id: undefined }
      : {}),
    ...(same(dto.parent_id, cur.parent_id) && dto.parent === undefined ? { parent_id: undefined } : {}),
  };
  return Object.keys(kept).length ? { ...dto, ...kept } : dto;
}

/** The body fields of a PATCH that updatePlain writes in one statement: their rules need no row of the database. */
const PLAIN_PATCH_FIELDS = new Set(['name', 'description_html', 'priority']);

/** A PATCH checked by prepareUpdate: the row's write, ready for repo.updateMany. */
export interface PreparedUpdate {
  id: string;
  dto: UpdateWorkItemDto;
  write: WorkItemWrite;
  assigneeIds?: string[];
  labelIds?: string[];
  /** The external pair the item holds after the write, when complete. */
  external: [string, string] | null;
}

const parentLoop = (dto: UpdateWorkItemDto) =>
  ProblemException.validation(
    dto.parent_id !== undefined ? 'parent_id' : 'parent',
    'A work item cannot be its own parent or the parent of one of its ancestors.',
  );

/** Deleting a work item: project admins, or its creator (a contributor); anyone else 403. */
export function assertMayDelete(ctx: ProjectContext, createdById: string | null): void {
  if (ctx.projectRole !== ProjectRole.Admin && createdById !== ctx.principal.userId) {
    throw ProblemException.forbidden("Only project admins and the work item's creator may delete it.");
  }
}

/** What a create inserts, its references resolved and the project's defaults applied. */
interface CreatePlan {
  name: string;
  desc: WorkItemWrite;
  stateId: string;
  typeId: string | null;
  assigneeIds: string[];
  labelIds: string[];
  sequenceId: number;
}

/** The distinct ids the rows hold of each relation. */
function idsOf(
  rows: WorkItemRow[],
  relations: readonly ExpandedRelation[],
): Partial<Record<ExpandedRelation, string[]>> {
  const uniq = (xs: Array<string | null>) => [...new Set(xs.filter((x): x is string => !!x))];
  const of: Record<ExpandedRelation, () => string[]> = {
    state: () => uniq(rows.map((r) => r.state_id)),
    type: () => uniq(rows.map((r) => r.type_id)),
    parent: () => uniq(rows.map((r) => r.parent_id)),
    assignees: () => uniq(rows.flatMap((r) => r.assignee_ids ?? [])),
    labels: () => uniq(rows.flatMap((r) => r.label_ids ?? [])),
  };
  return Object.fromEntries(relations.map((rel) => [rel, of[rel]()]));
}

/** Puts the `relations`' objects `found` beside their ids in the DTOs. */
function attachExpanded(out: WorkItemDto[], relations: readonly ExpandedRelation[], found: ExpandedObjects): void {
  // Rows of EXPANDED_SQL carry exactly the shapes of the read DTO (gap-reference 4).
  const byId = <T>(rel: ExpandedRelation) => new Map((found[rel] ?? []).map((x) => [x.id, x as unknown as T]));
  const many = <T>(m: Map<string, T>, list: string[]) =>
    list.map((id) => m.get(id)).filter((x): x is T => x !== undefined);
  if (relations.includes('state')) {
    const m = byId<WorkItemStateRefDto>('state');
    out.forEach((d) => (d.state = m.get(d.state_id)));
  }
  if (relations.includes('type')) {
    const m = byId<WorkItemTypeRefDto>('type');
    out.forEach((d) => (d.type = d.type_id ? (m.get(d.type_id) ?? null) : null));
  }
  if (relations.includes('parent')) {
    const m = byId<WorkItemParentRefDto>('parent');
    out.forEach((d) => (d.parent = d.parent_id ? (m.get(d.parent_id) ?? null) : null));
  }
  if (relations.includes('assignees')) {
    const m = byId<WorkItemUserRefDto>('assignees');
    out.forEach((d) => (d.assignees = many(m, d.assignee_ids)));
  }
  if (relations.includes('labels')) {
    const m = byId<WorkItemLabelRefDto>('labels');
    out.forEach((d) => (d.labels = many(m, d.label_ids)));
  }
}
