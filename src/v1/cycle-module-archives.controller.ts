import { Controller, Delete, Get, HttpCode, Inject, Post, Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, AuthRule } from '../common/auth/authenticated.decorator';
import { Ctx, ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { Bodyless } from '../common/http/bodyless';
import { UuidParam } from '../common/http/params';
import { ListQuery } from '../common/pagination/list-query';
import { ListSpec } from '../common/pagination/list-spec';
import { ListEnvelope } from '../common/pagination/run-list';
import { CYCLE_LIST } from '../cycles/cycles.queries';
import { CyclesService } from '../cycles/cycles.service';
import { MODULE_LIST } from '../modules/modules.queries';
import { ModulesService } from '../modules/modules.service';
import { V1ListParams, v1List, V1Page } from './v1-list';
import { V1_RECORDS, V1RecordSpec, V1Returns } from './v1-responses';
import { V1Shaper } from './v1-shaper';

/** A cycle's or module's archive as its v2 service offers it. */
interface ArchiveOps {
  listArchived(ctx: ProjectContext, q: ListQuery): Promise<ListEnvelope<{ id: string }>>;
  setArchived(ctx: ProjectContext, id: string, archived: boolean): Promise<unknown>;
}

interface ArchiveSpec<S extends ArchiveOps> {
  name: string;
  kind: 'cycle' | 'module';
  service: Type<S>;
  list: ListSpec;
  record: V1RecordSpec;
  read: AuthRule;
  write: AuthRule;
}

/**
 * v1's archive routes of cycles and modules over v2's (POST .../{pk}/archive/, POST .../{pk}/unarchive/,
 * GET .../archived-{kind}s/): v1 archives with POST on the record and unarchives with DELETE under
 * archived-{kind}s/, both answering 204 as Plane's v1 does.
 */
function v1ArchiveController<S extends ArchiveOps>(spec: ArchiveSpec<S>): Type<unknown> {
  const table = `${spec.kind}s` as const;
  const op = (id: string) => ApiOperation({ operationId: `v1_${spec.kind}s_${id}` });
  @ApiTags(`v1 ${spec.kind}s`)
  @Controller('api/v1/workspaces/:slug/projects/:project_id')
  class V1Archive {
    constructor(
      @Inject(spec.service) private readonly service: S,
      private readonly shape: V1Shaper,
    ) {}

    @Get(`archived-${spec.kind}s`)
    @Authenticated(spec.read)
    @op('list_archived')
    @V1Returns({ record: spec.record, list: 'page' })
    async list(@Ctx() ctx: ProjectContext, @V1ListParams(spec.list) page: V1Page) {
      const env = await this.service.listArchived(ctx, page.query);
      return v1List({ ...env, data: await this.shape.many(table, ctx, env.data) }, page, (r) => r);
    }

    @Post(`${spec.kind}s/:pk/archive`)
    @Bodyless()
    @HttpCode(204)
    @Authenticated(spec.write)
    @op('archive')
    @V1Returns({ status: 204 })
    async archive(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string): Promise<void> {
      await this.service.setArchived(ctx, pk, true);
    }

    @Delete(`archived-${spec.kind}s/:pk/unarchive`)
    @HttpCode(204)
    @Authenticated(spec.write)
    @op('unarchive')
    @V1Returns({})
    async unarchive(@Ctx() ctx: ProjectContext, @UuidParam('pk') pk: string): Promise<void> {
      await this.service.setArchived(ctx, pk, false);
    }
  }
  Object.defineProperty(V1Archive, 'name', { value: spec.name });
  return V1Archive;
}

export const V1CycleArchiveController = v1ArchiveController({
  name: 'V1CycleArchiveController',
  kind: 'cycle',
  service: CyclesService,
  list: CYCLE_LIST,
  record: V1_RECORDS.cycle,
  read: { scope: 'projects.cycles:read', project: ProjectRole.Guest },
  write: { scope: 'projects.cycles:write', project: ProjectRole.Contributor },
});

export const V1ModuleArchiveController = v1ArchiveController({
  name: 'V1ModuleArchiveController',
  kind: 'module',
  service: ModulesService,
  list: MODULE_LIST,
  record: V1_RECORDS.module,
  read: { scope: 'projects.modules:read', project: ProjectRole.Guest },
  write: { scope: 'projects.modules:write', project: ProjectRole.Contributor },
});
