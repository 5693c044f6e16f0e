import {
  applyDecorators,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Put,
  Type,
} from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, AuthRule } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import { UuidParam } from '../common/http/params';
import { assertUuid } from '../common/http/validation';
import { ListQuery } from '../common/pagination/list-query';
import { ListSpec } from '../common/pagination/list-spec';
import { ListEnvelope } from '../common/pagination/run-list';
import { everyRow, V1ListParams, v1List, V1Page } from './v1-list';
import { V1Table } from './v1-records.repository';
import { asV2Body, fromV1 } from './v1-shape';
import { V1RecordSpec, V1Returns } from './v1-responses';
import { V1Shaper } from './v1-shaper';

type Row = { id: string };

/** A resource's v2 service calls, as the v1 CRUD routes make them (`X`: the route's request context). */
export interface V1CrudOps<C, U, X = ProjectContext> {
  list(ctx: X, q: ListQuery): Promise<ListEnvelope<Row>>;
  create(ctx: X, dto: C): Promise<Row>;
  get(ctx: X, id: string): Promise<Row>;
  update(ctx: X, id: string, dto: U): Promise<Row>;
  remove(ctx: X, id: string): Promise<void>;
}

export interface V1CrudSpec<S, C, U, X = ProjectContext> {
  /** Class name (route listings, operation ids). */
  name: string;
  /**
   * Route path under api/v1/workspaces/:slug/projects/:project_id/ (`level: 'workspace'`: under
   * api/v1/workspaces/:slug/); `:name` segments are parent ids (UUIDs), handed to `ops`.
   */
  path: string;
  level?: 'project' | 'workspace';
  table: V1Table;
  /** What v1 answers (the v1 document's record component). */
  record: V1RecordSpec;
  /** The v2 service (its class, the injection token) and how v1's routes call it. */
  service: Type<S>;
  ops: (service: S, parents: Record<string, string>) => V1CrudOps<C, U, X>;
  /** The v2 list spec and DTOs the v2 routes use (v1 validates with the same ones). */
  list: ListSpec;
  createDto: new () => C;
  updateDto: new () => U;
  /** The v2 routes' rules. */
  read: AuthRule;
  write: AuthRule;
  /** v1 body field -> v2 field, beyond the generic `x` -> `x_id` relations listed here too. */
  bodyIn: Record<string, string>;
  /** v2 response field -> v1 name where the generic renaming does not give it. */
  shapeOut?: Record<string, string>;
  /** The v2 controller's own extra gates, applied the same way (the work item type mode guard and its surface). */
  classGuards?: ClassDecorator[];
  /** v1 answers this list whole, as an array (work item types and properties), not in the v1 envelope. */
  wholeList?: boolean;
  writeGate?: () => MethodDecorator;
}

type Params = Record<string, string>;

/** The operation id of a v1 CRUD route: `v1_[workspace_]<path without parent ids>_<id>`. */
function operationId(spec: { path: string; level?: 'project' | 'workspace' }, id: string): string {
  const slug = spec.path.replace(/\/:[a-z_]+/g, '').replace(/[-/]/g, '_');
  return `v1_${spec.level === 'workspace' ? 'workspace_' : ''}${slug}_${id}`;
}

/**
 * The decorators of one v1 CRUD route, applied as the stacked form `@Authenticated @gate @ApiOperation @V1Returns`
 * was (bottom first): the v2 route's rule (a write adds the resource's gate), the operation id, v1's response.
 */
function route<S, C, U, X>(
  spec: V1CrudSpec<S, C, U, X>,
  id: string,
  access: 'read' | 'write',
  returns: Parameters<typeof V1Returns>[0],
): MethodDecorator {
  const gate = access === 'write' && spec.writeGate ? [spec.writeGate()] : [];
  const rule = Authenticated(access === 'read' ? spec.read : spec.write);
  return applyDecorators(V1Returns(returns), ApiOperation({ operationId: operationId(spec, id) }), ...gate, rule);
}

