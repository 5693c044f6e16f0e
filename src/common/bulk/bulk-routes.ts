import {
  applyDecorators,
  Body,
  Controller,
  HttpCode,
  Inject,
  Injectable,
  Param,
  Post,
  Res,
  Type,
} from '@nestjs/common';
import { ApiUuidParam } from '../http/params';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Authenticated, AuthRule } from '../auth/authenticated.decorator';
import { Ctx, ProjectContext, RequestContext } from '../auth/request-context';
import { ProjectRole } from '../auth/roles';
import { UpsertTable } from '../database/external-pair';
import { ApiProblemResponses } from '../openapi/problem-responses';
import { ApiBulkResponses, BULK_MAX_ITEMS, BulkDeleteBodyDto, BulkWriteBodyDto, validateOne } from './bulk';
import { BulkTarget, BulkWrites } from './bulk-writes';

/** A resource's bulk and upsert routes, as its collection's siblings (gap-reference appendix). */
export interface BulkRoutesSpec {
  /** The collection's path: `api/v2/workspaces/:slug/projects/:project_id/labels`. */
  path: string;
  /** The OpenAPI tag; default: `operation`. */
  tag?: string;
  /** The operationId prefix: `labels` gives `labels_bulk_create`, `labels_upsert`... */
  operation: string;
  /** The records, plural, for summaries; default: `operation`. */
  noun?: string;
  /** The write rule of the single operations (the same scope and role). */
  auth: AuthRule;
  createDto: Type<object>;
  readDto: Type<object>;
  /** Whose live record an external pair names (upsert): `this project`, `this work item`... */
  pairScope: string;
  /** The later edition lists no bulk-delete for this resource (projects). */
  withoutDelete?: boolean;
}

/** The spec of a collection directly under a project (`.../projects/{project_id}/states/`), scope `projects.<name>:write`. */
export function projectCollection(
  name: 'states' | 'labels' | 'cycles' | 'modules' | 'estimates',
  role: ProjectRole,
  dtos: { create: Type<object>; read: Type<object> },
): BulkRoutesSpec {
  return {
    path: `api/v2/workspaces/:slug/projects/:project_id/${name}`,
    operation: name,
    auth: { scope: `projects.${name}:write`, project: role },
    createDto: dtos.create,
    readDto: dtos.read,
    pairScope: 'this project',
  };
}

/** The resource's provider of bulk targets: its single operations bound to the request's scope. */
export interface BulkTargets {
  target(ctx: RequestContext, params: Record<string, string>): BulkTarget | Promise<BulkTarget>;
}

/** A service whose single operations take the project context: `create(ctx, dto)`, `update(ctx, id, dto)`, `remove(ctx, id)`. */
export interface ProjectCrud<C extends object, U extends object> {
  create(ctx: ProjectContext, dto: C): Promise<{ id: string }>;
  update(ctx: ProjectContext, id: string, dto: U): Promise<{ id: string }>;
  remove(ctx: ProjectContext, id: string): Promise<void>;
}

/**
 * The bulk routes of a collection directly under a project whose service is a ProjectCrud: the controller and its
 * targets provider, for the feature module to register.
 */
export function projectCrudBulk<C extends object, U extends object>(
  name: 'states' | 'cycles' | 'modules',
  role: ProjectRole,
  service: Type<ProjectCrud<C, U>>,
  dtos: { create: Type<C>; update: Type<U>; read: Type<object> },
): { controller: Type<unknown>; targets: Type<BulkTargets> } {
  const targets = projectCrudTargets(service, name, dtos);
  return { controller: BulkRoutes(projectCollection(name, role, dtos), targets), targets };
}

/** The bulk targets of a ProjectCrud service, its records' external pairs scoped by the project. */
export function projectCrudTargets<C extends object, U extends object>(
  service: Type<ProjectCrud<C, U>>,
  table: UpsertTable,
  dtos: { create: Type<C>; update: Type<U> },
): Type<BulkTargets> {
  @Injectable()
  class CrudTargets implements BulkTargets {
    constructor(@Inject(service) private readonly svc: ProjectCrud<C, U>) {}

    target(ctx: ProjectContext): BulkTarget<C, U> {
      return {
        createDto: dtos.create,
        updateDto: dtos.update,
        create: (dto) => this.svc.create(ctx, dto),
        update: (id, dto) => this.svc.update(ctx, id, dto),
        remove: (id) => this.svc.remove(ctx, id),
        pair: { table, workspaceId: ctx.workspace.id, scopeId: ctx.project.id },
      };
    }
  }
  Object.defineProperty(CrudTargets, 'name', { value: `${table}BulkTargets` });
  return CrudTargets;
}

const PER_ROW =
  'Each row is answered in `results` by its index: `{index, result, id}`, or the problem members of its failure (`type`, `code`, `detail`, `errors`) with `result: "failed"`; 200 even when rows failed. With `all_or_none: true` a failed row means nothing was written: 409 with every row (rows that passed say they were not written).';
const BULK_400: [number, string] = [
  400,
  `\`validation_error\`: the envelope is malformed (items / ids missing, empty or over ${BULK_MAX_ITEMS}, all_or_none not a boolean); a row's own problems are answered in results`,
];

/**
 * The decorators of a bulk write route (`bulk-create/`, `bulk-update/`, `bulk-delete/`), applied as their stacked
 * form was (bottom first): POST, 200, the single operation's rule, the operation, the per-row responses.
 */
