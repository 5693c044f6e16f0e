import { ProjectFeaturesRow, WorkspaceFeaturesRow } from './feature-flags.queries';
import { PROJECT_FLAGS, ProjectFeaturesDto, WORKSPACE_FLAGS, WorkspaceFeaturesDto } from './features.dto';

export function mapWorkspaceFeatures(r: WorkspaceFeaturesRow): WorkspaceFeaturesDto {
  const dto = {
    id: r.id,
    work_item_type_default_level: Number(r.work_item_type_default_level ?? 0),
  } as WorkspaceFeaturesDto;
  for (const f of WORKSPACE_FLAGS) dto[f] = Boolean(r[f]);
  dto.created_at = new Date(r.created_at).toISOString();
  return dto;
}

export function mapProjectFeatures(r: ProjectFeaturesRow): ProjectFeaturesDto {
  const dto = { id: r.id, project_id: r.project_id } as ProjectFeaturesDto;
  for (const f of PROJECT_FLAGS) dto[f] = Boolean(r[f]);
  dto.created_at = new Date(r.created_at).toISOString();
  return dto;
}

/** The type mode as a word, for audit entries: true is workspace mode, false project mode. */
export function typeMode(enabled: boolean): 'workspace' | 'project' {
  return enabled ? 'workspace' : 'project';
}
