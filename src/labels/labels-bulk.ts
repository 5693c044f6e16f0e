import { Injectable } from '@nestjs/common';
import { ProjectContext } from '../common/auth/request-context';
import { ProjectRole } from '../common/auth/roles';
import { BulkRoutes, BulkTargets, projectCollection } from '../common/bulk/bulk-routes';
import { BulkTarget } from '../common/bulk/bulk-writes';
import { CreateLabelDto, LabelDto, UpdateLabelDto } from './labels.dto';
import { LabelsService } from './labels.service';

/** A project's labels as bulk targets: each row is the single label create, PATCH or DELETE. */
@Injectable()
export class LabelsBulkTargets implements BulkTargets {
  constructor(private readonly labels: LabelsService) {}

  target(ctx: ProjectContext): BulkTarget<CreateLabelDto, UpdateLabelDto> {
    const s = { workspaceId: ctx.workspace.id, projectId: ctx.project.id };
    return {
      createDto: CreateLabelDto,
      updateDto: UpdateLabelDto,
      create: (dto) => this.labels.create(s, ctx.principal.userId, dto),
      update: (id, dto) => this.labels.update(s, id, dto),
      remove: (id) => this.labels.remove(s, id),
      pair: { table: 'labels', workspaceId: s.workspaceId, scopeId: s.projectId },
    };
  }
}

/** The project labels' bulk-create, bulk-update, bulk-delete and upsert (workspace-level labels have none). */
export const LabelsBulkController = BulkRoutes(
  projectCollection('labels', ProjectRole.Admin, { create: CreateLabelDto, read: LabelDto }),
  LabelsBulkTargets,
);
