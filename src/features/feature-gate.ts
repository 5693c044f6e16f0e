import { ProblemException } from '../common/errors/problem.exception';
import { Queryable } from '../common/pagination/sql-params';
import { FeatureFlags } from './feature-flags.queries';

export type GatedProjectFeature =
  'is_cycles_enabled' | 'is_modules_enabled' | 'is_estimates_enabled' | 'is_workflow_enabled';

const LABELS: Record<GatedProjectFeature, string> = {
  is_cycles_enabled: 'Cycles',
  is_modules_enabled: 'Modules',
  is_estimates_enabled: 'Estimates',
  is_workflow_enabled: 'Workflows',
};

/**
 * Writes of a switchable project feature are 400 while the feature is off (reads keep working).
 * The error names the flag, so a client knows which switch to turn on.
 */
export async function assertProjectFeatureEnabled(
  features: FeatureFlags,
  workspaceId: string,
  projectId: string,
  flag: GatedProjectFeature,
  db?: Queryable,
): Promise<void> {
  const row = await features.project(workspaceId, projectId, db);
  if (!row[flag]) {
    throw ProblemException.validation(
      flag,
      `${LABELS[flag]} are disabled for this project (${flag} is false); enable the feature with PATCH .../projects/{project_id}/features/ first.`,
    );
  }
}
