import { ProjectSummaryRepository, SUMMARY_COUNTS, SummaryCount } from './project-summary.repository';
import { Injectable } from '@nestjs/common';
import { assertNameFree, cleanName } from '../common/names/names';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import {
  effectiveProjectRole,
  projectLevel,
  PROJECT_ROLE_LEVEL,
  ProjectRole,
  WorkspaceRole,
  workspaceLevel,
  WORKSPACE_ROLE_LEVEL,
} from '../common/auth/roles';
import { ProblemException } from '../common/errors/problem.exception';
import { ErrorCode } from '../common/errors/error-codes';
import { ListQuery } from '../common/pagination/list-query';
import { MembersService } from '../members/members.service';
import { StatesService } from '../states/states.service';
import { changeEvent } from '../webhooks/webhook-events';
import { WebhookOutbox } from '../webhooks/webhook-outbox';
import { CreateProjectDto, ProjectDto, ProjectSummaryDto, UpdateProjectDto } from './projects.dto';
import { mapProject } from './projects.mapper';
import { ProjectRow, ProjectsRepository, ProjectWrite } from './projects.repository';
import { ChangesResolvedCredentials } from '../common/auth/auth-cache';

/** Derives a project identifier from its name: initials, or the first letters of a single word. */
export function deriveIdentifier(name: string): string {
  const words = name
    .toUpperCase()
    .replace(/[^A-Z0-9 ]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  let id = words.length > 1 ? words.map((w) => w[0]).join('') : (words[0] ?? '');
  id = id.replace(/^[0-9]+/, '').slice(0, 5);
  return id || 'PROJ';
}

@Injectable()
@ChangesResolvedCredentials()
export class ProjectsService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: ProjectsRepository,
    private readonly membersService: MembersService,
    private readonly states: StatesService,
    private readonly audit: AuditService,
    private readonly summaries: ProjectSummaryRepository,
    private readonly outbox: WebhookOutbox,
  ) {}

  async list(ctx: WorkspaceContext, q: ListQuery) {
    const seesAll = workspaceLevel(ctx.workspaceRole) >= WORKSPACE_ROLE_LEVEL[WorkspaceRole.Admin];
    const { rows, envelope } = await this.repo.list(ctx.workspace.id, ctx.principal.userId, seesAll, q);
    return envelope(rows.map(mapProject));
  }

  /** `counts` (comma-separated, `?counts=`) narrows the resource counts; unknown names are 400 naming them. */
  async summary(ctx: ProjectContext, counts: string | undefined): Promise<ProjectSummaryDto> {
    const asked = counts === undefined ? [...SUMMARY_COUNTS] : [...new Set(counts.split(',').map((c) => c.trim()))];
    const unknown = asked.filter((c) => !(SUMMARY_COUNTS as readonly string[]).includes(c));
    if (unknown.length)
      throw ProblemException.validation(
        'counts',
        `Unknown count name(s): ${unknown.join(', ')}. Known: ${SUMMARY_COUNTS.join(', ')}.`,
      );
    const read = await this.summaries.read(ctx.workspace.id, ctx.project.id, asked as SummaryCount[]);
    return { id: ctx.project.id, identifier: ctx.project.identifier, name: ctx.project.name, ...read };
  }

  async get(ctx: ProjectContext): Promise<ProjectDto> {
    const row = await this.repo.get(ctx.workspace.id, ctx.project.id);
    if (!row) throw ProblemException.notFound('Project');
    return mapProject(row);
  }

  /**
   * Creates a project: the creator becomes its admin, the lead an admin and the default assignee a
   * contributor, or an admin when they are a workspace owner or admin (both must be workspace members
   * and neither a workspace guest), and one state per group is seeded. Each of these implicit memberships is
   * recorded as `project_member.added` (metadata.reason project_created) after `project.created`.
   */
  async create(ctx: WorkspaceContext, dto: CreateProjectDto, m?: EntityManager): Promise<ProjectDto> {
    const run = async (tx: EntityManager) => {
      const ws = ctx.workspace.id;
      const name = cleanName(dto.name, 'name', 'name should not be empty or blank');
      await assertNameFree(this.repo.nameTaken(ws, name, null, tx), 'project', name, 'in this workspace');
      const identifier = await this.freeIdentifier(ws, name, dto.identifier, tx);
      const wsRoles = await this.assertWorkspaceMembers(ws, dto, tx);
      const row = await this.repo.insert(ws, { ...this.writable(dto), name, identifier }, ctx.principal.userId, tx);
      const roles = new Map<string, string>([[ctx.principal.userId, ProjectRole.Admin]]);
      if (dto.project_lead_id) roles.set(dto.project_lead_id.toLowerCase(), ProjectRole.Admin);
      const assignee = dto.default_assignee_id?.toLowerCase();
      if (assignee && !roles.has(assignee)) {
        // Workspace owners and admins are project admins everywhere: their listed role is never below admin.
        roles.set(
          assignee,
          workspaceLevel(wsRoles.get(assignee)) >= WORKSPACE_ROLE_LEVEL[WorkspaceRole.Admin]
            ? ProjectRole.Admin
            : ProjectRole.Contributor,
        );
      }
      const memberships: string[] = [];
      for (const [userId, role] of roles)
        memberships.push(
          await this.membersService.insertProjectMember(ws, row.id, userId, role, ctx.principal.userId, tx),
        );
      await this.states.seedDefaults(tx, ws, row.id, ctx.principal.userId);
      await this.audit.record(tx, ctx, {
        ...this.target(ws, row),
        event_name: 'project.created',
        new_value: { name: row.name, identifier: row.identifier },
      });
      await this.recordImplicitMemberships(tx, ctx, row.id, memberships);
      const out = mapProject(row);
      await this.outbox.record(tx, changeEvent(ctx, 'project.created', out));
      return out;
    };
    if (m) return run(m).catch((e: unknown) => this.uniqueConflict(e));
    // A derived identifier can be taken by a concurrent create between the check and the insert. The
    // caller did not choose it, so the create is retried (finding the next free one), not refused.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.ds.transaction(run);
      } catch (e) {
        if (dto.identifier === undefined && attempt < 5 && uniqueViolation(e) === 'uq_projects_identifier') continue;
        this.uniqueConflict(e);
      }
    }
  }

  /**
   * The identifier a new project gets: the one sent (409 if taken), or one derived from the name, numbered
   * until free (under a lock of the workspace's derivations).
   */
  private async freeIdentifier(ws: string, name: string, sent: string | undefined, tx: EntityManager): Promise<string> {
    let identifier = (sent ?? deriveIdentifier(name)).toUpperCase();
    if (sent === undefined) {
      await this.repo.lockIdentifierDerivation(ws, tx);
      const base = identifier;
      for (let n = 2; await this.repo.identifierTaken(ws, identifier, null, tx); n++)
        identifier = `${base.slice(0, 10)}${n}`;
    } else if (await this.repo.identifierTaken(ws, identifier, null, tx)) {
      throw ProblemException.conflict(
        `The identifier "${identifier}" is already used by another project in this workspace.`,
      );
    }
    return identifier;
  }

  /** The implicit memberships of a create (creator, lead, default assignee) are audited like any other addition. */
  private async recordImplicitMemberships(
    tx: EntityManager,
    ctx: WorkspaceContext,
    projectId: string,
    memberships: string[],
  ): Promise<void> {
    const ws = ctx.workspace.id;
    const added = [];
    for (const id of memberships) {
      const member = (await this.membersService.projectMemberRow(ws, projectId, id, tx))!;
      added.push(
        this.membersService.projectMemberEvent(
          ws,
          projectId,
          'project_member.added',
          member,
          undefined,
          { role: member.role },
          'project_created',
        ),
      );
    }
    await this.audit.recordMany(tx, ctx, added);
  }

  /**
   * A bulk-update or upsert row's project: the context the guard would give its PATCH route, with the guard's rules
   * (unknown: 404; below project admin: 403; archived: 409 project_archived), then the PATCH itself.
   */
  async updateById(ctx: WorkspaceContext, id: string, dto: UpdateProjectDto): Promise<ProjectDto> {
    const row = await this.repo.withRole(ctx.workspace.id, id, ctx.principal.userId);
    if (!row) throw ProblemException.notFound('Project');
    const projectRole = effectiveProjectRole(ctx.workspaceRole, row.member_role);
    if (projectLevel(projectRole) < PROJECT_ROLE_LEVEL[ProjectRole.Admin])
      throw ProblemException.forbidden(`This action needs the project role ${ProjectRole.Admin} or higher.`);
    if (row.archived_at)
      throw new ProblemException(
        ErrorCode.ProjectArchived,
        `The project ${row.identifier} is archived: its data can be read, not changed. Unarchive it first.`,
      );
    const project = {
      id: row.id,
      workspaceId: ctx.workspace.id,
      identifier: row.identifier,
      name: row.name,
      defaultAssigneeId: row.default_assignee_id,
      archived: false,
    };
    return this.update({ ...ctx, project, projectRole: projectRole! }, dto);
  }

  async update(ctx: ProjectContext, dto: UpdateProjectDto): Promise<ProjectDto> {
    return this.ds
      .transaction(async (tx) => {
        const ws = ctx.workspace.id;
        if (!(await this.repo.lockLive(ws, ctx.project.id, 'FOR NO KEY UPDATE', tx)))
          throw ProblemException.notFound('Project');
        const v = this.writable(dto);
        if (dto.name !== undefined) {
          v.name = cleanName(dto.name, 'name', 'name should not be empty or blank');
          await assertNameFree(
            this.repo.nameTaken(ws, v.name, ctx.project.id, tx),
            'project',
            v.name,
            'in this workspace',
          );
        }
        if (dto.identifier !== undefined) {
          v.identifier = dto.identifier.toUpperCase();
          if (await this.repo.identifierTaken(ws, v.identifier, ctx.project.id, tx)) {
            throw ProblemException.conflict(
              `The identifier "${v.identifier}" is already used by another project in this workspace.`,
            );
          }
        }
        await this.assertProjectMembers(ctx, dto, tx);
        const before = await this.repo.get(ws, ctx.project.id, tx);
        await this.repo.update(ctx.workspace.id, ctx.project.id, v, tx);
        const row = await this.repo.get(ws, ctx.project.id, tx);
        const changed = (Object.keys(v) as Array<keyof ProjectWrite>).filter(
          (k) => v[k] !== undefined && JSON.stringify(before![k]) !== JSON.stringify(row![k]),
        );
        if (changed.length) {
          await this.audit.record(tx, ctx, {
            ...this.target(ws, row!),
            event_name: 'project.updated',
            old_value: Object.fromEntries(changed.map((k) => [k, before![k]])),
            new_value: Object.fromEntries(changed.map((k) => [k, row![k]])),
            metadata: { changed_fields: changed },
          });
        }
        const out = mapProject(row!);
        await this.outbox.record(tx, changeEvent(ctx, 'project.updated', out, mapProject(before!)));
        return out;
      })
      .catch((e: unknown) => this.uniqueConflict(e));
  }

  async remove(ctx: ProjectContext): Promise<void> {
    await this.ds.transaction(async (tx) => {
      if (!(await this.repo.softDelete(ctx.workspace.id, ctx.project.id, ctx.principal.userId, tx)))
        throw ProblemException.notFound('Project');
      await this.audit.record(tx, ctx, {
        ...ctxTarget(ctx),
        event_name: 'project.deleted',
        old_value: { name: ctx.project.name, identifier: ctx.project.identifier },
      });
      await this.outbox.record(
        tx,
        changeEvent(ctx, 'project.deleted', {
          id: ctx.project.id,
          name: ctx.project.name,
          identifier: ctx.project.identifier,
        }),
      );
    });
  }

  /**
   * Archive (true) or unarchive (false): the project leaves (or rejoins) the project list and the workspace-wide
   * work item list, and refuses (or accepts again) writes under it (the guard, 409 `project_archived`); nothing
   * else changes. Unarchiving an active project changes nothing (idempotent, no audit entry, no webhook event).
   */
  async setArchived(ctx: ProjectContext, archived: boolean): Promise<void> {
    await this.ds.transaction(async (tx) => {
      const ws = ctx.workspace.id;
      if (!(await this.repo.lockLive(ws, ctx.project.id, 'FOR NO KEY UPDATE', tx)))
        throw ProblemException.notFound('Project');
      const before = await this.repo.get(ws, ctx.project.id, tx);
      if (!(await this.repo.setArchived(ws, ctx.project.id, archived, tx))) return;
      await this.audit.record(tx, ctx, {
        ...ctxTarget(ctx),
        event_name: archived ? 'project.archived' : 'project.unarchived',
        old_value: { archived: !archived },
        new_value: { archived },
      });
      // Plane names no unarchive event: an unarchive is an update of archived_at.
      const after = mapProject((await this.repo.get(ws, ctx.project.id, tx))!);
      const event = archived ? 'project.archived' : 'project.updated';
      await this.outbox.record(tx, changeEvent(ctx, event, after, mapProject(before!)));
    });
  }

  private target(ws: string, row: ProjectRow) {
    return {
      category: 'settings' as const,
      workspace_id: ws,
      project_id: row.id,
      target_type: 'project',
      target_id: row.id,
      target_display_name: row.name,
    };
  }

  private writable(dto: CreateProjectDto | UpdateProjectDto): ProjectWrite {
    return {
      description: dto.description,
      default_assignee_id:
        dto.default_assignee_id === undefined ? undefined : (dto.default_assignee_id?.toLowerCase() ?? null),
      project_lead_id: dto.project_lead_id === undefined ? undefined : (dto.project_lead_id?.toLowerCase() ?? null),
      logo_props: dto.logo_props,
      external_id: dto.external_id,
      external_source: dto.external_source,
    };
  }

  /**
   * A unique violation that slipped past the checks above (two concurrent creates or renames) is the
   * same 409 the checks give, with the same wording; other errors pass through unchanged.
   */
  private uniqueConflict(e: unknown): never {
    const constraint = uniqueViolation(e);
    if (constraint === 'uq_projects_identifier') {
      throw ProblemException.conflict('The identifier is already used by another project in this workspace.');
    }
    if (constraint === 'uq_projects_name') {
      throw ProblemException.conflict('A project with this name already exists in this workspace.');
    }
    throw e;
  }

  /**
   * On create, the lead and the default assignee must be active workspace members (400 naming the
   * field). Neither may be a workspace guest: guests can only be project guests or commenters, so they
   * can neither administer the project nor be assigned its work items. Returns their workspace roles.
   */
  private async assertWorkspaceMembers(
    ws: string,
    dto: CreateProjectDto,
    tx: EntityManager,
  ): Promise<Map<string, string>> {
    const fields = (['project_lead_id', 'default_assignee_id'] as const).filter((f) => dto[f]);
    if (!fields.length) return new Map();
    const found = await this.repo.activeWorkspaceMembers(
      ws,
      fields.map((f) => dto[f]!.toLowerCase()),
      tx,
    );
    for (const f of fields) {
      const role = found.get(dto[f]!.toLowerCase());
      if (!role) throw ProblemException.validation(f, 'Must be the user id of an active member of this workspace.');
      if (role === WorkspaceRole.Guest) throw ProblemException.validation(f, GUEST_REFUSED[f]);
    }
    return found;
  }

  /**
   * On update, the lead must be a listed member of the project and not a workspace guest; the default
   * assignee must be assignable to work items: a project admin or contributor, or a workspace owner or
   * admin (project admins everywhere). Otherwise 400 naming the field.
   */
  private async assertProjectMembers(ctx: ProjectContext, dto: UpdateProjectDto, tx: EntityManager): Promise<void> {
    const fields = (['project_lead_id', 'default_assignee_id'] as const).filter((f) => dto[f]);
    if (!fields.length) return;
    const wsRoles = await this.repo.activeWorkspaceMembers(
      ctx.workspace.id,
      fields.map((f) => dto[f]!.toLowerCase()),
      tx,
    );
    for (const f of fields) {
      const userId = dto[f]!.toLowerCase();
      const wsRole = wsRoles.get(userId);
      const membership = wsRole
        ? await this.membersService.projectMemberByUser(ctx.workspace.id, ctx.project.id, userId, tx)
        : null;
      if (f === 'project_lead_id') {
        if (!membership) throw ProblemException.validation(f, 'Must be the user id of a member of this project.');
        if (wsRole === WorkspaceRole.Guest) throw ProblemException.validation(f, GUEST_REFUSED[f]);
        continue;
      }
      if (!wsRole) throw ProblemException.validation(f, 'Must be the user id of an active member of this workspace.');
      if (wsRole === WorkspaceRole.Guest) throw ProblemException.validation(f, GUEST_REFUSED[f]);
      const role = effectiveProjectRole(wsRole, membership?.role ?? null);
      if (projectLevel(role) < PROJECT_ROLE_LEVEL[ProjectRole.Contributor]) {
        throw ProblemException.validation(
          f,
          'Must be the user id of an assignable member of this project: a project admin or contributor, or a workspace owner or admin.',
        );
      }
    }
  }
}

/** The constraint of a PostgreSQL unique violation, or null for any other error. */
function uniqueViolation(e: unknown): string | null {
  const pg = e instanceof QueryFailedError ? (e.driverError as { code?: string; constraint?: string }) : undefined;
  return pg?.code === '23505' ? (pg.constraint ?? '') : null;
}

const GUEST_REFUSED = {
  project_lead_id: 'A workspace guest cannot lead a project.',
  default_assignee_id:
    'A workspace guest cannot be the default assignee: guests can only be project guests or commenters, who cannot be assigned work items.',
} as const;

/** The audit target of a change to the request's project. */
function ctxTarget(ctx: ProjectContext) {
  return {
    category: 'settings' as const,
    workspace_id: ctx.workspace.id,
    project_id: ctx.project.id,
    target_type: 'project',
    target_id: ctx.project.id,
    target_display_name: ctx.project.name,
  };
}
