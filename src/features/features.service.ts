import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ProjectContext, WorkspaceContext } from '../common/auth/request-context';
import { AuditService } from '../audit/audit.service';
import {
  PROJECT_FLAGS,
  ProjectFeaturesDto,
  UpdateProjectFeaturesDto,
  UpdateWorkspaceFeaturesDto,
  WORKSPACE_FEATURE_FIELDS,
  WorkspaceFeaturesDto,
} from './features.dto';
import { mapProjectFeatures, mapWorkspaceFeatures, typeMode } from './features.mapper';
import { FeatureFlags, ProjectFeaturesRow, WorkspaceFeaturesRow } from './feature-flags.queries';
import { FeaturesWriteRepository } from './features.repository';

/** The fields of `dto` whose value differs from `row`: [changes, old values, new values]. */
function diff(row: Record<string, unknown>, dto: object, fields: readonly string[]) {
  const changes: Record<string, unknown> = {};
  const oldValue: Record<string, unknown> = {};
  for (const f of fields) {
    const v = (dto as Record<string, unknown>)[f];
    if (v === undefined || v === row[f]) continue;
    changes[f] = v;
    oldValue[f] = row[f];
  }
  return { changes, oldValue, changed: Object.keys(changes).length > 0 };
}

/**
 * Workspace and project feature switches. Every effective change is audited (category settings)
 * in the same transaction; a work item type mode switch gets its own entry as well.
 */
@Injectable()
export class FeaturesService {
  constructor(
    private readonly ds: DataSource,
    private readonly features: FeatureFlags,
    private readonly writes: FeaturesWriteRepository,
    private readonly audit: AuditService,
  ) {}

  async getWorkspace(ctx: WorkspaceContext): Promise<WorkspaceFeaturesDto> {
    return mapWorkspaceFeatures(await this.features.workspace(ctx.workspace.id));
  }

  async updateWorkspace(ctx: WorkspaceContext, dto: UpdateWorkspaceFeaturesDto): Promise<WorkspaceFeaturesDto> {
    return this.ds.transaction(async (tx) => {
      const ws = ctx.workspace.id;
      const row = await this.features.workspace(ws, tx, true);
      const { changes, oldValue, changed } = diff(row, dto, WORKSPACE_FEATURE_FIELDS);
      if (!changed) return mapWorkspaceFeatures(row);
      const updated = (await this.writes.update('workspace_features', ws, row.id, changes, tx)) as WorkspaceFeaturesRow;
      const target = { target_type: 'workspace', target_id: ws, target_display_name: ctx.workspace.name };
      await this.audit.record(tx, ctx, {
        event_name: 'workspace.features_updated',
        category: 'settings',
        workspace_id: ws,
        ...target,
        old_value: oldValue,
        new_value: changes,
        metadata: { changed_fields: Object.keys(changes) },
      });
      if ('is_work_item_types_enabled' in changes) {
        await this.audit.record(tx, ctx, {
          event_name: 'workspace.work_item_type_mode_changed',
          category: 'settings',
          workspace_id: ws,
          ...target,
          old_value: {
            mode: typeMode(row.is_work_item_types_enabled),
            is_work_item_types_enabled: row.is_work_item_types_enabled,
          },
          new_value: {
            mode: typeMode(updated.is_work_item_types_enabled),
            is_work_item_types_enabled: updated.is_work_item_types_enabled,
          },
        });
      }
      return mapWorkspaceFeatures(updated);
    });
  }

  async getProject(ctx: ProjectContext): Promise<ProjectFeaturesDto> {
    return mapProjectFeatures(await this.features.project(ctx.workspace.id, ctx.project.id));
  }

  async updateProject(ctx: ProjectContext, dto: UpdateProjectFeaturesDto): Promise<ProjectFeaturesDto> {
    return this.ds.transaction(async (tx) => {
      const row = await this.features.project(ctx.workspace.id, ctx.project.id, tx, true);
      const { changes, oldValue, changed } = diff(row, dto, PROJECT_FLAGS);
      if (!changed) return mapProjectFeatures(row);
      const updated = (await this.writes.update(
        'project_features',
        ctx.workspace.id,
        row.id,
        changes,
        tx,
      )) as ProjectFeaturesRow;
      await this.audit.record(tx, ctx, {
        event_name: 'project.features_updated',
        category: 'settings',
        workspace_id: ctx.workspace.id,
        project_id: ctx.project.id,
        target_type: 'project',
        target_id: ctx.project.id,
        target_display_name: ctx.project.name,
        old_value: oldValue,
        new_value: changes,
        metadata: { changed_fields: Object.keys(changes) },
      });
      return mapProjectFeatures(updated);
    });
  }
}
