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

/**
 * The v1 CRUD routes of a project resource (list, create, retrieve, PATCH and PUT, delete), each a call of the v2
 * service under the v2 route's own rule: only the request and response shapes are v1's.
 */
export function v1CrudController<S, C, U, X extends WorkspaceContext = ProjectContext>(
  spec: V1CrudSpec<S, C, U, X>,
): Type<unknown> {
  const slug = spec.path.replace(/\/:[a-z_]+/g, '').replace(/[-/]/g, '_');
  const op = (id: string) =>
    ApiOperation({ operationId: `v1_${spec.level === 'workspace' ? 'workspace_' : ''}${slug}_${id}` });
  const parentNames = [...spec.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]);
  const base = spec.level === 'workspace' ? 'api/v1/workspaces/:slug' : 'api/v1/workspaces/:slug/projects/:project_id';
  const gate: MethodDecorator = spec.writeGate ? spec.writeGate() : () => undefined;
  @applyDecorators(...(spec.classGuards ?? []))
  @ApiTags(`v1 ${spec.path}`)
  @Controller(`${base}/${spec.path}`)
  class V1CrudController {
    constructor(
      @Inject(spec.service) private readonly service: S,
      private readonly shape: V1Shaper,
    ) {}

    /** The v2 calls for this request's parent ids (each a UUID, else 400 naming it). */
    ops(params: Record<string, string>): V1CrudOps<C, U, X> {
      const parents = Object.fromEntries(parentNames.map((n) => [n, assertUuid(params[n], n)]));
      return spec.ops(this.service, parents);
    }

    @Get()
    @Authenticated(spec.read)
    @op('list')
    @V1Returns({ record: spec.record, list: spec.wholeList ? 'array' : 'page' })
    async list(@Ctx() ctx: X, @Param() params: Record<string, string>, @V1ListParams(spec.list) page: V1Page) {
      const ops = this.ops(params);
      if (spec.wholeList) {
        const rows = await everyRow(spec.list, (q) => ops.list(ctx, { ...q, filters: page.query.filters }));
        return this.shape.many(spec.table, ctx, rows, spec.shapeOut);
      }
      const env = await ops.list(ctx, page.query);
      const rows = await this.shape.many(spec.table, ctx, env.data, spec.shapeOut);
      return v1List({ ...env, data: rows }, page, (r) => r);
    }

    @Post()
    @Authenticated(spec.write)
    @gate
    @op('create')
    @V1Returns({ record: spec.record })
    async create(@Ctx() ctx: X, @Param() params: Record<string, string>, @Body() body: unknown) {
      const ops = this.ops(params);
      const dto = await asV2Body(spec.createDto, fromV1(body, spec.bodyIn));
      return this.shape.one(spec.table, ctx, await ops.create(ctx, dto), spec.shapeOut);
    }

    @Get(':pk')
    @Authenticated(spec.read)
    @op('get')
    @V1Returns({ record: spec.record })
    async get(@Ctx() ctx: X, @Param() params: Record<string, string>, @UuidParam('pk') pk: string) {
      return this.shape.one(spec.table, ctx, await this.ops(params).get(ctx, pk), spec.shapeOut);
    }

    @Patch(':pk')
    @Authenticated(spec.write)
    @gate
    @op('update')
    @V1Returns({ record: spec.record })
    async update(
      @Ctx() ctx: X,
      @Param() params: Record<string, string>,
      @UuidParam('pk') pk: string,
      @Body() body: unknown,
    ) {
      const ops = this.ops(params);
      const dto = await asV2Body(spec.updateDto, fromV1(body, spec.bodyIn));
      return this.shape.one(spec.table, ctx, await ops.update(ctx, pk, dto), spec.shapeOut);
    }

    @Put(':pk')
    @Authenticated(spec.write)
    @gate
    @op('replace')
    @V1Returns({ record: spec.record })
    replace(
      @Ctx() ctx: X,
      @Param() params: Record<string, string>,
      @UuidParam('pk') pk: string,
      @Body() body: unknown,
    ) {
      return this.update(ctx, params, pk, body);
    }

    @Delete(':pk')
    @HttpCode(204)
    @Authenticated(spec.write)
    @gate
    @op('delete')
    @V1Returns({})
    async remove(@Ctx() ctx: X, @Param() params: Record<string, string>, @UuidParam('pk') pk: string): Promise<void> {
      await this.ops(params).remove(ctx, pk);
    }
  }
  Object.defineProperty(V1CrudController, 'name', { value: spec.name });
  return V1CrudController;
}