function bulkRoute(spec: BulkRoutesSpec, path: string, summary: string, description: string): MethodDecorator {
  return applyDecorators(
    ApiProblemResponses(BULK_400, 404),
    ApiBulkResponses(),
    ApiOperation({ operationId: `${spec.operation}_${path.replace('-', '_')}`, summary, description }),
    Authenticated(spec.auth),
    HttpCode(200),
    Post(path),
  );
}

/** The decorators of the `upsert/` route (200 updated, 201 created), in their stacked order. */
function upsertRoute(spec: BulkRoutesSpec, noun: string): MethodDecorator {
  return applyDecorators(
    ApiProblemResponses(400, 404, [
      409,
      '`conflict`: a rule of the create or PATCH (a name taken), or a concurrent write',
    ]),
    ApiCreatedResponse({ type: spec.readDto, description: 'Created' }),
    ApiOkResponse({ type: spec.readDto, description: 'Updated' }),
    ApiBody({ type: spec.createDto }),
    ApiOperation({
      operationId: `${spec.operation}_upsert`,
      summary: `Create or update one of the ${noun} by its external pair`,
      description: `A create body. With both external_source and external_id, the live record of ${spec.pairScope} holding that pair is updated with it (PATCH rules; 200), else the record is created (create rules; 201). Without the pair it is a plain create. Sending it twice creates once.`,
    }),
    Authenticated(spec.auth),
    Post('upsert'),
  );
}

/** The path's parameters (`:slug`, `:project_id`...), documented on every route of the controller. */
function documentPathParams(path: string, target: Type<unknown>): void {
  for (const [, name] of path.matchAll(/:(\w+)/g))
    (name.endsWith('_id') ? ApiUuidParam(name) : ApiParam({ name }))(target);
}

/** Names the controller class (route listings) and gives it the tag, path and path parameters. */
function asController(spec: BulkRoutesSpec, target: Type<unknown>): Type<unknown> {
  applyDecorators(ApiTags(spec.tag ?? spec.operation), Controller(spec.path))(target);
  documentPathParams(spec.path, target);
  Object.defineProperty(target, 'name', { value: `${spec.operation}BulkController` });
  return target;
}

/**
 * Builds the controller of a resource's `bulk-create/`, `bulk-update/`, `bulk-delete/` and `upsert/` routes over
 * BulkWrites: each row is the single operation's service call (its rules, permissions and audit).
 */
export function BulkRoutes(spec: BulkRoutesSpec, targets: Type<BulkTargets>): Type<unknown> {
  const noun = spec.noun ?? spec.operation;
  type Params = Record<string, string>;

  class Routes {
    constructor(
      @Inject(BulkWrites) readonly bulk: BulkWrites,
      @Inject(targets) readonly targets: BulkTargets,
    ) {}

    @bulkRoute(
      spec,
      'bulk-create',
      `Create ${noun} in bulk`,
      `Up to ${BULK_MAX_ITEMS} create bodies, each validated and written by the single create (its rules, permissions and audit; a reused external pair is 409, also between rows), in one transaction. ${PER_ROW}`,
    )
    async create(@Ctx() ctx: RequestContext, @Param() params: Params, @Body() body: BulkWriteBodyDto) {
      return this.bulk.create(await this.targets.target(ctx, params), body.items, body.all_or_none ?? false);
    }

    @bulkRoute(
      spec,
      'bulk-update',
      `Update ${noun} in bulk`,
      `Up to ${BULK_MAX_ITEMS} PATCH bodies, each with the \`id\` of the record (unknown or foreign: that row is 404), each validated and written by the single PATCH, in one transaction. ${PER_ROW}`,
    )
    async update(@Ctx() ctx: RequestContext, @Param() params: Params, @Body() body: BulkWriteBodyDto) {
      return this.bulk.update(await this.targets.target(ctx, params), body.items, body.all_or_none ?? false);
    }

    @upsertRoute(spec, noun)
    async upsert(
      @Ctx() ctx: RequestContext,
      @Param() params: Params,
      @Body() body: unknown,
      @Res({ passthrough: true }) reply: FastifyReply,
    ): Promise<unknown> {
      // The body first, as the global pipe checks a route's body before the handler looks up the path's parents.
      const dto = await validateOne(spec.createDto, body);
      const { created, item } = await this.bulk.upsert(await this.targets.target(ctx, params), dto);
      void reply.status(created ? 201 : 200);
      return item;
    }
  }

  documentPathParams(spec.path, Routes);
  if (spec.withoutDelete) return asController(spec, class BulkController extends Routes {});

  class BulkDeleteController extends Routes {
    @bulkRoute(
      spec,
      'bulk-delete',
      `Delete ${noun} in bulk`,
      `Up to ${BULK_MAX_ITEMS} ids, each deleted by the single DELETE (its rules and effects; unknown, foreign or repeated ids are 404 rows), in one transaction. ${PER_ROW}`,
    )
    async remove(@Ctx() ctx: RequestContext, @Param() params: Params, @Body() body: BulkDeleteBodyDto) {
      return this.bulk.remove(await this.targets.target(ctx, params), body.ids, body.all_or_none ?? false);
    }
  }
  return asController(spec, BulkDeleteController);
}
