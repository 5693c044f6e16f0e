import { ProjectDto } from './projects.dto';
import { ProjectRow } from './projects.repository';

export function mapProject(r: ProjectRow): ProjectDto {
  return {
    id: r.id,
    name: r.name,
    identifier: r.identifier,
    description: r.description,
    default_assignee_id: r.default_assignee_id,
    project_lead_id: r.project_lead_id,
    logo_props: r.logo_props ?? {},
    external_id: r.external_id,
    external_source: r.external_source,
    archived_at: r.archived_at ? new Date(r.archived_at).toISOString() : null,
    created_at: new Date(r.created_at).toISOString(),
    created_by_id: r.created_by_id,
  };
}