/** A v1 list page (or, `wholeList`, every row at once as an array) of the v2 service's list, in v1's shapes. */
async function listPage<C, U, X extends WorkspaceContext>(
  spec: V1CrudSpec<unknown, C, U, X>,
  ops: V1CrudOps<C, U, X>,
  shape: V1Shaper,
  ctx: X,
  page: V1Page,
) {
  if (spec.wholeList) {
    const rows = await everyRow(spec.list, (q) => ops.list(ctx, { ...q, filters: page.query.filters }));
    return shape.many(spec.table, ctx, rows, spec.shapeOut);
  }
  const env = await ops.list(ctx, page.query);
  const rows = await shape.many(spec.table, ctx, env.data, spec.shapeOut);
  return v1List({ ...env, data: rows }, page, (r) => r);
}

/**
 * The v1 CRUD routes of a project resource (list, create, retrieve, PATCH and PUT, delete), each a call of the v2
 * service under the v2 route's own rule: only the request and response shapes are v1's.
 */
export function v1CrudController<S, C, U, X extends WorkspaceContext = ProjectContext>(
  spec: V1CrudSpec<S, C, U, X>,
): Type<unknown> {
  const parentNames = [...spec.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]);
  const base = spec.level === 'workspace' ? 'api/v1/workspaces/:slug' : 'api/v1/workspaces/:slug/projects/:project_id';
  const one = { record: spec.record };
  @applyDecorators(...(spec.classGuards ?? []))
  @ApiTags(`v1 ${spec.path}`)
  @Controller(`${base}/${spec.path}`)
  class V1CrudController {
    constructor(
      @Inject(spec.service) private readonly service: S,
      private readonly shape: V1Shaper,
    ) {}

    /** The v2 calls for this request's parent ids (each a UUID, else 400 naming it). */
    ops(params: Params): V1CrudOps<C, U, X> {
      const parents = Object.fromEntries(parentNames.map((n) => [n, assertUuid(params[n], n)]));
      return spec.ops(this.service, parents);
    }

    @Get()
    @route(spec, 'list', 'read', { record: spec.record, list: spec.wholeList ? 'array' : 'page' })
    list(@Ctx() ctx: X, @Param() params: Params, @V1ListParams(spec.list) page: V1Page) {
      return listPage(spec as V1CrudSpec<unknown, C, U, X>, this.ops(params), this.shape, ctx, page);
    }

    @Post()
    @route(spec, 'create', 'write', one)
    async create(@Ctx() ctx: X, @Param() params: Params, @Body() body: unknown) {
      const dto = await asV2Body(spec.createDto, fromV1(body, spec.bodyIn));
      return this.shape.one(spec.table, ctx, await this.ops(params).create(ctx, dto), spec.shapeOut);
    }

    @Get(':pk')
    @route(spec, 'get', 'read', one)
    async get(@Ctx() ctx: X, @Param() params: Params, @UuidParam('pk') pk: string) {
      return this.shape.one(spec.table, ctx, await this.ops(params).get(ctx, pk), spec.shapeOut);
    }

    @Patch(':pk')
    @route(spec, 'update', 'write', one)
    async update(@Ctx() ctx: X, @Param() params: Params, @UuidParam('pk') pk: string, @Body() body: unknown) {
      const dto = await asV2Body(spec.updateDto, fromV1(body, spec.bodyIn));
      return this.shape.one(spec.table, ctx, await this.ops(params).update(ctx, pk, dto), spec.shapeOut);
    }

    @Put(':pk')
    @route(spec, 'replace', 'write', one)
    replace(@Ctx() ctx: X, @Param() params: Params, @UuidParam('pk') pk: string, @Body() body: unknown) {
      return this.update(ctx, params, pk, body);
    }

    @Delete(':pk')
    @HttpCode(204)
    @route(spec, 'delete', 'write', {})
    async remove(@Ctx() ctx: X, @Param() params: Params, @UuidParam('pk') pk: string): Promise<void> {
      await this.ops(params).remove(ctx, pk);
    }
  }
  Object.defineProperty(V1CrudController, 'name', { value: spec.name });
  return V1CrudController;
}
